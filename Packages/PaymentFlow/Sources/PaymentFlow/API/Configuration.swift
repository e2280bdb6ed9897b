import Dispatch
import Foundation

/// Where the SDK talks to and how it behaves.
///
/// ```swift
/// let configuration = Configuration(
///     apiBaseURL: URL(string: "https://your-backend.example.com"),
///     checkoutAPIBaseURL: URL(string: "https://sandbox-api.example.com"),
///     checkoutBaseURL: URL(string: "https://sandbox-checkout.example.com"),
///     environment: .sandbox
/// )
/// ```
///
/// None of the three URLs is derived from another. In ``Environment-swift.struct/live``
/// every URL must be `https`; plain `http` is accepted only in
/// ``Environment-swift.struct/sandbox``. A configuration that breaks a rule does
/// not fail here: the payment that uses it ends `.failed` with `invalidRequest`
/// (see ``validationError()``).
public struct Configuration: Sendable {
    /// The gateway environment a configuration targets.
    public struct Environment: Sendable, Hashable, CustomStringConvertible {
        /// The gateway's test environment: `http` URLs are accepted (a loopback sandbox, say).
        public static let sandbox = Environment(name: "sandbox", allowsPlainHTTP: true)
        /// Production: every URL must be `https`.
        public static let live = Environment(name: "live", allowsPlainHTTP: false)

        /// `"sandbox"` or `"live"`.
        public let name: String
        /// Whether `http` URLs are accepted.
        public let allowsPlainHTTP: Bool

        /// The name.
        public var description: String { name }
    }

    /// Your backend, for the hosted-checkout status lookup
    /// (`GET {apiBaseURL}/checkout/api/egw/v1/payments/{paymentId}`). Unused by the card flow.
    /// `nil` and no custom resolver: every hosted payment resolves `.unresolved`.
    public var apiBaseURL: URL?
    /// The client-facing checkout API: card sessions and 3-D Secure. Required for card payments
    /// (missing: `.failed`, `invalidRequest`).
    public var checkoutAPIBaseURL: URL?
    /// The checkout page host: serves the card-encryption key and the page the issuer sends the
    /// challenge result back to. Required for card payments (missing: `.failed`, `encryptionKeyUnavailable`).
    public var checkoutBaseURL: URL?
    /// `.sandbox` or `.live`.
    public var environment: Environment

