internal import CCurl
internal import CCurlShim
import Foundation

/// The pages' TLS relay: a listener on 127.0.0.1 that a web view uses as its HTTPS proxy, so every
/// connection a page opens is held to the kit's ``TransportSecurity`` before a byte of its request
/// leaves the machine. For presenters (WebKitPresenter), not for apps: the interface is SPI.
///
/// On `CONNECT host:port` the relay opens the upstream connection through libcurl with the same
/// trust settings as ``CurlTransport`` (TLS 1.2 or later, the CA file alone when one is configured,
/// the host's pins looked up as the transport does, the configured proxy, the connect timeout, no TLS
/// key log, ALPN off so both legs speak HTTP/1.1). Only when that handshake and the pin check passed
/// does it call `admit(host)` (the presenter lets its view accept the relay's certificate for the
/// host, then returns), answer `200` and accept the view's TLS with an ephemeral certificate made
/// for this relay in memory; then it relays bytes both ways. Any failure calls `refused` and answers
/// `502`: the page's request is never read, let alone sent.
///
/// Threading: `admit` and `refused` run on the relay's connection threads (one per connection) and
/// may block, briefly: the relay answers the view only after they return. ``stop()`` may be called
/// from any thread; connections end within a quarter second.
@_spi(Presenters) public final class PageTLSRelay: @unchecked Sendable {
    // @unchecked: `relay` is written once in init and taken once in stop, under `lock`.

    /// Why a connection to a page's host was refused.
    public struct Refusal: Sendable, Equatable {
        /// The host as the page named it.
        public var host: String
        /// The port the page named.
        public var port: Int
        /// What failed, for the presenter's load failure: a pin mismatch, an untrusted chain, a TLS
        /// version or handshake failure, or the connection itself.
        public var reason: String
        /// Whether the kit's trust refused the server (pin, chain, TLS version), not the network.
        public var isTrustFailure: Bool
    }

    /// The port WebKit's proxy settings name (`http://127.0.0.1:<port>`).
    public let port: UInt16
    /// The certificate the relay shows the view (PEM, no key): the one the presenter allows per host.
    public let certificatePEM: String
    private let lock = NSLock()
    private var relay: OpaquePointer?

    /// Starts a relay holding connections to `transportSecurity` (its pins, CA file and proxy), with
    /// `connectTimeout` seconds for each upstream connection. `nil` when libcurl, OpenSSL or the
    /// listener cannot be set up.
    public init?(
        transportSecurity: TransportSecurity, connectTimeout: TimeInterval = 10,
        admit: @escaping @Sendable (_ host: String) -> Bool,
        refused: @escaping @Sendable (Refusal) -> Void
    ) {
        guard CurlGlobal.initialised else { return nil }
        let box = RelayContext(
            security: transportSecurity,
            connectTimeoutMilliseconds: max(1, Int((min(max(connectTimeout, 0.001), 3600) * 1000).rounded(.up))),
            admit: admit, refused: refused)
        let context = Unmanaged.passRetained(box).toOpaque()
        var callbacks = ccurl_relay_callbacks(
            context: context,
            configure: { context, easy, host, port in
                guard let context, let easy, let host else { return CURLE_FAILED_INIT }
                let box = Unmanaged<RelayContext>.fromOpaque(context).takeUnretainedValue()
                return box.trust(for: String(cString: host)).apply(to: easy)?.1 ?? CURLE_OK
            },
            admit: { context, host in
                guard let context, let host else { return false }
                return Unmanaged<RelayContext>.fromOpaque(context).takeUnretainedValue().admit(String(cString: host))
            },
            refused: { context, host, port, code, message in
                guard let context, let host else { return }
                let box = Unmanaged<RelayContext>.fromOpaque(context).takeUnretainedValue()
                box.refused(
                    PageTLSRelay.refusal(
                        host: String(cString: host), port: Int(port), code: CURLcode(UInt32(bitPattern: code)),
                        detail: message.map { String(cString: $0) } ?? ""))
            },
            release: { context in
                guard let context else { return }
                Unmanaged<RelayContext>.fromOpaque(context).release()
            })
        guard let relay = ccurl_relay_start(&callbacks, 120_000) else {
            Unmanaged<RelayContext>.fromOpaque(context).release()
            return nil
        }
        self.relay = relay
        port = ccurl_relay_port(relay)
        certificatePEM = String(cString: ccurl_relay_certificate_pem(relay))
    }

    deinit { stop() }

    /// Closes the listener and every relayed connection. Idempotent.
    public func stop() {
        let relay = lock.withLock { () -> OpaquePointer? in
            defer { self.relay = nil }
            return self.relay
        }
        if let relay { ccurl_relay_stop(relay) }
    }

    static func refusal(host: String, port: Int, code: CURLcode, detail: String) -> Refusal {
        let place = "\(host):\(port)"
        let detail = detail.isEmpty ? "" : " (\(detail))"
        switch code {
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return Refusal(
                host: host, port: port, reason: "the server's public key does not match the pins for \(host)",
                isTrustFailure: true)
        case CURLE_PEER_FAILED_VERIFICATION:
            return Refusal(
                host: host, port: port, reason: "the certificate of \(place) is not trusted by the kit\(detail)",
                isTrustFailure: true)
        case CURLE_SSL_CONNECT_ERROR:
            return Refusal(
                host: host, port: port,
                reason: "the TLS handshake with \(place) failed (TLS 1.2 or later, the kit's trust)\(detail)",
                isTrustFailure: true)
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED:
            return Refusal(
                host: host, port: port, reason: "TLS with \(place) was refused by the kit's trust\(detail)",
                isTrustFailure: true)
        default:
            return Refusal(
                host: host, port: port, reason: "could not connect to \(place)\(detail)", isTrustFailure: false)
        }
    }
}

/// What the relay's C callbacks reach: read-only after init, used from its connection threads.
private final class RelayContext: Sendable {
    let security: TransportSecurity
    let connectTimeoutMilliseconds: Int
    let admit: @Sendable (String) -> Bool
    let refused: @Sendable (PageTLSRelay.Refusal) -> Void

    init(
        security: TransportSecurity, connectTimeoutMilliseconds: Int, admit: @escaping @Sendable (String) -> Bool,
        refused: @escaping @Sendable (PageTLSRelay.Refusal) -> Void
    ) {
        self.security = security
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.admit = admit
        self.refused = refused
    }

    /// The transport's trust for a connection to `host`; the key log never (pages included).
    func trust(for host: String) -> CurlTrust {
        CurlTrust(
            caBundlePath: security.certificateAuthorityFile,
            pinnedPublicKey: CurlTrust.pinnedPublicKey(for: host, in: security.pinnedPublicKeys),
            proxy: security.proxy, connectTimeoutMilliseconds: connectTimeoutMilliseconds, honoursKeyLogFile: false)
    }
}
