internal import EGWWire
import Foundation
internal import JWE

/// The wire protocol, in one place (CONTRACT.md section 6, GATEWAY.md): the
/// paths, headers and bodies of every call the SDK makes, how each response is
/// decoded (strict on required fields, unknown fields ignored) and how errors
/// map to SDK codes. A different real API changes this file only.
enum GatewayAPI {
    /// The SDK version sent in `User-Agent`.
    static let sdkVersion = "1.0.0"
    /// `User-Agent` of every SDK request.
    static let userAgent = "EGWPay-Linux/\(sdkVersion) (PaymentFlow)"
    /// The `Accept` header the SDK's API calls send (also reported as the browser's).
    static let acceptHeader = "application/json"

    /// Everything a call needs besides the call itself.
    struct Endpoints: Sendable {
        var apiBaseURL: URL?
        var checkoutAPIBaseURL: URL?
        var checkoutBaseURL: URL?
        var paymentId: String
        var verificationKey: String
        var timeout: TimeInterval
    }

    // MARK: - Requests

    /// The HTTP request for `call`, or an `invalidRequest` error when a needed base URL is missing.
    static func request(_ call: GatewayCall, endpoints: Endpoints, requestId: UUID) -> Result<HTTPRequest, FlowError> {
        let payment = "/checkout/api/egw/v1/payments/" + pathSegment(endpoints.paymentId)
        let sessions = payment + "/card-sessions"
        let method: String
        let base: URL?
        let path: String
        var body: [UInt8]? = nil
        switch call {
        case .statusLookup:
            (method, base, path) = ("GET", endpoints.apiBaseURL, payment)
        case .keySet:
            (method, base, path) = ("GET", endpoints.checkoutBaseURL, "/checkout/.well-known/jwks.json")
        case .createSession(let encryptedCard, _):
            (method, base, path) = ("POST", endpoints.checkoutAPIBaseURL, sessions)
            body = JSONText.object([("encryptedCard", .string(encryptedCard))])
        case .authenticate(let sessionId, let notificationURL, _):
            (method, base, path) = (
                "POST", endpoints.checkoutAPIBaseURL, sessions + "/" + pathSegment(sessionId) + "/authentication"
            )
            body = JSONText.object([
                ("notificationUrl", .string(notificationURL.absoluteString)),
                ("browser", .object(browserInfo)),
            ])
        case .challengeResult(let sessionId, _):
            (method, base, path) = (
                "POST", endpoints.checkoutAPIBaseURL, sessions + "/" + pathSegment(sessionId) + "/challenge-result"
            )
            body = Array("{}".utf8)
        case .readSession(let sessionId):
            (method, base, path) = ("GET", endpoints.checkoutAPIBaseURL, sessions + "/" + pathSegment(sessionId))
        }
        guard let base, let url = join(base, path) else {
            return .failure(FlowError(.invalidRequest, "no base URL configured for \(call)", source: "\(call)"))
        }
        var headers = [
            HTTPHeader("X-Request-Id", requestId.uuidString.lowercased()),
            HTTPHeader("Accept", acceptHeader),
            HTTPHeader("User-Agent", userAgent),
        ]
        if call != .keySet {
            headers.insert(HTTPHeader("Obp-Verification-Key", endpoints.verificationKey), at: 0)
        }
        if body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
        if let key = call.idempotencyKey { headers.append(HTTPHeader("Idempotency-Key", key.uuidString.lowercased())) }
        return .success(HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: endpoints.timeout))
    }

    /// `{checkoutBaseURL}/checkout/3ds/notification/{sessionId}`: where the issuer sends the buyer back.
    static func notificationURL(checkoutBaseURL: URL, sessionId: String) -> URL? {
        join(checkoutBaseURL, "/checkout/3ds/notification/" + pathSegment(sessionId))
    }

    /// The hosted page to present: `checkoutURL` with `method={hint}` when the hint is one of
    /// ``PaymentRequest/MethodHint`` (any other value is ignored, as the contract says). The query item
    /// is added, or the first existing `method` item is replaced (later ones removed); every other byte
    /// of the URL (percent-encodings, item order, the fragment) stays as it was.
    static func checkoutPage(checkoutURL: URL, preferredMethod: String?) -> URL {
        guard let preferredMethod, PaymentRequest.MethodHint.known.contains(preferredMethod) else { return checkoutURL }
        var text = checkoutURL.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        let item = "method=" + preferredMethod  // the known hints need no percent-encoding
        guard let mark = text.firstIndex(of: "?") else {
            return URL(string: text + "?" + item + fragment) ?? checkoutURL
        }
        let base = text[..<mark]
        let query = text[text.index(after: mark)...]
        var items: [String] = []
        var replaced = false
        for part in query.split(separator: "&", omittingEmptySubsequences: false) {
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard name == "method" else {
                items.append(String(part))
                continue
            }
            if !replaced { items.append(item) }
            replaced = true
        }
        if !replaced { items.append(item) }
        if items.first == "" { items.removeFirst() }
        return URL(string: base + "?" + items.joined(separator: "&") + fragment) ?? checkoutURL
    }

    /// The browser the SDK reports for 3-D Secure (the presenter is a web view of this kind).
    static let browserInfo: [(String, JSONText.Value)] = [
        ("userAgent", .string(userAgent)),
        ("acceptHeader", .string("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")),
        ("language", .string("en-GB")),
        ("timeZoneOffsetMinutes", .int(0)),
    ]

    /// The challenge page: an HTML form POST of `creq` to `acsUrl`.
    static func challengePage(_ challenge: SessionSnapshot.Challenge) -> PagePlan {
        PagePlan(
            url: challenge.acsURL, formFields: [PagePlan.Field(name: "creq", value: challenge.creq)],
            purpose: .challenge)
    }

    // MARK: - Answers as flow events

    /// What the flow hears of `call`'s result, and the key to cache when the call fetched one.
    static func event(
        for call: GatewayCall, _ result: Result<HTTPResponse, TransportError>, paymentId: String,
        allowsPlainHTTP: Bool = true
    ) -> (event: FlowEvent, key: KeyChoice?) {
        switch call {
        case .statusLookup:
            return (.statusResolved(decodeStatus(result, paymentId: paymentId)), nil)
        case .keySet:
            let decoded = decodeKeySet(result)
            return (.keyFetched(decoded.map(\.key)), decoded.success)
        case .createSession, .authenticate, .challengeResult, .readSession:
            return (.sessionAnswered(call, decodeSession(call, result, allowsPlainHTTP: allowsPlainHTTP)), nil)
        }
    }

    // MARK: - Status lookup

    /// Decodes `200 {"paymentId", "paymentStatus", "orderNumber"?...}`.
    static func decodeStatus(
        _ result: Result<HTTPResponse, TransportError>, paymentId: String
    ) -> Result<HostedCheckoutMachine.StatusReport, FlowError> {
        let source = "GET status"
        switch result {
        case .failure(let error):
            return .failure(transportFailure(error, source: source))
        case .success(let response):
            guard response.status == 200 else {
                return .failure(httpFailure(response, source: source, idempotent: true))
            }
            struct Body: Decodable {
                var paymentId: String
                var paymentStatus: String
                var orderNumber: String?
            }
            switch decode(Body.self, response, source: source) {
            case .failure(let error): return .failure(error)
            case .success(let body):
                guard body.paymentId == paymentId else {
                    return .failure(
                        FlowError(.invalidResponse, "the status lookup answered for another payment", source: source))
                }
                return .success(.init(paymentStatus: body.paymentStatus, orderNumber: body.orderNumber))
            }
        }
    }

    // MARK: - Card-encryption key

    /// A key chosen from the key set, and how long it may be cached.
    struct KeyChoice: Sendable {
        var key: EncryptionKey
        var maxAge: TimeInterval
    }

    /// Picks the RSA key whose `alg` is `RSA-OAEP-256` (and `use`, when present, `enc`), of at least
    /// 2048 bits, and reads `Cache-Control: max-age`. Failures are `encryptionKeyUnavailable`.
    static func decodeKeySet(_ result: Result<HTTPResponse, TransportError>) -> Result<KeyChoice, FlowError> {
        let source = "GET jwks.json"
        func unavailable(_ cause: FlowError) -> FlowError {
            cause.code == .encryptionKeyUnavailable
                ? cause
                : cause.wrapped(
                    as: .encryptionKeyUnavailable, "the card-encryption key could not be fetched (\(cause.code))")
        }
        let response: HTTPResponse
        switch result {
        case .failure(let error): return .failure(unavailable(transportFailure(error, source: source)))
        case .success(let value): response = value
        }
        guard response.status == 200 else {
            return .failure(unavailable(httpFailure(response, source: source, idempotent: true)))
        }
        // One strict parse (EGWWire): a duplicated member anywhere, such as a second "n" or "alg" in a key,
        // refuses the whole set instead of letting a parser pick one of the two.
        let keySet: JSONValue
        do {
            keySet = try StrictJSONParser.parse(response.body)
        } catch {
            return .failure(
                unavailable(FlowError(.invalidResponse, "the key set is not strict JSON: \(error)", source: source)))
        }
        guard case .array(let keys)? = keySet[member: "keys"] else {
            return .failure(
                unavailable(
                    FlowError(
                        .invalidResponse, "the key set is not a JSON object with a \"keys\" array", source: source)))
        }
        var refusal = "the key set holds no RSA key with alg RSA-OAEP-256 for encryption"
        for jwk in keys {
            guard jwk[member: "kty"] == .string("RSA"),
                jwk[member: "alg"] == .string(JWEPolicy.keyManagementAlgorithm)
            else {
                continue
            }
            if let use = jwk[member: "use"], use != .string("enc") { continue }
            do {
                let publicKey = try RSAPublicKey(jwk: jwk)
                guard publicKey.bitCount >= 2048 else {
                    refusal = "the key is \(publicKey.bitCount) bits; at least 2048 are required"
                    continue
                }
                return .success(
                    KeyChoice(key: EncryptionKey(publicKey), maxAge: maxAge(response.header("Cache-Control"))))
            } catch {
                refusal =
                    error.code == .keyTooSmall
                    ? "the key is under 2048 bits" : "the key cannot be used (\(error.code))"
            }
        }
        return .failure(FlowError(.encryptionKeyUnavailable, refusal, source: source))
    }

    /// Seconds from `Cache-Control: max-age=N` (0 without it, or with `no-store`/`no-cache`), at most a day.
    static func maxAge(_ cacheControl: String?) -> TimeInterval {
        guard let cacheControl else { return 0 }
        var age: TimeInterval = 0
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            switch parts.first {
            case "no-store", "no-cache": return 0
            case "max-age":
                if parts.count == 2,
                    let seconds = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
                    seconds > 0
                {
                    age = TimeInterval(min(seconds, 86_400))
                }
            default: break
            }
        }
        return age
    }

    // MARK: - Card sessions

    /// Decodes a card-session response for `call` (create, authenticate, challenge-result, read) and
    /// classifies it by the one question every outcome rule starts from: could the gateway have acted?
    /// `allowsPlainHTTP` is the environment's rule (CONTRACT: in `.live` every URL is `https`), applied to
    /// the challenge's `acsUrl` as to every configured URL.
    static func decodeSession(
        _ call: GatewayCall, _ result: Result<HTTPResponse, TransportError>, allowsPlainHTTP: Bool = true
    ) -> SessionReply {
        let source = call.description
        let response: HTTPResponse
        switch result {
        case .failure(let error):
            let failure = transportFailure(error, source: source)
            return neverReachedGateway(error)
                ? .unreachable(failure) : .doubtful(failure, resendable: true)  // the gateway may have acted
        case .success(let value):
            response = value
        }
        guard (200...299).contains(response.status) else { return classifyRefusal(call, response, source: source) }
        // A success status with an unusable body: the gateway acted, and its answer is lost.
        func invalid(_ reason: String) -> SessionReply {
            .doubtful(
                FlowError(.invalidResponse, reason, source: source, httpStatus: response.status), resendable: true)
        }
        let expected: Set<Int> = isCreate(call) ? [200, 201] : [200]
        guard expected.contains(response.status) else {
            return invalid("HTTP \(response.status) is not an answer \(source) may give")
        }
        struct Body: Decodable {
            struct Challenge: Decodable {
                var acsUrl: String
                var creq: String
            }
            struct Failure: Decodable {
                var code: String
                var message: String?
            }
            var sessionId: String
            var status: String
            var transStatus: String?
            var challenge: Challenge?
            var failure: Failure?
        }
        let body: Body
        switch decode(Body.self, response, source: source) {
        case .failure(let error): return .doubtful(error, resendable: true)
        case .success(let value): body = value
        }
        switch call {
        case .authenticate(let sessionId, _, _), .challengeResult(let sessionId, _), .readSession(let sessionId):
            guard body.sessionId == sessionId else { return invalid("the gateway answered for another card session") }
        case .createSession, .statusLookup, .keySet:
            guard !body.sessionId.isEmpty else { return invalid("the card session has an empty sessionId") }
        }
        let status: SessionSnapshot.Status
        switch body.status {
        case "AUTHENTICATION_REQUIRED":
            status = .authenticationRequired
        case "CHALLENGE_REQUIRED":
            guard let challenge = body.challenge else { return invalid("CHALLENGE_REQUIRED without a challenge") }
            guard let acsURL = URL(string: challenge.acsUrl), let scheme = acsURL.scheme?.lowercased(),
                scheme == "https" || scheme == "http", acsURL.host != nil
            else { return invalid("the challenge's acsUrl is not an http(s) URL") }
            guard scheme == "https" || allowsPlainHTTP else {
                return invalid("the challenge's acsUrl is plain http, which only the sandbox environment accepts")
            }
            status = .challengeRequired(.init(acsURL: acsURL, creq: challenge.creq))
        case "COMPLETED":
            status = .completed
        case "FAILED":
            guard let failure = body.failure else { return invalid("a FAILED session without its failure") }
            if failure.code == "PAYMENT_ALREADY_PROCESSED" {
                // The same fact as the 409 spelling: the payment was already paid or is being paid,
                // maybe by this very card. Not a declined card: the SDK does not know how it ends.
                let row = errorRow(status: 409, gatewayCode: failure.code, idempotent: false)
                let message = failure.message.map { Redactor().scrub($0) } ?? ""
                return .doubtful(
                    FlowError(
                        row.code,
                        "the card session FAILED with PAYMENT_ALREADY_PROCESSED"
                            + (message.isEmpty ? "" : ": \(message)"), source: source,
                        httpStatus: response.status, gatewayCode: failure.code),
                    resendable: false)
            }
            status = .failed(
                sessionFailure(
                    code: failure.code, message: failure.message, transStatus: body.transStatus, source: source))
        default:
            return invalid("unknown card-session status")
        }
        let allowed: Bool
        switch (call, status) {
        case (.createSession, .authenticationRequired), (.createSession, .completed), (.createSession, .failed):
            allowed = true
        case (.authenticate, .completed), (.authenticate, .failed), (.authenticate, .challengeRequired): allowed = true
        case (.challengeResult, .completed), (.challengeResult, .failed): allowed = true
        case (.readSession, _): allowed = true
        default: allowed = false
        }
        guard allowed else { return invalid("\(body.status) is not an answer \(source) may give") }
        return .session(SessionSnapshot(sessionId: body.sessionId, status: status, transStatus: body.transStatus))
    }

    /// The one rule for a request that got no answer: it never reached the gateway only when it could
    /// not be sent at all (a URL the transport refuses) or the transport's facts prove no connection
    /// ever carried it. The failure's kind alone proves nothing: libcurl reports a refused connect
    /// when a kept connection died under the written request and its retry could not reconnect.
    static func neverReachedGateway(_ error: TransportError) -> Bool {
        switch error.kind {
        case .invalidURL, .insecureScheme:
            return true
        case .connect, .tls, .pinningFailed, .timeout, .reset, .responseTooLarge, .other:
            return error.delivery.provesNeverSent
        }
    }

    /// A non-2xx answer: a refusal only when the gateway's code says nothing was done (GATEWAY.md's table);
    /// anything else (5xx, `PAYMENT_ALREADY_PROCESSED`, `IDEMPOTENCY_KEY_REUSED`, an unknown code or no JSON)
    /// leaves the step in doubt.
    private static func classifyRefusal(_ call: GatewayCall, _ response: HTTPResponse, source: String) -> SessionReply {
        let body = errorBody(response)
        let row = errorRow(status: response.status, gatewayCode: body?.code, idempotent: call.isIdempotent)
        let failure = httpFailure(response, body: body, code: row.code, source: source)
        switch row.meaning {
        case .unknownKey where isCreate(call): return .unknownKey
        case .inProgress: return .inProgress(failure)
        case .challengeNotCompleted:
            if case .challengeResult = call { return .challengeNotCompleted }
            return .doubtful(failure, resendable: false)
        case .nothingDone: return .refused(failure)
        case .mayHaveActed(let resendable): return .doubtful(failure, resendable: resendable)
        case .unknownKey: return .doubtful(failure, resendable: true)
        }
    }

    private static func isCreate(_ call: GatewayCall) -> Bool {
        if case .createSession = call { return true }
        return false
    }

    /// The SDK error for a session that ended `FAILED`.
    static func sessionFailure(code: String, message: String?, transStatus: String?, source: String) -> FlowError {
        let text = message.map { Redactor().scrub($0) } ?? code
        let sdkCode: PaymentError.Code
        if code == "CARD_BRAND_NOT_ACCEPTED" {
            sdkCode = .cardBrandNotAccepted
        } else if transStatus == "N" || transStatus == "R" || code.hasPrefix("AUTHENTICATION") {
            sdkCode = .authenticationFailed
        } else {
            sdkCode = .cardSessionFailed
        }
        return FlowError(sdkCode, "the card session failed: \(text) (\(code))", source: source, gatewayCode: code)
    }

    // MARK: - Errors (the table of GATEWAY.md)

    /// What a row of GATEWAY.md's error table says about the request.
    enum ErrorMeaning: Equatable {
        /// The gateway's code says the request changed nothing.
        case nothingDone
        /// The gateway may have acted; `resendable`: the same step with the same key can bring its answer.
        case mayHaveActed(resendable: Bool)
        /// `409 REQUEST_IN_PROGRESS`.
        case inProgress
        /// `409 CHALLENGE_NOT_COMPLETED`.
        case challengeNotCompleted
        /// `422 UNKNOWN_KEY`.
        case unknownKey
    }

    /// GATEWAY.md's error table, in one place: the SDK code of a non-2xx answer and what it says.
    static func errorRow(
        status: Int, gatewayCode: String?, idempotent: Bool
    ) -> (code: PaymentError.Code, meaning: ErrorMeaning) {
        switch (status, gatewayCode) {
        case (400, "INVALID_REQUEST"), (401, "INVALID_VERIFICATION_KEY"), (404, "PAYMENT_NOT_FOUND"),
            (404, "SESSION_NOT_FOUND"):
            return (.invalidRequest, .nothingDone)
        case (409, "PAYMENT_ALREADY_PROCESSED"): return (.cardSessionFailed, .mayHaveActed(resendable: false))
        case (409, "REQUEST_IN_PROGRESS"): return (.cardSessionFailed, .inProgress)
        case (409, "CHALLENGE_NOT_COMPLETED"): return (.invalidResponse, .challengeNotCompleted)
        case (422, "IDEMPOTENCY_KEY_REUSED"): return (.invalidResponse, .mayHaveActed(resendable: false))
        case (422, "CARD_BRAND_NOT_ACCEPTED"): return (.cardBrandNotAccepted, .nothingDone)
        case (422, "UNKNOWN_KEY"): return (.encryptionKeyUnavailable, .unknownKey)
        case (422, "DECRYPTION_FAILED"): return (.encryptionFailed, .nothingDone)
        case (500...599, _):
            return (idempotent ? .networkError : .cardSessionFailed, .mayHaveActed(resendable: true))
        default: return (.invalidResponse, .mayHaveActed(resendable: true))
        }
    }

    /// A non-2xx response as an SDK error.
    static func httpFailure(_ response: HTTPResponse, source: String, idempotent: Bool) -> FlowError {
        let body = errorBody(response)
        let row = errorRow(status: response.status, gatewayCode: body?.code, idempotent: idempotent)
        return httpFailure(response, body: body, code: row.code, source: source)
    }

    private static func httpFailure(
        _ response: HTTPResponse, body: (code: String, message: String)?, code: PaymentError.Code, source: String
    ) -> FlowError {
        let message = body.map { Redactor().scrub($0.message) }
        let detail = [body?.code, message].compactMap { $0 }.joined(separator: ": ")
        let reason = "HTTP \(response.status)" + (detail.isEmpty ? "" : " \(detail)")
        return FlowError(code, reason, source: source, httpStatus: response.status, gatewayCode: body?.code)
    }

    /// A transport failure as an SDK error.
    static func transportFailure(_ error: TransportError, source: String) -> FlowError {
        switch error.kind {
        case .invalidURL, .insecureScheme:
            return FlowError(.invalidRequest, "the request URL cannot be sent: \(error.message)", source: source)
        case .responseTooLarge:
            return FlowError(.invalidResponse, "the response was too large: \(error.message)", source: source)
        case .connect, .tls, .pinningFailed, .timeout, .reset, .other:
            return FlowError(.networkError, "\(error.kind): \(error.message)", source: source)
        }
    }

    /// `{"error": {"code", "message"}}`, when the body is one.
    static func errorBody(_ response: HTTPResponse) -> (code: String, message: String)? {
        struct Body: Decodable {
            struct Inner: Decodable {
                var code: String
                var message: String?
            }
            var error: Inner
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(response.body)) else { return nil }
        return (body.error.code, body.error.message ?? "")
    }

    private static func decode<T: Decodable>(
        _ type: T.Type, _ response: HTTPResponse, source: String
    ) -> Result<T, FlowError> {
        do {
            return .success(try JSONDecoder().decode(type, from: Data(response.body)))
        } catch DecodingError.keyNotFound(let key, _) {
            return .failure(
                FlowError(
                    .invalidResponse, "the response lacks the required field \"\(key.stringValue)\"", source: source))
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .failure(
                FlowError(.invalidResponse, "the response field \"\(field)\" has the wrong type", source: source))
        } catch {
            return .failure(FlowError(.invalidResponse, "the response is not the JSON expected", source: source))
        }
    }

    // MARK: - Observation (redacted views of the wire)

    /// One exchange as observers and the debug log see it: headers, bodies and the JWE header redacted.
    static func exchange(
        _ call: GatewayCall, _ request: HTTPRequest, duration: TimeInterval,
        _ result: Result<HTTPResponse, TransportError>
    ) -> HTTPExchange {
        let requestId = request.headers.first { $0.name == "X-Request-Id" }?.value ?? ""
        let (body, jweHeader) = redactedRequestBody(call, request.body)
        var exchange = HTTPExchange(
            requestId: requestId, method: request.method, url: request.url, status: nil, duration: duration,
            requestHeaders: redactedHeaders(request.headers), requestBody: body, encryptedCardHeader: jweHeader,
            responseBody: nil, failure: nil)
        switch result {
        case .success(let response):
            exchange.status = response.status
            exchange.responseBody = redactedResponseBody(response.body)
        case .failure(let error):
            exchange.failure = "\(error.kind): \(error.message)"
        }
        return exchange
    }

    /// Header values safe to show: the verification key becomes its fingerprint.
    static func redactedHeaders(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        headers.map { header in
            header.name.caseInsensitiveCompare("Obp-Verification-Key") == .orderedSame
                ? HTTPHeader(header.name, Redactor.fingerprint(header.value)) : header
        }
    }

    /// The request body safe to show, and the decoded JWE protected header when it carries an encrypted card.
    static func redactedRequestBody(_ call: GatewayCall, _ body: [UInt8]?) -> (body: String?, jweHeader: String?) {
        guard let body else { return (nil, nil) }
        if case .createSession(let encryptedCard, _) = call {
            let header = (try? JWEProtectedHeader(compact: encryptedCard))?.json
            return (#"{"encryptedCard":"<JWE \#(encryptedCard.utf8.count) bytes>"}"#, header)
        }
        return (String(decoding: body.prefix(2048), as: UTF8.self), nil)
    }

    /// The response body safe to show, shortened.
    static func redactedResponseBody(_ body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        let text = String(decoding: body.prefix(2048), as: UTF8.self)
        return Redactor().scrub(text) + (body.count > 2048 ? "…" : "")
    }

    // MARK: - Small helpers

    /// One path segment, percent-encoded (RFC 3986 unreserved characters kept).
    static func pathSegment(_ text: String) -> String { PercentEncoding.pathSegment(text) }

    /// `base` + `path`, keeping the base's own path as a prefix.
    static func join(_ base: URL, _ path: String) -> URL? {
        var text = base.absoluteString
        if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<query]) }
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + path)
    }
}