    /// The total time allowed for each HTTP request the SDK makes, in seconds (connect included).
    /// Default 30.
    public var requestTimeout: TimeInterval = 30
    /// How long a custom ``PaymentStatusResolving`` may take to answer before the payment ends
    /// `.unresolved` with `statusLookupFailed`, in seconds. Default 30.
    public var statusResolverTimeout: TimeInterval = 30
    /// How long a 3-D Secure challenge may stay open, in seconds. Default 600 (10 minutes). When it
    /// passes, the SDK dismisses the challenge and asks the gateway whether the buyer answered
    /// (CONTRACT.md section 4): the issuer's answer if there is one, else `.cancelled`.
    public var challengeTimeout: TimeInterval = 600
    /// How long the hosted checkout page may stay open, in seconds. Default 1800 (30 minutes). When it
    /// passes, the SDK dismisses the page and looks the status up (CONTRACT.md section 3): a paid
    /// payment is still `.succeeded`; an unpaid one is `.cancelled`.
    public var hostedPageTimeout: TimeInterval = 1800
    /// How long a ``PaymentOptions/stepGate`` may take to answer one step, in seconds; `nil` waits as
    /// long as it takes (a person stepping through a payment in a shell). Default 600 (10 minutes). A
    /// gate that does not answer in time is treated as one that said cancel: before a money-moving
    /// request that is `.cancelled`; after one, the SDK ends with what the gateway shows.
    public var stepGateTimeout: TimeInterval? = 600
    /// How the SDK's own HTTPS connections are secured beyond the system's certificate check: public-key
    /// pins, a private certificate authority, the proxy. Default ``TransportSecurity/systemTrust``.
    /// Certificate verification itself cannot be turned off.
    public var transportSecurity: TransportSecurity = .systemTrust
    /// Which proxy the SDK's requests and its pages go through: ``NetworkProxy/direct`` (the default:
    /// none, whatever `http_proxy`, `https_proxy`, `ALL_PROXY` or `no_proxy` say),
    /// ``NetworkProxy/environment`` (those variables, as libcurl reads them), or
    /// ``NetworkProxy/url(_:)``. The same value as `transportSecurity.proxy`; a presenter built from
    /// this configuration (WebKitPresenter's `PageTrust(configuration:)`) applies it to its pages too.
    public var proxy: NetworkProxy {
        get { transportSecurity.proxy }
        set { transportSecurity.proxy = newValue }
    }
    /// Whether a `PaymentKit` keeps its HTTPS connections open between requests, for about 15 seconds
    /// after each answer, so that a payment's later requests skip the TCP and TLS handshakes (HTTP/2 when
    /// the server offers it; TLS sessions resumed when it allows). Only requests that are harmless to send
    /// twice travel on a kept connection: reads, and every checkout-API `POST`, which carries its
    /// `Idempotency-Key`. The connections belong to the kit and close when it is released. Default `true`;
    /// `false` opens a new connection for every request.
    public var reusesConnections = true
    /// The lowest level passed to ``logSink``. Default `.info`.
    public var logLevel: LogLevel = .info
    /// Where log lines go; `nil` (the default) logs nothing. Lines never hold card data or secrets.
    public var logSink: PaymentLogSink?
    /// The queue presenter and status-resolver calls are made on and results are handed over from.
    /// Default `.main`. The completion and delegate forms always get their result on the main actor
    /// (from another queue, by a hop to the main queue); the `async` forms get it here. Set another
    /// serial queue only when the host does not run the main queue, and then use the `async` forms.
    public var callbackQueue: DispatchQueue = .main

    /// Creates a configuration. Every URL is optional; see each property for who needs it.
    public init(
        apiBaseURL: URL? = nil, checkoutAPIBaseURL: URL? = nil, checkoutBaseURL: URL? = nil,
        environment: Environment
    ) {
        self.apiBaseURL = apiBaseURL
        self.checkoutAPIBaseURL = checkoutAPIBaseURL
        self.checkoutBaseURL = checkoutBaseURL
        self.environment = environment
    }

    /// The first rule this configuration breaks, as an `invalidRequest` error, or `nil` when it is usable.
    /// Checks the scheme of every URL that is set (`https`, or `http` in `.sandbox` only), that each
    /// has a host, and that the timeouts are positive. Whether a flow's required URLs are present is
    /// checked when a payment starts.
    public func validationError() -> NSError? { configurationProblem()?.nsError }

    func configurationProblem() -> FlowError? {
        let named: [(String, URL?)] = [
            ("apiBaseURL", apiBaseURL), ("checkoutAPIBaseURL", checkoutAPIBaseURL),
            ("checkoutBaseURL", checkoutBaseURL),
        ]
        for (name, url) in named {
            guard let url else { continue }
            if let problem = urlProblem(url, named: name) {
                return FlowError(.invalidRequest, problem, source: "configuration")
            }
        }
        if !(requestTimeout > 0) || !requestTimeout.isFinite {
            return FlowError(
                .invalidRequest, "requestTimeout must be a positive number of seconds", source: "configuration")
        }
        let timeouts: [(String, TimeInterval)] = [
            ("statusResolverTimeout", statusResolverTimeout), ("challengeTimeout", challengeTimeout),
            ("hostedPageTimeout", hostedPageTimeout),
        ]
        if let problem = transportSecurity.proxy.problem {
            return FlowError(.invalidRequest, problem, source: "configuration")
        }
        for (host, pins) in transportSecurity.pinnedPublicKeys {
            if let problem = TransportSecurity.pinProblem(host: host, pins: pins) {
                return FlowError(.invalidRequest, problem, source: "configuration")
            }
        }
        if let stepGateTimeout, !(stepGateTimeout > 0) || !stepGateTimeout.isFinite {
            return FlowError(
                .invalidRequest, "stepGateTimeout must be a positive number of seconds or nil",
                source: "configuration")
        }
        for (name, value) in timeouts where !(value > 0) || !value.isFinite {
            return FlowError(.invalidRequest, "\(name) must be a positive number of seconds", source: "configuration")
        }
        return nil
    }

