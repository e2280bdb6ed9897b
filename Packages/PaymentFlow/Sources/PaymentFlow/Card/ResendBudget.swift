import Foundation

/// Why a money-moving POST's answer leaves the step in doubt: a fact about the answer, read on the wire
/// (`GatewayAPI.errorRow`, `decodeSession`). Whether that allows sending the step again is
/// ``ResendBudget``'s decision alone.
enum AnswerDoubt: Equatable, Sendable {
    /// The answer is lost or unusable: no answer, a reset, a 5xx, an undecodable or unexpected 2xx, an
    /// error code the table does not know. The same request with the same `Idempotency-Key` brings the
    /// gateway's real answer.
    case answerLost
    /// The gateway answered a conflict about the payment or the key (`PAYMENT_ALREADY_PROCESSED`,
    /// `IDEMPOTENCY_KEY_REUSED`, `CHALLENGE_NOT_COMPLETED` to another step): sending the same request
    /// again cannot tell more.
    case conflict
}

/// The one rule for sending a money-moving step (a card-session POST with its one `Idempotency-Key`)
/// again, and how many times (CONTRACT.md 4a; GATEWAY.md "Idempotency"). The card machine keeps one
/// budget per step and asks it at every occasion; it decides nothing about resending itself.
///
/// - an answer lost to a creation (there is no session to read back): sent again once;
/// - a step the read-back shows the gateway never applied: sent again once;
/// - `409 REQUEST_IN_PROGRESS` to a creation: waited out (``inProgressPause``) and sent again, up to
///   ``inProgressWaits`` times, whatever was sent before;
/// - a conflict, or a step already sent again: never.
///
/// Once a step went out more than once, a refusal or an unreachable gateway no longer proves nothing
/// was done (the earlier request may have been applied): ``sentOnce`` says which.
struct ResendBudget: Equatable, Sendable {
    /// What happened that could call for the same request again.
    enum Occasion: Equatable, Sendable {
        /// The answer to a creation is in doubt for this reason.
        case creationInDoubt(AnswerDoubt)
        /// The session read back shows the step was not applied.
        case notApplied
        /// `409 REQUEST_IN_PROGRESS` to a creation.
        case creationInProgress
    }

    /// How long to wait after `REQUEST_IN_PROGRESS` before sending again or reading back.
    static let inProgressPause: TimeInterval = 1
    /// How often a creation answered `REQUEST_IN_PROGRESS` is waited out and sent again.
    static let inProgressWaits = 3

    /// The step has gone out exactly once: a refusal or an unreachable gateway proves nothing was done.
    private(set) var sentOnce = true
    /// `REQUEST_IN_PROGRESS` waits so far.
    private(set) var waits = 0

    /// A step just sent for the first time.
    init() {}

    /// A step that is read back, never sent again (a contradiction: the gateway's own answer is doubted).
    static let readBackOnly: ResendBudget = {
        var budget = ResendBudget()
        budget.sentOnce = false
        return budget
    }()

    /// The budget after sending the step again on `occasion`, or `nil` when it may not be sent again.
    /// (A cancel is the machine's to weigh: it sends nothing new that could move money.)
    func resending(on occasion: Occasion) -> ResendBudget? {
        var next = self
        switch occasion {
        case .creationInDoubt(.conflict):
            return nil
        case .creationInDoubt(.answerLost), .notApplied:
            guard sentOnce else { return nil }
        case .creationInProgress:
            guard waits < Self.inProgressWaits else { return nil }
            next.waits += 1
        }
        next.sentOnce = false
        return next
    }
}
