import Foundation

/// The SDK's HTTP transport over the system libcurl.
///
/// Every request is verified TLS (peer and host name, TLS 1.2 or later, never
/// switched off), restricted to `http`/`https` (only `https` when
/// ``Options/requireHTTPS`` is set), bounded by a connect timeout and a total
/// timeout, and capped in size. Redirects are followed only when
/// `HTTPRequest.followRedirects` is set: at most 10, re-checking the scheme,
/// pinning and remaining time on every hop, and dropping credential headers
/// when a hop leaves the origin.
///
/// Each request gets its own connection (no keep-alive reuse): libcurl
/// silently resends a request, POSTs included, when a reused connection turns
/// out to be dead, and a payment request must never be replayed behind the
/// caller's back.
///
/// Every request carries a `User-Agent` (``Options/userAgent`` unless the
/// request sets one) and an `X-Request-Id` (a fresh UUID unless the request
/// sets one). The transport never logs, and its errors never contain a
/// request or response body.
///
/// Threading: `send` returns at once; the transfer runs on a small shared
/// pool of worker threads (16 at most, process-wide) and `completion` is
/// called exactly once, on a worker thread, never inside `send`. The total
/// timeout runs from the `send` call, time queued for a worker included.
///
/// ```swift
/// let transport = CurlTransport(options: .init(requireHTTPS: true))
/// transport.send(HTTPRequest(method: "GET", url: url)) { result in ... }
/// ```
public struct CurlTransport: HTTPTransport, CancellableTransport {
    /// How a `CurlTransport` sends. All fields have safe defaults.
    public struct Options: Sendable {
        /// The longest wait for a connection (TCP and TLS), in seconds. Default 10.
        public var connectTimeout: TimeInterval
        /// The total time for a request whose own `timeout` is not a positive
        /// number, in seconds. Default 30. A request's positive `timeout` wins.
        public var defaultTimeout: TimeInterval
        /// The largest response body accepted, in bytes; a larger response is
        /// abandoned mid-transfer and fails with `.responseTooLarge`. Default 4 MiB.
        public var maxResponseBytes: Int
        /// When `true`, `http` URLs (including redirect targets) fail with
        /// `.insecureScheme` before any connection. Set it for `.live`.
        public var requireHTTPS: Bool
        /// Public-key pins per host name (case-insensitive): each entry is
        /// `"sha256//<base64 SHA-256 of the DER SubjectPublicKeyInfo>"`; the
        /// connection succeeds when the server key matches any of the host's
        /// entries, and fails with `.pinningFailed` otherwise. Hosts without
        /// an entry are not pinned (certificates are still verified).
        public var pinnedPublicKeys: [String: [String]]
        /// The `User-Agent` sent when the request does not set one.
        public var userAgent: String
        /// A PEM file of certificate authorities to trust instead of the
        /// system store (e.g. a private CA); `nil` uses the system store.
        /// Verification itself cannot be turned off.
        public var trustedCertificatesPath: String?
        /// Whether the `http_proxy`/`https_proxy`/`no_proxy` environment
        /// variables apply. Default `false`: connections go direct.
        public var usesProxyEnvironment: Bool

        /// Creates options; every argument has a safe default.
        public init(
            connectTimeout: TimeInterval = 10,
            defaultTimeout: TimeInterval = 30,
            maxResponseBytes: Int = 4 * 1024 * 1024,
            requireHTTPS: Bool = false,
            pinnedPublicKeys: [String: [String]] = [:],
            userAgent: String = CurlTransport.defaultUserAgent,
            trustedCertificatesPath: String? = nil,
            usesProxyEnvironment: Bool = false
        ) {
            self.connectTimeout = connectTimeout
            self.defaultTimeout = defaultTimeout
            self.maxResponseBytes = maxResponseBytes
            self.requireHTTPS = requireHTTPS
            self.pinnedPublicKeys = pinnedPublicKeys
            self.userAgent = userAgent
            self.trustedCertificatesPath = trustedCertificatesPath
            self.usesProxyEnvironment = usesProxyEnvironment
        }
    }

