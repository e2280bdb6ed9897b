import BuyerText
import PaymentAuthorization

/// Where the sheet shows a delegate's error, and in which words.
enum SheetErrorPlacement: Equatable {
    case contact, card, coupon, general

    /// The section and the buyer's text for one of `WalletSheet.errors` (the errors' descriptions: see
    /// `PaymentRequestError` and `WalletCardError`); an error the table does not know is shown as it is,
    /// in the general place.
    static func place(_ error: String, text: BuyerText = .current) -> (SheetErrorPlacement, String) {
        let known: [(String, SheetErrorPlacement, String)] = [
            ("coupon invalid", .coupon, "sheet.error.coupon.invalid"),
            ("coupon expired", .coupon, "sheet.error.coupon.expired"),
            ("address unserviceable", .contact, "sheet.error.contact.unserviceable"),
            ("shipping contact invalid", .contact, "sheet.error.contact.invalid"),
            ("billing contact invalid", .contact, "sheet.error.billing.invalid"),
            ("card declined", .card, "sheet.error.card.declined"),
            ("card brand not accepted", .card, "sheet.error.card.brandNotAccepted"),
            ("authentication failed", .card, "sheet.error.card.authenticationFailed"),
        ]
        for (prefix, placement, key) in known where error.hasPrefix(prefix) {
            return (placement, text[key])
        }
        return (.general, error)
    }

    /// The buyer's text for a refused or busy action.
    static func reply(_ reply: SheetBuyerReply, text: BuyerText = .current) -> String? {
        switch reply {
        case .accepted: nil
        case .busy: text["sheet.refused.busy"]
        case .refused("no card selected"): text["sheet.refused.noCard"]
        case .refused("contact has errors"), .refused("contact required"): text["sheet.refused.contact"]
        case .refused(let why): why
        }
    }
}
