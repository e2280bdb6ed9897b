import Foundation
import PaymentFlow

/// What a presented page may load: the kit's own trust rules, not WebKit's
/// defaults. Made from the payment's `Configuration`, so pages
/// and the SDK's own requests trust the same servers.
///
/// - In an environment without plain HTTP (`.live`), a navigation to
///   `http:` is refused (never loaded; reported as a load failure).
/// - Only `http:` and `https:` navigations are asked about; any other scheme
///   (`file:`, `data:`, a custom one) is refused and reported.
/// - Every `https:` (and `wss:`) connection of a page (navigation, form POST,
///   `fetch`/XHR, subresource, subframe) goes through the presenter's own
///   loopback TLS relay, which connects to the host through libcurl with the
///   kit's transport trust before a byte of the page's request is read:
///   TLS 1.2 or later; with ``certificateAuthorityFile``, that file's CAs
///   *instead of* the system store (as the SDK's own requests); the host's
///   ``pinnedPublicKeys``; the kit's ``proxy``. A refused host gets no request
///   at all; a pin mismatch, an untrusted chain or an old TLS version fails the
///   page (`pageDidFailLoad`, with the reason) whichever request met it.
/// - Pins are looked up as the transport looks them up: case-insensitive, and
///   `example.com.` is `example.com`.
public struct PageTrust: Sendable, Equatable {
    /// Whether `http:` pages may load (`.sandbox`).
    public var allowsPlainHTTP: Bool
    /// A PEM file of certificate authorities trusted instead of the system store, for pages as for the
    /// SDK's own requests; `nil`: the system store.
    public var certificateAuthorityFile: String?
    /// Public-key pins per host (case-insensitive; one trailing dot of a host name is ignored).
    public var pinnedPublicKeys: [String: [String]]
    /// Which proxy the pages' network session uses, as the SDK's own requests do
    /// (`Configuration.proxy`): `.direct` (the default) loads every page straight from its host,
    /// whatever `http_proxy` or `https_proxy` say; `.environment` reads the variables as libcurl does,
    /// when each page opens; `.url(_:)` sends every load through that proxy.
    public var proxy: NetworkProxy

    /// The rules of `configuration`: its environment and its `transportSecurity` (the proxy included).
    public init(configuration: PaymentFlow.Configuration) {
        self.init(
            allowsPlainHTTP: configuration.environment.allowsPlainHTTP,
            transportSecurity: configuration.transportSecurity)
    }

    /// Rules from parts.
    public init(allowsPlainHTTP: Bool, transportSecurity: TransportSecurity = .systemTrust) {
        self.allowsPlainHTTP = allowsPlainHTTP
        self.certificateAuthorityFile = transportSecurity.certificateAuthorityFile
        self.pinnedPublicKeys = Dictionary(
            transportSecurity.pinnedPublicKeys.map { (Self.hostKey($0.key), $0.value) }, uniquingKeysWith: +)
        self.proxy = transportSecurity.proxy
    }

    /// Why the page may not go to `url` at all, or nil when the SDK is to be asked.
    func navigationProblem(_ url: URL) -> String? {
        switch url.scheme?.lowercased() {
        case "https": return nil
        case "http":
            return allowsPlainHTTP ? nil : "plain http is refused outside the sandbox environment"
        case let scheme:
            return "the \(scheme.map { "'\($0)'" } ?? "missing") scheme is refused"
        }
    }

    /// Why a TLS server at `host` with this SPKI hash is refused by the pins, or nil.
    func pinProblem(host: String, spkiSHA256: [UInt8]?) -> String? {
        guard let pins = pinnedPublicKeys.first(where: { Self.hostKey($0.key) == Self.hostKey(host) })?.value,
            !pins.isEmpty
        else { return nil }
        guard let spkiSHA256 else { return "the server's public key could not be read for its pin" }
        let pin = "sha256//" + Data(spkiSHA256).base64EncodedString()
        return pins.contains(pin) ? nil : "the server's public key does not match the pins for \(host)"
    }

    /// The kit's transport trust these rules stand for (what the pages' relay holds connections to).
    var transportSecurity: TransportSecurity {
        TransportSecurity(
            pinnedPublicKeys: pinnedPublicKeys, certificateAuthorityFile: certificateAuthorityFile, proxy: proxy)
    }

    /// A host as the pin table keys it: lower case, without one trailing dot (`example.com.` is `example.com`).
    static func hostKey(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }
}