    /// `EGWPay-Linux/1.0 libcurl/x.y.z`.
    public static let defaultUserAgent = "EGWPay-Linux/1.0 " + CurlGlobal.versionText

    /// The options every request of this transport uses.
    public let options: Options

    /// Creates a transport.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// The transport a ``PaymentKit`` with `configuration` uses for its own requests: the same
    /// ``TransportSecurity`` (pins, certificate authorities, proxy environment), `https` required
    /// outside `.sandbox`, ``Configuration/requestTimeout`` as the default total time (connect at
    /// most 10 s of it), and the SDK's `User-Agent`. A presenter that loads the pages itself (the
    /// HeadlessBrowser package) passes it so pages are fetched as securely as the API calls. It does
    /// not retry: the kit wraps its own idempotent reads in retries, a page load is not retried.
    public init(configuration: Configuration) {
        self.init(
            options: Options(
                connectTimeout: min(10, configuration.requestTimeout),
                defaultTimeout: configuration.requestTimeout,
                requireHTTPS: !configuration.environment.allowsPlainHTTP,
                pinnedPublicKeys: configuration.transportSecurity.pinnedPublicKeys,
                userAgent: GatewayAPI.userAgent,
                trustedCertificatesPath: configuration.transportSecurity.certificateAuthorityFile,
                usesProxyEnvironment: configuration.transportSecurity.usesProxyEnvironment))
    }

    /// Sends `request` on a worker thread; see the type's documentation for
    /// the guarantees. Failures are `TransportError`s: `.invalidURL` (not
    /// http/https, no host, bad method or header), `.insecureScheme`,
    /// `.connect`, `.tls`, `.pinningFailed`, `.timeout`, `.reset`,
    /// `.responseTooLarge`, `.other`.
    public func send(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        send(request, cancellation: nil, completion: completion)
    }

    /// `send`, abortable through `cancellation` (a transfer not yet started is not started).
    func send(
        _ request: HTTPRequest, cancellation: TransferCancellation?,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        let options = self.options
        // The total timeout counts from here, so time spent queued behind
        // other transfers is part of it.
        let start = DispatchTime.now().uptimeNanoseconds
        TransferPool.shared.submit {
            completion(CurlTransport.perform(request, options: options, start: start, cancellation: cancellation))
        }
    }

    /// Runs `request` to completion on the current thread, following redirects
    /// itself when asked. Blocking: only called on pool threads.
    static func perform(
        _ request: HTTPRequest, options: Options, start: UInt64 = DispatchTime.now().uptimeNanoseconds,
        cancellation: TransferCancellation? = nil
    ) -> Result<HTTPResponse, TransportError> {
        let total = request.timeout.isFinite && request.timeout > 0 ? request.timeout : options.defaultTimeout
        let budget = UInt64(max(0.001, min(total, 86_400)) * 1_000_000_000)
        var current = request
        current.method = request.method.uppercased()
        var redirects = 0
        while true {
            let elapsed = DispatchTime.now().uptimeNanoseconds &- start
            guard elapsed < budget else {
                return .failure(
                    TransportError(
                        .timeout, "\(current.url.host ?? "?"): total timeout expired (queued or between redirects)"))
            }
            let remaining = Double(budget - elapsed) / 1_000_000_000
            let hop: CurlHop
            switch makeHop(current, options: options, remaining: remaining) {
            case .success(let made): hop = made
            case .failure(let error): return .failure(error)
            }
            guard let handle = CurlEasyHandle() else {
                return .failure(TransportError(.other, "libcurl could not create a handle"))
            }
            switch handle.perform(hop, cancellation: cancellation) {
            case .failure(let error):
                return .failure(error)
            case .response(let status, let headers, let body):
                let response = HTTPResponse(status: status, headers: headers, body: body, url: current.url)
                if current.followRedirects,
                    let target = RedirectRule.target(
                        status: status, location: response.header("Location"), base: current.url)
                {
                    redirects += 1
                    guard redirects <= RedirectRule.maxRedirects else {
                        return .failure(
                            TransportError(.other, "\(hop.host): more than \(RedirectRule.maxRedirects) redirects"))
                    }
                    current = RedirectRule.redirected(current, status: status, to: target)
                    continue
                }
                return .success(response)
            }
        }
    }

