internal import EGWWire
import Foundation
internal import JWE

/// Card-session answers, classified by whether the gateway could have acted.
extension GatewayAPI {
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
                ? .unreachable(failure) : .doubtful(failure, .answerLost)  // the gateway may have acted
        case .success(let value):
            response = value
        }
        guard (200...299).contains(response.status) else { return classifyRefusal(call, response, source: source) }
        // A success status with an unusable body: the gateway acted, and its answer is lost.
        func invalid(_ reason: String) -> SessionReply {
            .doubtful(
                FlowError(.invalidResponse, reason, source: source, httpStatus: response.status), .answerLost)
        }
        let expected: Set<Int> = isCreate(call) ? [200, 201] : [200]
        guard expected.contains(response.status) else {
            return invalid("HTTP \(response.status) is not an answer \(source) may give")
        }
        let body: SessionBody
        do throws(FlowError) {
            body = try SessionBody(AnswerReader.parse(response, source: source))
        } catch {
            return .doubtful(error, .answerLost)
        }
        switch call {
        case .authenticate(let sessionId, _, _, _), .challengeResult(let sessionId, _), .readSession(let sessionId):
            guard body.sessionId == sessionId else { return invalid("the gateway answered for another card session") }
        case .createSession, .statusLookup, .keySet:
            guard !body.sessionId.isEmpty else { return invalid("the card session has an empty sessionId") }
        }
        let status: SessionSnapshot.Status
        var method: ThreeDSMethodPlan?
        switch body.status {
        case "AUTHENTICATION_REQUIRED":
            status = .authenticationRequired
            if body.hasMethod {
                method = ThreeDSMethodPlan(
                    url: body.method.flatMap { methodURL($0.url, allowsPlainHTTP: allowsPlainHTTP) },
                    data: body.method?.data ?? "")
            }
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
                    .conflict)
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
        return .session(
            SessionSnapshot(sessionId: body.sessionId, status: status, transStatus: body.transStatus, method: method))
    }

    /// A method URL the presenter may load: http(s) with a host, and https unless the environment allows
    /// plain http (as for `acsUrl`).
    static func methodURL(_ text: String, allowsPlainHTTP: Bool) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host != nil,
            scheme == "https" || (scheme == "http" && allowsPlainHTTP)
        else { return nil }
        return url
    }

    /// The one rule for a request that got no answer: it never reached the gateway only when the
    /// transport's facts prove no connection ever carried it (a URL or header the transport refused
    /// before sending says so in its `Delivery` too). The failure's kind alone proves nothing: libcurl
    /// reports a refused connect when a kept connection died under the written request and its retry
    /// could not reconnect, and an unsupported protocol when a server (or a box in between) answered
    /// the written request with bytes that are not HTTP/1.x.
    static func neverReachedGateway(_ error: TransportError) -> Bool {
        error.delivery.provesNeverSent
    }

    /// A non-2xx answer: a refusal only when the gateway's code says nothing was done (GATEWAY.md's table);
    /// anything else (5xx, `PAYMENT_ALREADY_PROCESSED`, `IDEMPOTENCY_KEY_REUSED`, an unknown code or no JSON)
    /// leaves the step in doubt.
    static func classifyRefusal(_ call: GatewayCall, _ response: HTTPResponse, source: String) -> SessionReply {
        let body = errorBody(response)
        let row = errorRow(status: response.status, gatewayCode: body?.code, idempotent: call.isIdempotent)
        let failure = httpFailure(response, body: body, code: row.code, source: source)
        switch row.meaning {
        case .unknownKey where isCreate(call): return .unknownKey
        case .inProgress: return .inProgress(failure)
        case .challengeNotCompleted:
            if case .challengeResult = call { return .challengeNotCompleted }
            return .doubtful(failure, .conflict)
        case .nothingDone: return .refused(failure)
        case .mayHaveActed(let doubt): return .doubtful(failure, doubt)
        case .unknownKey: return .doubtful(failure, .answerLost)
        }
    }

    static func isCreate(_ call: GatewayCall) -> Bool {
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

    /// A card-session answer's members (GATEWAY.md "Card sessions").
    struct SessionBody {
        var sessionId: String
        var status: String
        var transStatus: String?
        var challenge: (acsUrl: String, creq: String)?
        var failure: (code: String, message: String?)?
        /// `threeDSMethod`, read leniently: a member that is not `{url, data}` strings is a method that
        /// cannot run (`N`), never an unreadable answer (a method never fails the payment).
        var method: ThreeDSMethodField?
        var hasMethod = false

        init(_ reader: AnswerReader) throws(FlowError) {
            sessionId = try reader.string("sessionId")
            status = try reader.string("status")
            transStatus = try reader.optionalString("transStatus")
            if let challenge = try reader.optionalObject("challenge") {
                self.challenge = (try challenge.string("acsUrl"), try challenge.string("creq"))
            }
            if let value = reader.member("threeDSMethod"), value != .null {
                hasMethod = true
                method = ThreeDSMethodField(json: value)
            }
            if let failure = try reader.optionalObject("failure") {
                self.failure = (try failure.string("code"), try failure.optionalString("message"))
            }
        }
    }
}
