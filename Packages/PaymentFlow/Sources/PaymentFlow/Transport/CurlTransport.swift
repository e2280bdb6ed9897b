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
/// Connections: without a ``CurlConnectionCache`` every request gets its own
/// connection, closed afterwards. With one, a request may go on a connection an
/// earlier request to the same origin left open (within the cache's idle
/// window), with HTTP/2 when the server offers it, and a new connection resumes
/// an earlier TLS session when the server allows — but only a request that is
/// harmless to send twice: a `GET` or `HEAD`, or a request that carries a
/// non-empty `Idempotency-Key` header, so that even a copy that reached the
/// gateway on a connection that then died is one the gateway recognises
/// (GATEWAY.md). Any other request (a `POST` without the key, such as a
/// browser's form submission) gets a fresh connection that is closed afterwards.
/// libcurl itself would resend a request whose reused connection turns out to be
/// dead before any answer; a request with a body on a reused connection is given
/// a body libcurl can read only once, so it fails (`.reset`) instead, and which
/// requests are sent again stays the SDK's decision alone (a `GET` may still be
/// resent by libcurl: reads are harmless).
///
/// With a cache, the SDK may also open a connection before the request that
/// needs it (a card payment with no cached key opens the card-session host's
/// connection while the key is fetched from the checkout host). That connection
/// is opened with `OPTIONS *` (RFC 9110 9.3.7: a question about the server, not
/// about any resource; it carries no credential and nothing of the payment),
/// kept only if its answer leaves it open, and a request to that origin that
/// finds no idle connection waits for it, at most the connect timeout.
///
/// Every request carries a `User-Agent` (``Options/userAgent`` unless the
/// request sets one) and an `X-Request-Id` (a fresh UUID unless the request
/// sets one). The transport never logs, and its errors never contain a
/// request or response body.
///
/// Threading: `send` returns at once; the transfer runs on a small shared
/// pool of worker threads (16 at most, process-wide) and `completion` is
/// called exactly once, on a worker thread, never inside `send`. The total
/// timeout runs from the `send` call, time queued for a worker included, on
/// ``SuspendAwareClock``: time the machine spends suspended counts, and a
/// transfer whose timeout passed during a sleep ends (`.timeout`) within about
/// a second of the resume.
///
/// ```swift
/// let transport = CurlTransport(options: .init(requireHTTPS: true))
/// transport.send(HTTPRequest(method: "GET", url: url)) { result in ... }
/// ```
public struct CurlTransport: HTTPTransport, CancellableTransport, ConnectionPreparingTransport {
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
        /// system store (e.g. a private CA; libcurl's CA directory is switched
        /// off too); `nil` uses the system store.
        /// Verification itself cannot be turned off.
        public var trustedCertificatesPath: String?
        /// Which proxy requests go through. Default ``NetworkProxy/direct``: none, whatever
        /// `http_proxy`, `https_proxy`, `ALL_PROXY` or `no_proxy` in the environment say.
        public var proxy: NetworkProxy
        /// Whether libcurl may log TLS secrets to `$SSLKEYLOGFILE` (debugging only). Default `false`.
        public var dangerouslyWritesTLSKeyLog = false

