import BuyerText
import PaymentAuthorization

/// The buyer's words for what the sheet reports: the last step, from BuyerText, chosen by value.
enum SheetText {
    /// The buyer's text for one of `WalletSheet.errors`, shown in the error's own `field`. An error
    /// of the app's own type (``SheetError/other(_:)``, ``PaymentRequestError/unknown(_:)``) carries
    /// the app's words, shown as they are.
    static func words(for error: SheetError, text: BuyerText = .current) -> String {
        switch error {
        case .request(.couponCodeInvalid): text["sheet.error.coupon.invalid"]
        case .request(.couponCodeExpired): text["sheet.error.coupon.expired"]
        case .request(.shippingAddressUnserviceable): text["sheet.error.contact.unserviceable"]
        case .request(.shippingContactInvalid): text["sheet.error.contact.invalid"]
        case .request(.billingContactInvalid): text["sheet.error.billing.invalid"]
        case .request(.unknown(let words)): words
        case .card(.declined): text["sheet.error.card.declined"]
        case .card(.brandNotAccepted): text["sheet.error.card.brandNotAccepted"]
        case .card(.authenticationFailed): text["sheet.error.card.authenticationFailed"]
        case .other(let words): words
        }
    }

    /// The buyer's text for a refused or busy action (nil: accepted), by the refusal's reason.
    static func reply(_ reply: SheetBuyerReply, text: BuyerText = .current) -> String? {
        switch reply {
        case .accepted: nil
        case .busy: text["sheet.refused.busy"]
        case .refused(let reason):
            switch reason {
            case .noCardSelected: text["sheet.refused.noCard"]
            case .contactHasErrors, .contactRequired: text["sheet.refused.contact"]
            case .lastChangeFailed: text["sheet.refused.lastChange"]
            case .cardNotAccepted: text["sheet.refused.cardNotAccepted"]
            case .noSheet, .sheetNotShown, .sheetClosed, .finishing, .noContact, .noShippingMethod, .noCard,
                .noCouponCodes:
                text["sheet.refused.unavailable"]
            }
        }
    }
}