    /// Why `url` may not be used as an `http(s)` URL in this environment, or `nil`.
    func urlProblem(_ url: URL, named name: String) -> String? {
        let scheme = url.scheme?.lowercased()
        switch scheme {
        case "https": break
        case "http":
            if !environment.allowsPlainHTTP {
                return "\(name) must use https in the \(environment) environment (http is accepted only in sandbox)"
            }
        default:
            return "\(name) must be an http or https URL, not \(scheme.map { "'\($0)'" } ?? "a relative URL")"
        }
        guard let host = url.host, !host.isEmpty else { return "\(name) has no host" }
        return nil
    }
}

/// How the SDK's HTTPS connections are secured, for ``Configuration/transportSecurity``.
///
/// ```swift
/// configuration.transportSecurity = .pinning(["api.gateway.example": ["sha256//BASE64SPKIHASH="]])
/// configuration.transportSecurity = .trusting(certificateAuthorityFile: "/etc/ssl/private-ca.pem")
/// ```
/// Options can grow, so this is a struct with static members, not an enum. None of them weakens
/// verification: certificates are always checked, and pins only narrow what is accepted.
public struct TransportSecurity: Sendable, Equatable {
    /// Public-key pins per host name (case-insensitive), each `"sha256//<base64 SHA-256 of the DER
    /// SubjectPublicKeyInfo>"`; a connection to a pinned host succeeds only when the server's key matches
    /// one of them (else `networkError`). Hosts without an entry are not pinned.
    public var pinnedPublicKeys: [String: [String]]
    /// A PEM file of certificate authorities trusted instead of the system store (libcurl's built-in CA
    /// directory is switched off too, so no system CA is trusted beside it); `nil` for the system's.
    public var certificateAuthorityFile: String?
    /// Which proxy connections go through; default ``NetworkProxy/direct`` (none, whatever the
    /// environment says). Also ``Configuration/proxy``.
    public var proxy: NetworkProxy
    /// Whether libcurl may write this kit's TLS session secrets to the file `$SSLKEYLOGFILE` names, so
    /// a packet capture can be decrypted: for debugging on your own machine only. Default `false`: the
    /// variable is ignored, so whoever can set the app's environment cannot read its traffic. Pages never
    /// write one: WebKitPresenter removes `SSLKEYLOGFILE` from the process environment before WebKit's
    /// network process starts (libcurl has read it by then), and its page relay logs nothing.
    public var dangerouslyWritesTLSKeyLog = false

    /// Creates a value; every argument defaults to the system's trust, no pins, no proxy.
    public init(
        pinnedPublicKeys: [String: [String]] = [:], certificateAuthorityFile: String? = nil,
        proxy: NetworkProxy = .direct
    ) {
        self.pinnedPublicKeys = pinnedPublicKeys
        self.certificateAuthorityFile = certificateAuthorityFile
        self.proxy = proxy
    }

    /// The system's certificate store, no pins, direct connections.
    public static let systemTrust = TransportSecurity()

    /// The system's store, and these public-key pins.
    public static func pinning(_ pins: [String: [String]]) -> TransportSecurity {
        TransportSecurity(pinnedPublicKeys: pins)
    }

    /// Trusts the certificate authorities in this PEM file instead of the system's (a private CA, or the
    /// sandbox's test CA).
    public static func trusting(certificateAuthorityFile path: String) -> TransportSecurity {
        TransportSecurity(certificateAuthorityFile: path)
    }

