/// The four ways a payment can end, as the SDK reports it to the app.
///
/// `.unresolved` is a normal outcome, not an error: the SDK does not know
/// (no lookup was made, the lookup failed, or the platform has not reached a
/// final state). Ask your backend. Never treat any outcome, `.succeeded`
/// included, as permission to fulfil an order: that is the backend's call.
///
/// Raw values are fixed by the SDK contract and stable across versions.
public enum PaymentOutcome: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// The platform reports `AUTHORIZED`, `CAPTURED`, `SETTLED` or `REFUNDED`.
    case succeeded = 0
    /// The platform reports `FAILED`, or the SDK could not run the flow.
    case failed = 1
    /// The platform reports `CANCELLED` or `ABANDONED`, or the buyer closed the page.
    case cancelled = 2
    /// `INITIALIZED`, `SENT_FOR_PROCESSING`, any status not recognised, or no lookup.
    case unresolved = 3

    /// Maps a platform status string to an outcome.
    ///
    /// Matching is exact and case-sensitive: only the platform's own strings
    /// count. `nil`, the empty string and every string not in the table are
    /// `.unresolved` — the mapping never guesses success.
    ///
    /// - Parameter platformStatus: the raw `paymentStatus` from the platform.
    public init(platformStatus: String?) {
        guard let platformStatus else {
            self = .unresolved
            return
        }
        switch platformStatus {
        case "AUTHORIZED", "CAPTURED", "SETTLED", "REFUNDED":
            self = .succeeded
        case "FAILED":
            self = .failed
        case "CANCELLED", "ABANDONED":
            self = .cancelled
        default:
            // INITIALIZED, SENT_FOR_PROCESSING and every unknown string.
            self = .unresolved
        }
    }

    /// The case name, e.g. `"succeeded"`.
    public var description: String {
        switch self {
        case .succeeded: "succeeded"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .unresolved: "unresolved"
        }
    }
}

/// The Objective-C name of ``PaymentOutcome``, kept so code written against
/// either name reads the same.
public typealias EGWPaymentOutcome = PaymentOutcome