/// A card session as the gateway reports it.
struct SessionSnapshot: Equatable, Sendable {
    struct Challenge: Equatable, Sendable {
        var acsURL: URL
        var creq: String
    }

    enum Status: Equatable, Sendable {
        case authenticationRequired
        case challengeRequired(Challenge)
        case completed
        case failed(FlowError)
    }

    var sessionId: String
    var status: Status
    var transStatus: String?
}

extension SessionSnapshot: CustomStringConvertible {
    var description: String {
        let name: String
        switch status {
        case .authenticationRequired: name = "AUTHENTICATION_REQUIRED"
        case .challengeRequired: name = "CHALLENGE_REQUIRED"
        case .completed: name = "COMPLETED"
        case .failed(let error): name = "FAILED (\(error.code))"
        }
        return name + (transStatus.map { " transStatus \($0)" } ?? "")
    }

    /// `COMPLETED` with `transStatus` `N` or `R`: the gateway contradicts itself (CONTRACT.md 4a).
    var isContradictory: Bool {
        if case .completed = status, transStatus == "N" || transStatus == "R" { return true }
        return false
    }
}

/// What a card-session call produced, classified for the card machine by whether the gateway
/// could have acted on it.
enum SessionReply: Equatable, Sendable, CustomStringConvertible {
    /// The session as the gateway answered.
    case session(SessionSnapshot)
    /// `422 UNKNOWN_KEY` to a creation: the key rotated.
    case unknownKey
    /// The gateway refused with a code that says nothing was done (400, 401, 404, brand, decryption).
    case refused(FlowError)
    /// No answer, and the request surely never reached the gateway (connect, TLS, bad URL).
    case unreachable(FlowError)
    /// The gateway may have acted and its answer is lost: timeout, reset, 5xx, an undecodable or
    /// unexpected 2xx, `PAYMENT_ALREADY_PROCESSED`. `resendable`: sending the same step again with the
    /// same `Idempotency-Key` can bring the real answer.
    case doubtful(FlowError, resendable: Bool)
    /// `409 REQUEST_IN_PROGRESS`: the same key's first request is still being processed.
    case inProgress(FlowError)
    /// `409 CHALLENGE_NOT_COMPLETED`: the issuer has no answer from the buyer.
    case challengeNotCompleted

    var description: String {
        switch self {
        case .session(let snapshot): snapshot.description
        case .unknownKey: "UNKNOWN_KEY"
        case .refused(let error): "refused (\(error.code))"
        case .unreachable(let error): "unreachable (\(error.code))"
        case .doubtful(let error, _): "in doubt (\(error.code))"
        case .inProgress: "REQUEST_IN_PROGRESS"
        case .challengeNotCompleted: "CHALLENGE_NOT_COMPLETED"
        }
    }
}

/// Minimal JSON writing for request bodies (strings escaped by EGWWire's one policy).
enum JSONText {
    indirect enum Value: Sendable {
        case string(String)
        case int(Int)
        case object([(String, Value)])
    }

    static func object(_ members: [(String, Value)]) -> [UInt8] {
        var out: [UInt8] = []
        write(.object(members), to: &out)
        return out
    }

    static func write(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .string(let text): JSONWriter.appendQuoted(text, to: &out)
        case .int(let number): out.append(contentsOf: String(number).utf8)
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendQuoted(member.0, to: &out)
                out.append(UInt8(ascii: ":"))
                write(member.1, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
