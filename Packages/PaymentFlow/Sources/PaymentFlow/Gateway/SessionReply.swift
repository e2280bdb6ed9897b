import Foundation

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
    /// The 3DS Method the gateway names (`threeDSMethod`), with `AUTHENTICATION_REQUIRED` only.
    var method: ThreeDSMethodPlan? = nil
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
    /// unexpected 2xx, `PAYMENT_ALREADY_PROCESSED`; why, as a fact (whether the step may be sent again
    /// is `ResendBudget`'s decision).
    case doubtful(FlowError, AnswerDoubt)
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
