import Foundation

/// The one result of a payment, passed to your completion block or delegate.
///
/// Created only by the SDK. Exactly one is delivered per `start...` call, on
/// the configured callback queue (the main queue by default), after any page
/// the SDK presented has been dismissed.
///
/// `description` is a short summary for logs: it never contains card data or
/// the verification key.
public final class PaymentResult: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// How the payment ended, one of four. `.unresolved` is a normal outcome: ask your backend.
    public let outcome: PaymentOutcome
    /// The payment's identifier from your backend. Always present.
    public let paymentId: String
    /// The platform's raw status string, unchanged (e.g. `"SETTLED"`); `nil` when no lookup was made
    /// or it failed, and always `nil` for card payments.
    public let paymentStatus: String?
    /// The platform's record of the order number your backend sent; `nil` for card payments.
    public let orderNumber: String?
    /// The card-session identifier; set by the card flow once a session exists, `nil` for hosted checkout.
    public let sessionId: String?
    /// Why the SDK could not complete the flow (domain ``PaymentError/domain``); `nil` when the payment
    /// simply did not happen (e.g. the buyer cancelled).
    public let error: NSError?

    init(
        outcome: PaymentOutcome, paymentId: String, paymentStatus: String? = nil, orderNumber: String? = nil,
        sessionId: String? = nil, error: NSError? = nil
    ) {
        self.outcome = outcome
        self.paymentId = paymentId
        self.paymentStatus = paymentStatus
        self.orderNumber = orderNumber
        self.sessionId = sessionId
        self.error = error
    }

    /// What to do next, in one sentence: the error's recovery suggestion; for an `.unresolved` outcome
    /// without an error (the SDK could not tell yet, and nothing failed), the in-doubt advice: the
    /// payment may have gone through, ask your backend, do not ask the buyer to pay again. `nil` when
    /// there is nothing to do (succeeded, or cancelled by the buyer).
    public var advice: String? {
        if let suggestion = error?.localizedRecoverySuggestion { return suggestion }
        return outcome == .unresolved ? FlowError.inDoubtAdvice() : nil
    }

    /// E.g. `PaymentResult(succeeded, paymentId: p_1, paymentStatus: SETTLED)`.
    public var description: String {
        var parts = ["\(outcome)", "paymentId: \(paymentId)"]
        if let paymentStatus { parts.append("paymentStatus: \(paymentStatus)") }
        if let orderNumber { parts.append("orderNumber: \(orderNumber)") }
        if let sessionId { parts.append("sessionId: \(sessionId)") }
        if let error {
            let name = error.paymentErrorCode.map { "\($0)" } ?? "\(error.domain)"
            parts.append("error: \(name) (\(error.code))")
        }
        return "PaymentResult(\(parts.joined(separator: ", ")))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
