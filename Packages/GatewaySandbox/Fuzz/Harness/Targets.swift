import EGWWire
import Foundation
import FuzzSupport
import JWE
import Synchronization

@testable import GatewaySandbox

/// GatewaySandbox's fuzz target: whole request sequences through the gateway's pipeline (routing,
/// fault injection, idempotency, every endpoint's form, JSON and path parsing), without sockets.
enum GatewaySandboxFuzz {
    static let targets: [FuzzTarget] = [FuzzTarget("sandbox-requests", check: checkRequests)]

    /// `EGW_FUZZ_TRACE=1` prints each request and answer while replaying (for writing seeds).
    static let trace = ProcessInfo.processInfo.environment["EGW_FUZZ_TRACE"] != nil

    /// The key the sandbox serves (rotation keeps it: a new 2048-bit key per input would be all the fuzzer did).
    static let keys = FixedKeys(key: try! RSAPrivateKey.generate(bits: 2048, kid: "fuzz"))

    /// The input is requests separated by a line `===`. Each is `METHOD PATH[?QUERY]`, header lines
    /// `Name: value`, an empty line and the body. In a body or path, `@@1@@` stands for the newest id
    /// a JSON answer carried (`id`, `paymentId`, `sessionId`, `creq`), `@@2@@` for the one before, and
    /// `@@JWE:...@@` for the card JSON `...` encrypted to the served key. For every answer: a status
    /// of 100 to 599; a JSON body that is strict JSON, an error status's JSON with a string `code` and
    /// `message`; and no card number that was sent encrypted shows in any answer or the request log
    /// (unless a request also carried it in plain text, e.g. in a path a 404 or the log names).
    static func checkRequests(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        var settings = SandboxSettings(
            seed: 7, keyMaxAge: 300, bodyLimit: 16 * 1024, now: { Date(timeIntervalSince1970: 1_800_000_000) },
            sleep: { _ in })
        // Seeded secrets (verification keys, the control token), so an input replays exactly.
        let secretSource = SeededSecrets()
        settings.secretBytes = { secretSource.bytes($0) }
        let core = SandboxCore(settings: settings, keys: keys)
        core.origin = "http://127.0.0.1:8080"
        core.beginStopping()  // injected latency returns at once: a fault asking for hours costs nothing
        var ids: [String] = []
        var secrets: [String] = []
        var requestTexts: [String] = []
        let text = String(decoding: input, as: UTF8.self)
        for chunk in text.components(separatedBy: "\n===\n").prefix(12) {
            let requestText = substitute(chunk, ids: ids, secrets: &secrets)
            let request = parse(requestText, controlToken: core.controlToken)
            // A number a request carried in plain text (in its path, say) may come back: in that request's
            // 404, or in GET /sandbox/log, which shows every path.
            requestTexts.append(requestText)
            let echoable = secrets.filter { secret in requestTexts.contains { $0.contains(secret) } }
            let response = core.handle(request)
            if trace {
                print(
                    "\(request.method) \(request.path) -> \(response.status) \(String(decoding: response.body.prefix(300), as: UTF8.self))"
                )
            }
            try fuzzRequire((100...599).contains(response.status), "status \(response.status) is not HTTP")
            let contentType = response.header("Content-Type") ?? ""
            if contentType.hasPrefix("application/json") {
                guard let json = try? StrictJSONParser.parse(response.body) else {
                    throw FuzzViolation("a JSON answer (\(response.status)) is not strict JSON")
                }
                if response.status >= 400 {
                    let error = json[member: "error"]
                    try fuzzRequire(
                        error?[member: "code"]?.stringValue != nil && error?[member: "message"]?.stringValue != nil,
                        "an error answer has no string code and message")
                }
                collectIds(json, into: &ids)
            }
            let shown = String(decoding: response.body, as: UTF8.self) + "\(response.headers)"
            let isTestCardList = request.path == "/sandbox/cards"
            for secret in secrets where !isTestCardList && !echoable.contains(secret) {
                try fuzzRequire(!shown.contains(secret), "an answer shows a card number that was sent encrypted")
            }
        }
        let log = core.state.withLock { $0.log.entries.map(\.description).joined(separator: "\n") }
        // The log may show what any request of the sequence carried in plain text, before or after the
        // number was also sent encrypted.
        for secret in secrets where !requestTexts.contains(where: { $0.contains(secret) }) {
            try fuzzRequire(!log.contains(secret), "the request log shows a card number that was sent encrypted")
        }
    }