    /// Why a host's pins cannot be used, or `nil`: each must be `sha256//` and the standard base64 of
    /// exactly 32 bytes (a SHA-256 of the key), and a pinned host needs at least one (an empty list
    /// would pin nothing while looking pinned).
    static func pinProblem(host: String, pins: [String]) -> String? {
        guard !host.isEmpty, !host.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace }) else {
            return "transportSecurity pins a host that is not a host name: '\(host.prefix(60))'"
        }
        guard !pins.isEmpty else { return "transportSecurity pins \(host) to no key" }
        for pin in pins {
            let prefix = "sha256//"
            guard pin.hasPrefix(prefix), let digest = Data(base64Encoded: String(pin.dropFirst(prefix.count))),
                digest.count == 32
            else {
                return "transportSecurity's pin for \(host) is not sha256// and the base64 of 32 bytes"
            }
        }
        return nil
    }

    /// This value, with the proxy environment variables honoured (``proxy`` set to
    /// ``NetworkProxy/environment``).
    public func usingProxyEnvironment() -> TransportSecurity {
        var copy = self
        copy.proxy = .environment
        return copy
    }
}

/// Which proxy the SDK's connections go through, for ``Configuration/proxy``: its own requests
/// (libcurl) and, through a presenter made from the same configuration, the pages it shows (WebKit).
///
/// ```swift
/// configuration.proxy = .environment                                      // the app opts in
/// configuration.proxy = .url(URL(string: "http://proxy.corp.example:3128")!)
/// ```
/// Options can grow, so this is a struct with static members, not an enum. The default is
/// ``direct``: a card payment never goes through a proxy because a variable in the process's
/// environment names one; only a configuration that says so does.
public struct NetworkProxy: Sendable, Hashable, CustomStringConvertible {
    enum Route: Hashable {
        case direct
        case environment
        case url(URL)
    }

    let route: Route

    /// No proxy: every connection goes straight to its host. `http_proxy`, `https_proxy`,
    /// `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY`, `no_proxy` and `NO_PROXY` are ignored. The default.
    public static let direct = NetworkProxy(route: .direct)

    /// The environment's proxy, as libcurl reads it: for an `http` URL `http_proxy` (lower case only),
    /// for an `https` URL `https_proxy` or `HTTPS_PROXY`, else `all_proxy` or `ALL_PROXY`; hosts that
    /// `no_proxy` or `NO_PROXY` list (comma-separated names, each matching its subdomains too; `*`
    /// for every host) go direct. A proxy named without a scheme is an HTTP proxy. Read at each request
    /// (libcurl) and when each page opens (WebKit).
    public static let environment = NetworkProxy(route: .environment)

    /// Every connection through this HTTP proxy (`http://host:port`, or `https://` for TLS to the
    /// proxy; `https` hosts are reached through a `CONNECT` tunnel, so TLS stays end to end), with no
    /// exceptions; the environment is ignored. Any other scheme, or a URL without a host, makes the
    /// configuration invalid (a payment ends `.failed` with `invalidRequest`).
    public static func url(_ url: URL) -> NetworkProxy { NetworkProxy(route: .url(url)) }

    /// The proxy of ``url(_:)``; `nil` for ``direct`` and ``environment``.
    public var proxyURL: URL? {
        if case .url(let url) = route { return url }
        return nil
    }

    /// Whether the environment's variables decide (``environment``).
    public var followsEnvironment: Bool { route == .environment }

    /// `direct`, `environment`, or `url(<scheme>://<host>:<port>)` (never the URL's user or password).
    public var description: String {
        switch route {
        case .direct: return "direct"
        case .environment: return "environment"
        case .url(let url):
            let port = url.port.map { ":\($0)" } ?? ""
            return "url(\(url.scheme ?? "")://\(url.host ?? "")\(port))"
        }
    }

    /// Why this proxy cannot be used, or `nil`.
    var problem: String? {
        guard case .url(let url) = route else { return nil }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return "proxy must be an http or https proxy URL"
        }
        guard let host = url.host, !host.isEmpty else { return "proxy has no host" }
        return nil
    }
}
