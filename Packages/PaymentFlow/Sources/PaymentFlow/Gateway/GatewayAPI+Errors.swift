internal import EGWWire
import Foundation
internal import JWE

/// GATEWAY.md's error table and the SDK errors built from answers.
extension GatewayAPI {
    // MARK: - Errors (the table of GATEWAY.md)

    /// What a row of GATEWAY.md's error table says about the request.
    enum ErrorMeaning: Equatable {
        /// The gateway's code says the request changed nothing.
        case nothingDone
        /// The gateway may have acted; why (`ResendBudget` decides whether the step goes again).
        case mayHaveActed(AnswerDoubt)
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
        case (409, "PAYMENT_ALREADY_PROCESSED"): return (.cardSessionFailed, .mayHaveActed(.conflict))
        case (409, "REQUEST_IN_PROGRESS"): return (.cardSessionFailed, .inProgress)
        case (409, "CHALLENGE_NOT_COMPLETED"): return (.invalidResponse, .challengeNotCompleted)
        case (422, "IDEMPOTENCY_KEY_REUSED"): return (.invalidResponse, .mayHaveActed(.conflict))
        case (422, "CARD_BRAND_NOT_ACCEPTED"): return (.cardBrandNotAccepted, .nothingDone)
        case (422, "UNKNOWN_KEY"): return (.encryptionKeyUnavailable, .unknownKey)
        case (422, "DECRYPTION_FAILED"): return (.encryptionFailed, .nothingDone)
        case (500...599, _):
            return (idempotent ? .networkError : .cardSessionFailed, .mayHaveActed(.answerLost))
        default: return (.invalidResponse, .mayHaveActed(.answerLost))
        }
    }

    /// A non-2xx response as an SDK error.
    static func httpFailure(_ response: HTTPResponse, source: String, idempotent: Bool) -> FlowError {
        let body = errorBody(response)
        let row = errorRow(status: response.status, gatewayCode: body?.code, idempotent: idempotent)
        return httpFailure(response, body: body, code: row.code, source: source)
    }

    static func httpFailure(
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
        case .invalidResponse:
            return FlowError(
                .invalidResponse, "the answer is not HTTP the SDK can read: \(error.message)", source: source)
        case .connect, .tls, .pinningFailed, .timeout, .reset, .other:
            return FlowError(.networkError, "\(error.kind): \(error.message)", source: source)
        }
    }

    /// `{"error": {"code", "message"}}`, when the body is one (read strictly, as every answer).
    static func errorBody(_ response: HTTPResponse) -> (code: String, message: String)? {
        do throws(FlowError) {
            let error = try AnswerReader.parse(response, source: "").object("error")
            return (try error.string("code"), try error.optionalString("message") ?? "")
        } catch {
            return nil
        }
    }
}
