import BuyerText
import CardValidation
import Foundation

/// The SDK's errors (domain `com.egw.egwpay`, the twelve codes) in the buyer's language, from the same
/// tables as the entries' text. A card validation error (code 7) naming a field and a reason gets that
/// field's message. Any other error gets its own `localizedDescription`. Safe from any thread.
public enum PaymentErrorText {
    /// The error domain of the SDK's errors.
    public static let domain = "com.egw.egwpay"

    /// A sentence for the buyer about `error`.
    public static func describe(_ error: NSError) -> String {
        guard error.domain == domain, (1...12).contains(error.code) else { return error.localizedDescription }
        let text = BuyerText.current
        if error.code == CardValidationIssue.errorCode,
            let field = (error.userInfo[CardValidationIssue.fieldUserInfoKey] as? Int).flatMap(CardField.init),
            let reason = error.userInfo[CardValidationIssue.reasonUserInfoKey] as? String
        {
            let key = "card.error.\(field).\(reason)"
            if text[key] != key { return text[key] }
        }
        return text["error.\(error.code)"]
    }
}
