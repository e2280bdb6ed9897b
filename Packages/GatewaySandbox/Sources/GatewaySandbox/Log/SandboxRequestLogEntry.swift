import EGWWire

/// One request the sandbox answered (or dropped), for tests and the REPL to read.
///
/// Holds no body: card data, encrypted or not, never enters the log.
public struct SandboxRequestLogEntry: Sendable, Equatable, CustomStringConvertible {
    /// 1 for the first request the sandbox logged, then counting up.
    public let sequence: Int
    /// The HTTP method.
    public let method: String
    /// The path, without the query string.
    public let path: String
    /// The endpoint, or `nil` for the sandbox's control endpoints and unknown paths.
    public let endpoint: SandboxEndpoint?
    /// The status sent, or `nil` when the connection was dropped without a response.
    public let status: Int?
    /// From the end of reading the request to the response being handed to the server,
    /// injected latency included.
    public let duration: Duration
    /// The names of the faults that fired on this request, in order.
    public let faults: [String]
    /// The request's `X-Request-Id` header, if it had one.
    public let requestId: String?
    /// The request's `User-Agent` header, if it had one: which SDK build called (the SDK's requests
    /// carry `PaymentKit.userAgent`). A header, never a body: it holds no card data.
    public let userAgent: String?
    /// True when the answer was the one stored for the request's `Idempotency-Key`, sent again
    /// (with `Idempotent-Replayed: true`) without handling the request.
    public let replayed: Bool
    /// The `threeDSCompInd` an authentication request carried (`Y`, `N`, `U`), else `nil`. The method's
    /// data and the browser data are never logged.
    public let threeDSCompInd: String?

    /// `POST /path -> 201 (12 ms) [faults]`, with ` replayed` after the status for a replayed answer.
    public var description: String {
        let shown = (status.map(String.init) ?? "dropped") + (replayed ? " replayed" : "")
        let extra = faults.isEmpty ? "" : " [\(faults.joined(separator: ", "))]"
        let compInd = threeDSCompInd.map { " threeDSCompInd \($0)" } ?? ""
        return "\(method) \(path)\(compInd) -> \(shown) (\(SandboxFault.Kind.milliseconds(duration)) ms)\(extra)"
    }

    var json: JSONValue {
        JSONObjectBuilder([
            "sequence": .int(sequence), "method": .string(method), "path": .string(path),
            "endpoint": endpoint.map { .string($0.rawValue) } ?? .null,
            "status": status.map { .int($0) } ?? .null,
            "durationMs": .int(Int(SandboxFault.Kind.milliseconds(duration))),
            "faults": .array(faults.map { .string($0) }),
            "requestId": requestId.map { .string($0) } ?? .null,
            "userAgent": userAgent.map { .string($0) } ?? .null,
            "replayed": .bool(replayed),
            "threeDSCompInd": threeDSCompInd.map { .string($0) } ?? .null,
        ]).value
    }
}

/// The last `capacity` log entries.
struct RequestLog: Sendable {
    private(set) var entries: [SandboxRequestLogEntry] = []
    private var sequence = 0
    let capacity = 10_000

    @discardableResult
    mutating func append(
        method: String, path: String, endpoint: SandboxEndpoint?, status: Int?, duration: Duration, faults: [String],
        requestId: String?, userAgent: String? = nil, replayed: Bool = false, threeDSCompInd: String? = nil
    ) -> SandboxRequestLogEntry {
        sequence += 1
        let entry = SandboxRequestLogEntry(
            sequence: sequence, method: method, path: path, endpoint: endpoint, status: status, duration: duration,
            faults: faults, requestId: requestId, userAgent: userAgent, replayed: replayed,
            threeDSCompInd: threeDSCompInd)
        entries.append(entry)
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        return entry
    }

    mutating func clear() { entries.removeAll() }
}
