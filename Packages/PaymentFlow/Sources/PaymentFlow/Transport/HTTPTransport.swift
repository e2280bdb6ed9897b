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
        /// The URL cannot be sent (bad scheme, no host, ...). A name only: the request counts as never
        /// sent when its ``TransportError/delivery`` says so (``Delivery/neverSent``), as for every kind.
        case invalidURL
        /// `http` where the configuration demands `https` (a name only, as for ``invalidURL``).
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
        /// What came back is not an HTTP response the transport can read: a status line that is not
        /// HTTP/1.x or HTTP/2 (garbage, `HTTP/1.1 099`, `HTTP/1.2`, `HTTP/3`), an HTTP/0.9 answer, a
        /// reply libcurl calls weird. The request was sent: a server (or a box in between) answered it.
        case invalidResponse
        /// Anything else the transport reports.
        case other
    }

    /// What the transport knows of whether any byte of the request left the machine: facts, not a
    /// verdict. The SDK decides from them alone whether the gateway could have acted on a request that
    /// got no answer (CONTRACT.md 4a): only a request these facts prove was never sent is "unreachable";
    /// every other failure of a money-moving request is in doubt, whatever its ``kind`` (an
    /// `.invalidURL` included: a transport that refuses a request before sending it says
    /// ``Delivery/neverSent``).
    ///
    /// A transport that cannot tell leaves a field `nil`, which the SDK reads as "may have been sent".
    public struct Delivery: Sendable, Equatable, CustomStringConvertible {
        /// Whether the request was ever handed to a connection, new or kept, on any attempt (past that
        /// point its bytes may reach the server). `false`: no connection ever carried it (the name did
        /// not resolve, the connect was refused, a fresh connection's TLS handshake failed).
        public var requestStarted: Bool?
        /// Whether an attempt went out on a connection an earlier request had left open. A kept
        /// connection that dies under a request can make libcurl retry on a new connection and report
        /// that connection's error (a refused connect, say) although the first attempt was written.
        public var rodeKeptConnection: Bool?
        /// Body bytes handed to a connection over all attempts.
        public var bodyBytesSent: Int?

        /// Creates the facts.
        public init(requestStarted: Bool?, rodeKeptConnection: Bool?, bodyBytesSent: Int?) {
            self.requestStarted = requestStarted
            self.rodeKeptConnection = rodeKeptConnection
            self.bodyBytesSent = bodyBytesSent
        }

        /// Nothing is known: the request may have been sent.
        public static let unknown = Delivery(requestStarted: nil, rodeKeptConnection: nil, bodyBytesSent: nil)
        /// Provably never sent: no connection ever carried the request.
        public static let neverSent = Delivery(requestStarted: false, rodeKeptConnection: false, bodyBytesSent: 0)

        /// Whether these facts prove that no byte of the request reached a server.
        public var provesNeverSent: Bool {
            requestStarted == false && rodeKeptConnection != true && (bodyBytesSent ?? 0) == 0
        }

        /// `never sent`, `started, kept connection, 312 body bytes`, `unknown`.
        public var description: String {
            if provesNeverSent { return "never sent" }
            guard requestStarted != nil || rodeKeptConnection != nil || bodyBytesSent != nil else { return "unknown" }
            var parts: [String] = []
            if let requestStarted { parts.append(requestStarted ? "started" : "not started") }
            if rodeKeptConnection == true { parts.append("kept connection") }
            if let bodyBytesSent { parts.append("\(bodyBytesSent) body bytes") }
            return parts.joined(separator: ", ")
        }
    }

    /// The failure class.
    public var kind: Kind
    /// A developer-facing explanation (never request bodies or secrets).
    public var message: String
    /// Whether the request may have left the machine (``Delivery/unknown`` unless the transport says).
    public var delivery: Delivery

    /// Creates an error. A transport that knows whether the request left the machine says so in
    /// `delivery`; the default, ``Delivery/unknown``, makes a failed money-moving request in doubt.
    public init(_ kind: Kind, _ message: String, delivery: Delivery = .unknown) {
        self.kind = kind
        self.message = message
        self.delivery = delivery
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

/// A transport that can open a connection ahead of the request that will use it, so that the
/// connection's TCP and TLS round trips overlap other work (a card payment with no cached key opens
/// the card-session host's connection while the key is fetched from the checkout host). A hint: the
/// caller never waits for it, learns nothing from it, and the later request is correct either way.
/// Internal: the libcurl transport and the retrying wrapper conform; a host's own `HTTPTransport`
/// is simply not asked.
protocol ConnectionPreparingTransport: HTTPTransport {
    /// Opens a connection to `url`'s origin for a later request, unless one is open or opening.
    func prepareConnection(to url: URL)
}