    /// `@@n@@` ids and `@@JWE:json@@` tokens replaced; the card numbers inside the tokens noted.
    private static func substitute(_ chunk: String, ids: [String], secrets: inout [String]) -> String {
        var result = chunk
        for (index, id) in ids.reversed().prefix(2).enumerated() {
            result = result.replacingOccurrences(of: "@@\(index + 1)@@", with: id)
        }
        while let start = result.range(of: "@@JWE:"),
            let end = result.range(of: "@@", range: start.upperBound..<result.endIndex)
        {
            let plaintext = String(result[start.upperBound..<end.lowerBound])
            if let number = (try? StrictJSONParser.parse(Array(plaintext.utf8)))?[member: "cardNumber"]?.stringValue,
                number.count >= 12
            {
                secrets.append(number)
            }
            let token = (try? JWEEncrypter(recipient: keys.key.publicKey).encrypt(Array(plaintext.utf8))) ?? ""
            result.replaceSubrange(start.lowerBound..<end.upperBound, with: token)
        }
        return result
    }

    /// One request from its text form; the query and the path are decoded as libmicrohttpd would. A request
    /// that names no `X-Sandbox-Token` gets `controlToken`, so the control endpoints are reached as an operator
    /// reaches them; one that names its own (a wrong one, say) keeps it.
    private static func parse(_ chunk: String, controlToken: String) -> HTTPRequest {
        let (head, body) =
            chunk.range(of: "\n\n").map { (String(chunk[..<$0.lowerBound]), String(chunk[$0.upperBound...])) }
            ?? (chunk, "")
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.isEmpty ? "" : lines.removeFirst()
        let parts = requestLine.split(separator: " ", maxSplits: 1).map(String.init)
        let target = parts.count > 1 ? parts[1] : "/"
        let pathPart = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        if headers["x-sandbox-token"] == nil { headers["x-sandbox-token"] = controlToken }
        let bodyBytes = Array(body.utf8)
        return HTTPRequest(
            method: parts.first ?? "", path: PercentEncoding.decode(Array(pathPart[0].utf8)) ?? String(pathPart[0]),
            query: pathPart.count > 1 ? FormEncoding.decode(Array(pathPart[1].utf8)) ?? [] : [],
            headers: headers, body: Array(bodyBytes.prefix(16 * 1024)), bodyExceededLimit: bodyBytes.count > 16 * 1024)
    }

    private static func collectIds(_ value: JSONValue, into ids: inout [String]) {
        switch value {
        case .object(let members):
            for member in members {
                if ["id", "paymentId", "sessionId", "creq"].contains(member.name), let id = member.value.stringValue {
                    ids.append(id)
                } else {
                    collectIds(member.value, into: &ids)
                }
            }
        case .array(let elements):
            for element in elements { collectIds(element, into: &ids) }
        default: break
        }
    }
}

/// The sandbox's key service with a fixed key: rotation keeps the key.
final class FixedKeys: CardKeyService {
    let key: RSAPrivateKey
    private let inner: JWECardKeys
    init(key: RSAPrivateKey) {
        self.key = key
        inner = JWECardKeys(key: key)
    }
    var currentKid: String { inner.currentKid }
    func jwks() -> JSONValue { inner.jwks() }
    func withPlaintext<R>(of compact: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> Result<R, CardKeyFailure> {
        inner.withPlaintext(of: compact, body)
    }
    func rotate() -> String { currentKid }
}

/// Replayable stand-ins for the sandbox's secrets (the live ones come from the system's random source).
private final class SeededSecrets: Sendable {
    private let random = Mutex(SeededRandom(seed: 99))

    func bytes(_ count: Int) -> [UInt8] {
        random.withLock { random in (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
    }
}
