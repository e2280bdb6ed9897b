import Foundation
import JWE

/// A loopback payment gateway to pay against: every host of GATEWAY.md on one HTTP server.
///
/// ```swift
/// let sandbox = try Sandbox()                      // 127.0.0.1, ephemeral port, fresh RSA-2048 key
/// let payment = sandbox.createPayment(amount: 1250, currency: "EUR")
/// // point an SDK at sandbox.apiBaseURL, sandbox.checkoutAPIBaseURL, sandbox.checkoutBaseURL
/// sandbox.stop()
/// ```
/// Each host lives under its own path prefix (`/merchant-api`, `/gateway-api`,
/// `/gateway-checkout`, `/acs`, `/sandbox`), so a client that mixes up its base URLs gets
/// `404 NOT_FOUND`. It is serving when `init` returns and until `stop()` (or deinit).
///
/// Threading: every member may be called from any thread. Requests are served on the
/// server's own threads (one per connection).
public final class Sandbox: Sendable {
    /// How to start a sandbox. Every member has a default.
    public struct Configuration: Sendable {
        /// The numeric address to listen on (IPv4 or IPv6). Default `127.0.0.1`.
        public var host: String
        /// The port; 0 (default) picks a free ephemeral port.
        public var port: UInt16
        /// The card-encryption key (at least 2048 bits; a key without `kid` gets its RFC 7638
        /// thumbprint). `nil` (default): a fresh RSA-2048 key is generated at start.
        public var privateKey: RSAPrivateKey?
        /// Seeds card-session and transaction ids and the fault probabilities: a run is replayable from it.
        /// Payment ids and verification keys come from the system's random source, never from the seed:
        /// payment ids differ across fresh sandboxes, and the keys are secrets.
        public var seed: UInt64
        /// The `max-age` in seconds of the key endpoint's `Cache-Control`. Default 300.
        public var keyMaxAge: Int
        /// The largest request body read, in bytes (larger ones get `400 INVALID_REQUEST`). Default 64 KiB.
        public var bodyLimit: Int
        /// The clock used for card expiry. Default: the system clock.
        public var now: @Sendable () -> Date
        /// How injected latency waits (called in slices of at most 20 ms). Default: `Thread.sleep`.
        public var sleep: @Sendable (Duration) -> Void
        /// Called on the serving thread after each request is logged (for live logs). Default `nil`.
        public var requestObserver: (@Sendable (SandboxRequestLogEntry) -> Void)?
        /// HTTPS settings; `nil` (default) serves plain HTTP. See ``Sandbox/TLS``.
        public var tls: TLS?
        /// How the issuer's and the hosted checkout's pages are built. Default `.html`.
        public var pages: SandboxPageDialect = .html

        /// A configuration; unspecified members take their defaults.
        public init(
            host: String = "127.0.0.1", port: UInt16 = 0, privateKey: RSAPrivateKey? = nil, seed: UInt64 = 1,
            keyMaxAge: Int = 300
        ) {
            self.host = host
            self.port = port
            self.privateKey = privateKey
            self.seed = seed
            self.keyMaxAge = keyMaxAge
            self.bodyLimit = 64 << 10
            self.now = { Date() }
            self.sleep = { duration in
                let (seconds, attoseconds) = duration.components
                Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
            }
        }
    }

    private let core: SandboxCore
    private let server: HTTPServer
    private let certificateAuthorityFile: CertificateAuthorityFile?
    /// The bound port (the real one when the configuration asked for 0).
    public let port: UInt16
    /// What a client needs to trust this sandbox when it serves HTTPS; `nil` for plain HTTP.
    public let tlsTrust: SandboxTLSTrust?

    /// Starts serving; returns once the server listens.
    ///
    /// - Throws: `SandboxError` `.bindFailed` when the address cannot be bound,
    ///   `.invalidConfiguration` for a host that is not a numeric address or a bad limit,
    ///   `.keyUnavailable` when no key could be generated or the given one is unusable,
    ///   `.tlsUnavailable` when HTTPS was asked for and cannot be served.
    public convenience init(configuration: Configuration = .init()) throws(SandboxError) {
        try self.init(configuration: configuration, keys: try Self.makeKeys(configuration))
    }

