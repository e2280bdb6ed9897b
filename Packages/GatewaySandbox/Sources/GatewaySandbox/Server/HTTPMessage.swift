import EGWWire

/// One HTTP request as the sandbox's handlers see it: fully read, body capped.
struct HTTPRequest: Sendable {
    var method: String
    /// The path as libmicrohttpd decoded it, without the query string.
    var path: String
    /// Query arguments in order, already percent-decoded.
    var query: [(name: String, value: String)]
    /// Header fields with lower-cased names; repeated fields joined with ", ".
    var headers: [String: String]
    /// The body, at most the server's body limit.
    var body: [UInt8]
    /// True when the body was larger than the limit (the rest was discarded).
    var bodyExceededLimit: Bool

    init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:],
        body: [UInt8] = [], bodyExceededLimit: Bool = false
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyExceededLimit = bodyExceededLimit
    }

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    func queryValue(_ name: String) -> String? { query.first(where: { $0.name == name })?.value }
}

/// What a handler answers; `delivery` lets fault injection break the transfer on purpose.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var delivery: Delivery = .complete

    enum Delivery: Sendable, Equatable {
        /// The whole response.
        case complete
        /// Content-Length announces the whole body but only the first `sentBytes` are sent, then the connection closes.
        case truncated(sentBytes: Int)
        /// No response at all: the connection is closed.
        case dropConnection
    }

    func header(_ name: String) -> String? {
        headers.first(where: { $0.name.lowercased() == name.lowercased() })?.value
    }

    static func json(_ status: Int, _ value: JSONValue, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json; charset=utf-8")] + headers,
            body: value.jsonBytes)
    }

    /// The gateway's error body: `{"error": {"code": ..., "message": ...}}`.
    static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        json(
            status,
            JSONObjectBuilder(["error": JSONObjectBuilder(["code": .string(code), "message": .string(message)]).value])
                .value)
    }

    static func html(_ status: Int, _ page: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(page.utf8))
    }

    static func redirect(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 303, headers: [("Location", location), ("Cache-Control", "no-store")], body: [])
    }
}
