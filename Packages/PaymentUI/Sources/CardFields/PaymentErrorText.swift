import BuyerText
import CardValidation
import Foundation

/// The SDK's errors (domain `com.egw.egwpay`, the twelve codes) in the buyer's language, from the same
/// tables as the entries' text. A card validation error (code 7) that carries its issue
/// (`NSError.cardValidationIssue`: `CardValidationIssue.nsError` and a card payment's validation error
/// do) gets that field's message for that reason. Any other error gets its own `localizedDescription`.
/// Safe from any thread.
public enum PaymentErrorText {
    /// The error domain of the SDK's errors.
    public static let domain = "com.egw.egwpay"

    /// A sentence for the buyer about `error`.
    public static func describe(_ error: NSError) -> String {
        guard error.domain == domain, (1...12).contains(error.code) else { return error.localizedDescription }
        let text = BuyerText.current
        if let issue = error.cardValidationIssue {
            let key = "card.error.\(issue.field).\(issue.reason.rawValue)"
            if text[key] != key { return text[key] }
        }
        return text["error.\(error.code)"]
    }
}
