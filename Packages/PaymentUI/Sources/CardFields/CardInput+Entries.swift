import CardValidation
import Foundation

extension CardInput {
    /// Fills the card from the three entries in one call: `cardNumber` from the number's digits,
    /// `expiryMonth`/`expiryYear` from the expiry, `securityCode` from the code, and the name when given.
    /// The number and the code are handed over from the entries' editors without a `String` copy
    /// (`setCardNumber(from:)`); GTK's own text buffers still hold what the entries display.
    /// Main thread (the entries are GTK widgets).
    @MainActor
    public func fill(
        number: CardNumberEntry, expiry: CardExpiryEntry, securityCode: CardSecurityCodeEntry,
        cardholderName: String? = nil
    ) {
        if let cardholderName { self.cardholderName = cardholderName }
        setCardNumber(from: number.editor)
        expiryMonth = expiry.month
        expiryYear = expiry.year
        setSecurityCode(from: securityCode.editor)
    }

    /// Shows this card's validation errors on the three entries (and clears the error of each entry
    /// whose field is valid). Returns whether every one of the three fields is valid. Main thread.
    @MainActor
    @discardableResult
    public func showValidationErrors(
        number: CardNumberEntry, expiry: CardExpiryEntry, securityCode: CardSecurityCodeEntry
    ) -> Bool {
        let errors = (
            validationError(for: .cardNumber), validationError(for: .expiry),
            validationError(for: .securityCode)
        )
        number.showValidationError(errors.0)
        expiry.showValidationError(errors.1)
        securityCode.showValidationError(errors.2)
        return errors.0 == nil && errors.1 == nil && errors.2 == nil
    }
}