    /// Starts with a given key service (tests inject one).
    init(configuration: Configuration, keys: any CardKeyService) throws(SandboxError) {
        guard configuration.bodyLimit > 0, configuration.keyMaxAge >= 0 else {
            throw SandboxError(.invalidConfiguration, "bodyLimit must be positive and keyMaxAge not negative")
        }
        let settings = SandboxSettings(
            seed: configuration.seed, keyMaxAge: configuration.keyMaxAge, bodyLimit: configuration.bodyLimit,
            now: configuration.now, sleep: configuration.sleep, observer: configuration.requestObserver)
        let core = SandboxCore(settings: settings, keys: keys)
        core.pageDialect.withLock { $0 = configuration.pages }
        // "localhost" is common on command lines; the server itself only takes numeric addresses.
        let host = configuration.host == "localhost" ? "127.0.0.1" : configuration.host
        var served: HTTPServer.TLSSettings?
        var identity: SandboxTLSIdentity?
        if let tls = configuration.tls {
            let hosts = Self.certificateHosts(listeningOn: host)
            let chosen: SandboxTLSIdentity
            if let given = tls.identity {
                chosen = given
            } else {
                chosen = try SandboxTLSIdentity.generate(hosts: hosts)
            }
            identity = chosen
            served = HTTPServer.TLSSettings(
                certificateChainPEM: chosen.certificateChainPEM, privateKeyPEM: chosen.privateKeyPEM,
                priorities: tls.priorities)
        }
        let server = try HTTPServer(
            host: host, port: configuration.port, bodyLimit: configuration.bodyLimit, tls: served,
            handler: { request in core.handle(request) })
        let scheme = served == nil ? "http" : "https"
        core.origin = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(server.port)"
        var file: CertificateAuthorityFile?
        if let identity, let tls = configuration.tls {
            do throws(SandboxError) {
                file = try CertificateAuthorityFile(
                    pem: identity.certificateAuthorityPEM, path: tls.certificateAuthorityFile)
            } catch {
                server.stop()
                throw error
            }
        }
        self.core = core
        self.server = server
        self.port = server.port
        self.certificateAuthorityFile = file
        self.tlsTrust = identity.flatMap { identity in
            file.map {
                SandboxTLSTrust(
                    certificateAuthorityPEM: identity.certificateAuthorityPEM, certificateAuthorityFile: $0.path,
                    certificateAuthoritySHA256: identity.certificateAuthoritySHA256,
                    certificateAuthorityPublicKeyPin: identity.certificateAuthorityPublicKeyPin,
                    serverPublicKeyPin: identity.serverPublicKeyPin)
            }
        }
    }

    /// The names a generated certificate covers: the loopback names, plus the listening
    /// address when it is a specific one (not a wildcard).
    static func certificateHosts(listeningOn host: String) -> [String] {
        var hosts = SandboxTLSIdentity.defaultHosts
        if !hosts.contains(host), host != "0.0.0.0", host != "::" { hosts.insert(host, at: 0) }
        return hosts
    }

    /// Stops serving and releases the port; idempotent. Waits for requests in progress
    /// (injected latency is cut short); concurrent callers all return once the server is down.
    /// Do not call it from a `requestObserver` or anything else running on a request's thread:
    /// it would wait for that thread itself.
    public func stop() {
        core.beginStopping()
        server.stop()
        certificateAuthorityFile?.remove()
    }

    deinit { stop() }

    /// Puts `port` instead of the listening port into every URL the sandbox hands out from now
    /// on (its base URLs, `checkoutRedirect`, default `shopRedirectUrl`, form actions, `acsUrl`),
    /// so that clients reach it through something in front of it, such as a `LatencyProxy`
    /// forwarding to ``port``. The sandbox still listens on ``port`` only.
    public func advertise(port advertised: UInt16) {
        let origin = core.origin
        guard let colon = origin.lastIndex(of: ":") else { return }
        core.origin = origin[..<colon] + ":\(advertised)"
    }

    /// The merchant backend's status API: `http://127.0.0.1:P/merchant-api` (`https` when
    /// serving HTTPS, as are the other base URLs).
    public var apiBaseURL: URL { Self.url(core.apiBase) }
    /// The client-facing checkout API (card sessions): `http://127.0.0.1:P/gateway-api`.
    public var checkoutAPIBaseURL: URL { Self.url(core.checkoutAPIBase) }
    /// The checkout page host (key, hosted page, 3-D Secure notification): `http://127.0.0.1:P/gateway-checkout`.
    public var checkoutBaseURL: URL { Self.url(core.checkoutBase) }
    /// The merchant backend and control endpoints live under `/sandbox/` here: `http://127.0.0.1:P`.
    public var merchantBaseURL: URL { Self.url(core.origin) }
    /// What the control endpoints over HTTP (`/sandbox/faults`, `/sandbox/log`, `/sandbox/rotate-key`) and the
    /// payment read `GET /sandbox/payments/{id}` (it shows the verification key) require in an
    /// `X-Sandbox-Token` header (else 401 `SANDBOX_TOKEN_REQUIRED`): 32 hex digits from the system's
    /// random source, new for every sandbox. `egw-sandbox` prints it in its banner (`controlToken=`).
    /// Creating a payment, the gateway's endpoints and this object's own methods need none.
    public var controlToken: String { core.controlToken }

    /// Creates a payment as the merchant backend would (`POST /sandbox/payments` does the same).
    ///
    /// `shopRedirectURL` defaults to the sandbox's own `/sandbox/return/{paymentId}` page.
    public func createPayment(
        amount: Int = 1250, currency: String = "EUR", orderNumber: String? = nil, shopRedirectURL: URL? = nil
    ) -> SandboxPayment {
        let record = core.makePayment(
            amount: amount, currency: currency, orderNumber: orderNumber,
            shopRedirectURL: shopRedirectURL?.absoluteString)
        return SandboxPayment(
            paymentId: record.id, verificationKey: record.verificationKey,
            checkoutURL: Self.url(core.checkoutURL(for: record.id)), shopRedirectURL: Self.url(record.shopRedirectURL),
            amount: record.amount, currency: record.currency, orderNumber: record.orderNumber)
    }

