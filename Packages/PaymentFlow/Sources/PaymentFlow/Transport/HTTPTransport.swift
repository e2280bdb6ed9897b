import Foundation

/// One HTTP header, kept as an ordered pair (names compare case-insensitively).
public struct HTTPHeader: Sendable, Equatable {
    /// The header name as sent, e.g. `X-Request-Id`.
    public var name: String
    /// The header value.
    public var value: String

    /// Creates a header.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request the SDK asks its transport to send.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Headers in the order they are sent.
    public var headers: [HTTPHeader]
    /// The body, or `nil` for none.
    public var body: [UInt8]?
    /// The total time allowed for the exchange, in seconds (connect included).
    public var timeout: TimeInterval
    /// Whether 3xx responses are followed by the transport (the SDK's API calls never do).
    public var followRedirects: Bool

    /// Creates a request.
    public init(
        method: String, url: URL, headers: [HTTPHeader] = [], body: [UInt8]? = nil,
        timeout: TimeInterval = 30, followRedirects: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.followRedirects = followRedirects
    }
}

/// What came back.
public struct HTTPResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers in the order received (of the last response when redirects were followed).
    public var headers: [HTTPHeader]
    /// The body bytes.
    public var body: [UInt8]
    /// The URL that produced this response (differs from the request's after redirects).
    public var url: URL

    /// Creates a response (transports and test doubles use this).
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = [], url: URL) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Why a request produced no response.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// The failure classes a caller can switch on.
    public enum Kind: Sendable, Equatable {
        /// The URL cannot be sent (bad scheme, no host, ...).
        case invalidURL
        /// `http` where the configuration demands `https`.
        case insecureScheme
        /// Could not connect (refused, unreachable, DNS).
        case connect
        /// TLS handshake or certificate verification failed.
        case tls
        /// A pinned public key did not match.
        case pinningFailed
        /// The connect or total timeout expired.
        case timeout
        /// The connection closed or reset before a complete response arrived.
        case reset
        /// The response was larger than the configured cap.
        case responseTooLarge
        /// Anything else the transport reports.
        case other
    }

    /// The failure class.
    public var kind: Kind
    /// A developer-facing explanation (never request bodies or secrets).
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kind: message`.
    public var description: String { "\(kind): \(message)" }
}

/// Sends HTTP requests. The SDK's only way to the network, injected so tests
/// can replace it at this seam (end-to-end tests use the real libcurl one).
///
/// Threading: `send` may be called from any thread; `completion` is called
/// exactly once, on any thread, never synchronously inside `send`.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and reports the response or the transport failure.
    func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void)
}

/// A transport whose transfers the SDK can abandon: a payment that ended leaves no request of its own
/// running (and carrying its verification key). Internal: the libcurl transport and the retrying
/// wrapper conform; a host's own `HTTPTransport` is simply not interrupted.
protocol CancellableTransport: HTTPTransport {
    func send(
        _ request: HTTPRequest, cancellation: TransferCancellation?,
        completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void)
}