    /// Validates one hop and turns it into libcurl's terms.
    static func makeHop(
        _ request: HTTPRequest, options: Options, remaining: TimeInterval
    ) -> Result<CurlHop, TransportError> {
        let url = request.url.absoluteURL
        let scheme = url.scheme?.lowercased() ?? ""
        guard let host = url.host, !host.isEmpty else {
            return .failure(TransportError(.invalidURL, "the URL has no host"))
        }
        guard scheme == "http" || scheme == "https" else {
            return .failure(TransportError(.invalidURL, "\(host): unsupported scheme '\(scheme)'"))
        }
        if options.requireHTTPS && scheme != "https" {
            return .failure(TransportError(.insecureScheme, "\(host): http is not allowed, https is required"))
        }
        let text = url.absoluteString
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            return .failure(TransportError(.invalidURL, "\(host): the URL contains spaces or control characters"))
        }
        guard isToken(request.method) else {
            return .failure(TransportError(.invalidURL, "\(host): invalid method"))
        }
        var lines: [String] = []
        var hasRequestID = false
        var hasExpect = false
        for header in request.headers {
            guard isToken(header.name),
                !header.value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
            else {
                return .failure(TransportError(.invalidURL, "\(host): invalid header '\(header.name.prefix(40))'"))
            }
            let lower = header.name.lowercased()
            if lower == "x-request-id" { hasRequestID = true }
            if lower == "expect" { hasExpect = true }
            let value = header.value.trimmingCharacters(in: .whitespaces)
            // libcurl: "Name:" removes a header, "Name;" sends it empty.
            lines.append(value.isEmpty ? "\(header.name);" : "\(header.name): \(value)")
        }
        if !hasRequestID {
            lines.append("X-Request-Id: \(UUID().uuidString.lowercased())")
        }
        if !hasExpect {
            // No `Expect: 100-continue` round trip for larger bodies.
            lines.append("Expect:")
        }
        let pins = options.pinnedPublicKeys.first { $0.key.caseInsensitiveCompare(host) == .orderedSame }?.value
        let totalMilliseconds = max(1, Int((remaining * 1000).rounded(.up)))
        // Capped in floating point first: an infinite or huge connect timeout means "the total
        // timeout decides", and converting it to Int directly would trap.
        let connectMilliseconds = max(
            1, Int(min(Double(totalMilliseconds), (max(0.001, options.connectTimeout) * 1000).rounded(.up))))
        return .success(
            CurlHop(
                method: request.method,
                url: text,
                host: host,
                headerLines: lines,
                body: request.body,
                connectTimeoutMilliseconds: connectMilliseconds,
                totalTimeoutMilliseconds: totalMilliseconds,
                maxResponseBytes: max(0, options.maxResponseBytes),
                protocols: options.requireHTTPS ? "https" : "http,https",
                pinnedPublicKey: pins.map { $0.isEmpty ? "sha256//" : $0.joined(separator: ";") },
                userAgent: options.userAgent,
                caBundlePath: options.trustedCertificatesPath,
                usesProxyEnvironment: options.usesProxyEnvironment
            ))
    }

    /// RFC 9110 `token`: the characters allowed in methods and header names.
    static func isToken(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        return text.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9": return true
            case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": return true
            default: return false
            }
        }
    }
}