    /// The payment's platform status, as the gateway records it: the truth a test compares an
    /// SDK outcome with. `nil` for an unknown id.
    ///
    /// `SETTLED` means money moved: the hosted page's `pay`, or a card session that reached
    /// `COMPLETED`. `FAILED`: the hosted page's `decline`, or a card session that reached
    /// `FAILED` (no money moved; a later card session may still settle the payment).
    /// `CANCELLED`, `ABANDONED`, `SENT_FOR_PROCESSING`: the hosted page's other choices.
    /// `INITIALIZED`: nothing decided yet (a session waiting for authentication or a challenge
    /// leaves it there). A payment `SETTLED` or `SENT_FOR_PROCESSING` refuses further card
    /// sessions (`409 PAYMENT_ALREADY_PROCESSED`), and a session completing after another paid
    /// ends `FAILED` (`PAYMENT_ALREADY_PROCESSED`) without changing the status.
    public func paymentStatus(_ paymentId: String) -> String? {
        core.state.withLock { $0.payments[paymentId]?.status }
    }

    /// The card sessions of a payment, in the order they were created; empty for an unknown
    /// payment or one without card sessions.
    ///
    /// Read-only, for tests: for example, to check that a request sent again with the same
    /// `Idempotency-Key` did not create a second session. Carries the last four digits only.
    public func cardSessions(paymentId: String) -> [SandboxCardSessionSummary] {
        core.cardSessions(of: paymentId).map {
            SandboxCardSessionSummary(sessionId: $0.id, status: $0.status, last4: $0.last4)
        }
    }

    /// How the issuer's and the hosted checkout's pages are built from now on (pages already served
    /// keep theirs). Thread-safe.
    public var pages: SandboxPageDialect {
        get { core.pageDialect.withLock { $0 } }
        set { core.pageDialect.withLock { $0 = newValue } }
    }

    /// Adds a fault (see `SandboxFault` for the order faults are checked in).
    public func inject(_ fault: SandboxFault) { _ = core.inject(fault) }

    /// Removes every injected fault.
    public func clearFaults() { core.state.withLock { $0.faults.clear() } }

    /// The faults still active, in the order they are checked.
    public var activeFaults: [SandboxFault] { core.state.withLock { $0.faults.active.map(\.fault) } }

    /// Replaces the card-encryption key now: the key endpoint serves the new one and a card
    /// session encrypted to the old `kid` gets `422 UNKNOWN_KEY`.
    public func rotateKey() { core.keys.rotate() }

    /// The `kid` of the key the key endpoint serves now.
    public var currentKeyID: String { core.keys.currentKid }

    /// Every request answered so far (the last 10,000), oldest first. No bodies, no card data.
    public var requestLog: [SandboxRequestLogEntry] { core.state.withLock { $0.log.entries } }

    /// Empties the request log (the sequence numbers keep counting).
    public func clearRequestLog() { core.state.withLock { $0.log.clear() } }

    /// The test cards and their behaviour (GATEWAY.md, "Test cards").
    public static let testCards: [SandboxTestCard] = SandboxTestCard.all

    /// The code that passes the simulated issuer's challenge.
    public static let challengeCode = CardSession.challengeCode

    private static func url(_ text: String) -> URL {
        // The sandbox builds these from a numeric host and a port: they always parse.
        URL(string: text) ?? URL(fileURLWithPath: "/")
    }
}

/// A payment the sandbox's merchant backend created: what an app receives from its backend.
public struct SandboxPayment: Sendable, Equatable {
    /// The platform's payment id.
    public let paymentId: String
    /// The secret the client sends as `Obp-Verification-Key`.
    public let verificationKey: String
    /// `_links.checkoutRedirect.href`: the hosted checkout page.
    public let checkoutURL: URL
    /// Where the hosted page sends the buyer back (`shopRedirectUrl`).
    public let shopRedirectURL: URL
    /// Minor units (1250 is 12.50).
    public let amount: Int
    /// ISO 4217 code.
    public let currency: String
    /// The order number the backend sent (or the sandbox made up).
    public let orderNumber: String
}

/// A card session as `Sandbox.cardSessions(paymentId:)` shows it: never more of the card than
/// its last four digits.
public struct SandboxCardSessionSummary: Sendable, Equatable, Identifiable, CustomStringConvertible {
    /// The session id (`cs_...`), as the card-session endpoints answer it.
    public let sessionId: String
    /// The wire status: `AUTHENTICATION_REQUIRED`, `CHALLENGE_REQUIRED`, `COMPLETED` or `FAILED`.
    public let status: String
    /// The last four digits of the card number.
    public let last4: String

    /// The session id.
    public var id: String { sessionId }

    /// `cs_... COMPLETED •••• 1111`.
    public var description: String { "\(sessionId) \(status) •••• \(last4)" }
}