        /// Creates options; every argument has a safe default.
        public init(
            connectTimeout: TimeInterval = 10,
            defaultTimeout: TimeInterval = 30,
            maxResponseBytes: Int = 4 * 1024 * 1024,
            requireHTTPS: Bool = false,
            pinnedPublicKeys: [String: [String]] = [:],
            userAgent: String = CurlTransport.defaultUserAgent,
            trustedCertificatesPath: String? = nil,
            proxy: NetworkProxy = .direct
        ) {
            self.connectTimeout = connectTimeout
            self.defaultTimeout = defaultTimeout
            self.maxResponseBytes = maxResponseBytes
            self.requireHTTPS = requireHTTPS
            self.pinnedPublicKeys = pinnedPublicKeys
            self.userAgent = userAgent
            self.trustedCertificatesPath = trustedCertificatesPath
            self.proxy = proxy
        }
    }

    /// ``PaymentKit/userAgent`` followed by `libcurl/x.y.z`.
    public static let defaultUserAgent = PaymentKit.userAgent + " " + CurlGlobal.versionText

    /// The options every request of this transport uses.
    public let options: Options
    /// Where connections are kept for reuse; `nil`: every request gets a new connection.
    public let connectionCache: CurlConnectionCache?

    /// Creates a transport; with `connectionCache`, requests that are harmless to replay reuse
    /// its connections (see the type's documentation). Transports given the same cache share it.
    public init(options: Options = Options(), connectionCache: CurlConnectionCache? = nil) {
        self.options = options
        self.connectionCache = connectionCache
    }

    /// The transport a ``PaymentKit`` with `configuration` uses for its own requests: the same
    /// ``TransportSecurity`` (pins, certificate authorities, proxy), `https` required
    /// outside `.sandbox`, ``Configuration/requestTimeout`` as the default total time (connect at
    /// most 10 s of it), and the SDK's `User-Agent`. A presenter that loads the pages itself (the
    /// HeadlessBrowser package) passes it so pages are fetched as securely as the API calls. It does
    /// not retry: the kit wraps its own idempotent reads in retries, a page load is not retried.
    /// With ``Configuration/reusesConnections`` (the default) it gets a ``CurlConnectionCache`` of
    /// its own, so each call makes a new cache: a kit calls it once, and its connections go with it.
    public init(configuration: Configuration) {
        var options = Options(
            connectTimeout: min(10, configuration.requestTimeout),
            defaultTimeout: configuration.requestTimeout,
            requireHTTPS: !configuration.environment.allowsPlainHTTP,
            pinnedPublicKeys: configuration.transportSecurity.pinnedPublicKeys,
            userAgent: GatewayAPI.userAgent,
            trustedCertificatesPath: configuration.transportSecurity.certificateAuthorityFile,
            proxy: configuration.transportSecurity.proxy)
        options.dangerouslyWritesTLSKeyLog = configuration.transportSecurity.dangerouslyWritesTLSKeyLog
        self.init(options: options, connectionCache: configuration.reusesConnections ? CurlConnectionCache() : nil)
    }

    /// `host` as pins are looked up: lower case, without the trailing dot of a fully qualified name
    /// (`API.Example.com.` and `api.example.com` are one host to the resolver, so to the pins too).
    static func normalizedHost(_ host: String) -> String {
        var name = host.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// Sends `request` on a worker thread; see the type's documentation for
    /// the guarantees. Failures are `TransportError`s: `.invalidURL` (not
    /// http/https, no host, bad method or header), `.insecureScheme`,
    /// `.connect`, `.tls`, `.pinningFailed`, `.timeout`, `.reset`,
    /// `.responseTooLarge`, `.invalidResponse` (an answer that is not HTTP/1.x
    /// or HTTP/2), `.other`. Each carries what is known of its delivery; the
    /// transport's own refusals before sending are ``TransportError/Delivery/neverSent``
    /// (`perform`'s `failed`, the one place a failure gets its facts).
    public func send(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        send(request, cancellation: nil, completion: completion)
    }

    /// Opens a connection to `url`'s origin on a worker thread and keeps it in the cache for the next
    /// request there, unless the transport has no cache or one is already open or opening. The
    /// attempt is bounded by ``Options/connectTimeout``; its failure is silent (the request then
    /// opens its own connection, as it would have without it).
    func prepareConnection(to url: URL) {
        guard let cache = connectionCache, let host = url.host, !host.isEmpty else { return }
        let origin = CurlConnectionCache.origin(of: url)
        guard cache.beginOpening(origin: origin, now: CurlTransport.uptime()) else { return }
        let options = self.options
        TransferPool.shared.submit {
            defer { cache.finishOpening(origin: origin) }
            CurlTransport.openConnection(to: url, origin: origin, options: options, cache: cache)
        }
    }

    /// `OPTIONS *` on a new handle: a connection the answer leaves open is checked in for `origin`.
    private static func openConnection(
        to url: URL, origin: String, options: Options, cache: CurlConnectionCache
    ) {
        var root = URLComponents()
        root.scheme = url.scheme?.lowercased()
        root.host = url.host
        root.port = url.port
        root.path = "/"
        let timeout = max(0.001, options.connectTimeout)
        guard let rootURL = root.url,
            case .success(var hop) = makeHop(
                HTTPRequest(method: "OPTIONS", url: rootURL, timeout: timeout), options: options, remaining: timeout),
            let handle = CurlEasyHandle(share: cache.share)
        else { return }
        hop.requestTarget = "*"
        hop.reusesConnection = true
        hop.maximumIdleSeconds = Int(cache.maximumIdleTime.rounded(.down))
        hop.maxResponseBytes = min(hop.maxResponseBytes, 64 * 1024)
        guard case .response(let status, let headers, _) = handle.perform(hop) else { return }
        let connection = HTTPResponse(status: status, headers: headers, url: rootURL).header("Connection") ?? ""
        let closing = connection.lowercased().split(separator: ",").contains {
            $0.trimmingCharacters(in: .whitespaces) == "close"
        }
        if !closing { cache.checkin(handle, origin: origin, now: uptime()) }
    }

    /// Seconds on ``SuspendAwareClock``, the clock of the connection cache's idle window (a connection
    /// left idle across a suspend is past it: the server closed it long ago).
    static func uptime() -> TimeInterval { SuspendAwareClock.now() }

    /// `send`, abortable through `cancellation` (a transfer not yet started is not started).
    func send(
        _ request: HTTPRequest, cancellation: TransferCancellation?,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
    ) {
        let options = self.options
        let cache = connectionCache
        // The total timeout counts from here, so time spent queued behind
        // other transfers is part of it (on the boot clock: a suspend counts too).
        let start = SuspendAwareClock.nanoseconds()
        TransferPool.shared.submit {
            completion(
                CurlTransport.perform(
                    request, options: options, connections: cache, start: start, cancellation: cancellation))
        }
    }

    /// Runs `request` to completion on the current thread, following redirects
    /// itself when asked. Blocking: only called on pool threads.
    ///
    /// The total timeout is the transport's own, on `now` (nanoseconds of ``SuspendAwareClock``, from
    /// `start`): libcurl's `CURLOPT_TIMEOUT` runs on its monotonic clock, which stops while the machine
    /// sleeps, so each hop's progress callback also ends the transfer (`.timeout`) once `now` passes the
    /// deadline, within about a second of a resume.
    static func perform(
        _ request: HTTPRequest, options: Options, connections: CurlConnectionCache? = nil,
        start: UInt64 = SuspendAwareClock.nanoseconds(), cancellation: TransferCancellation? = nil,
        now: @escaping @Sendable () -> UInt64 = { SuspendAwareClock.nanoseconds() }
    ) -> Result<HTTPResponse, TransportError> {
        let total = request.timeout.isFinite && request.timeout > 0 ? request.timeout : options.defaultTimeout
        let budget = UInt64(max(0.001, min(total, 86_400)) * 1_000_000_000)
        var current = request
        current.method = request.method.uppercased()
        var redirects = 0
        /// A failure, with what is known of the request's delivery: a hop after a redirect means the
        /// first request was answered, so it left the machine whatever became of the later hop.
        func failed(_ error: TransportError) -> Result<HTTPResponse, TransportError> {
            var error = error
            if redirects > 0 {
                error.delivery.requestStarted = true
            } else if error.delivery == .unknown {
                error.delivery = .neverSent  // failed before libcurl was asked to send anything
            }
            return .failure(error)
        }
        while true {
            if let connections, isHarmlessToReplay(current) {
                // A connection being opened to this origin ahead of time is worth its wait: it is at most
                // as far from ready as one of this request's own would be. Counted in the total time.
                let waited = Double(now() &- start) / 1_000_000_000
                connections.awaitOpening(
                    origin: CurlConnectionCache.origin(of: current.url),
                    timeout: min(Double(budget) / 1_000_000_000 - waited, options.connectTimeout))
            }
            let elapsed = now() &- start
            guard elapsed < budget else {
                return failed(
                    TransportError(
                        .timeout, "\(current.url.host ?? "?"): total timeout expired (queued or between redirects)"))
            }
            let remaining = Double(budget - elapsed) / 1_000_000_000
            var hop: CurlHop
            switch makeHop(current, options: options, remaining: remaining) {
            case .success(let made): hop = made
            case .failure(let error): return failed(error)
            }
            let origin = CurlConnectionCache.origin(of: current.url)
            var kept: CurlEasyHandle?
            if let connections {
                hop.reusesConnection = isHarmlessToReplay(current)
                hop.maximumIdleSeconds = Int(connections.maximumIdleTime.rounded(.down))
                if hop.reusesConnection { kept = connections.checkout(origin: origin, now: uptime()) }
            }
            guard let handle = kept ?? CurlEasyHandle(share: connections?.share) else {
                return failed(TransportError(.other, "libcurl could not create a handle"))
            }
            let outcome = handle.perform(
                hop, cancellation: cancellation, deadline: TransferDeadline(at: start &+ budget, now: now))
            if case .response = outcome, hop.reusesConnection, let connections {
                // Kept only after a complete answer: a failed or cancelled transfer's handle is closed.
                connections.checkin(handle, origin: origin, now: uptime())
            }
            switch outcome {
            case .failure(let error):
                return failed(error)
            case .response(let status, let headers, let body):
                let response = HTTPResponse(status: status, headers: headers, body: body, url: current.url)
                if current.followRedirects,
                    let target = RedirectRule.target(
                        status: status, location: response.header("Location"), base: current.url)
                {
                    redirects += 1
                    guard redirects <= RedirectRule.maxRedirects else {
                        return failed(
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
                pinnedPublicKey: CurlTrust.pinnedPublicKey(for: host, in: options.pinnedPublicKeys),
                userAgent: options.userAgent,
                caBundlePath: options.trustedCertificatesPath,
                proxy: options.proxy,
                honoursKeyLogFile: options.dangerouslyWritesTLSKeyLog
            ))
    }

    /// Whether sending `request` twice does no harm, so it may travel on a reused connection (where
    /// libcurl may resend it): `GET`, `HEAD`, or any request with a non-empty `Idempotency-Key`.
    static func isHarmlessToReplay(_ request: HTTPRequest) -> Bool {
        let method = request.method.uppercased()
        if method == "GET" || method == "HEAD" { return true }
        return request.headers.contains {
            $0.name.caseInsensitiveCompare("Idempotency-Key") == .orderedSame
                && !$0.value.trimmingCharacters(in: .whitespaces).isEmpty
        }
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
