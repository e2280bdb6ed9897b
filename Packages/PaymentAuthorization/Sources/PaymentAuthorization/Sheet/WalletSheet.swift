import Foundation

/// What a buyer can do on the sheet.
public enum SheetBuyerAction: Sendable, Equatable, CustomStringConvertible {
    /// Pick the wallet contact at this index (0-based) as the shipping (and billing) contact.
    case selectContact(Int)
    /// Pick the shipping method with this identifier.
    case selectShippingMethod(String)
    /// Pick the wallet card at this index (0-based).
    case selectCard(Int)
    /// Enter a coupon code.
    case enterCouponCode(String)
    /// Authorize the payment (the buyer has authenticated).
    case authorize
    /// Close the sheet without paying.
    case cancel

    /// e.g. `contact 0`, `method express`, `authorize`.
    public var description: String {
        switch self {
        case .selectContact(let index): "contact \(index)"
        case .selectShippingMethod(let id): "method \(id)"
        case .selectCard(let index): "card \(index)"
        case .enterCouponCode(let code): "coupon \(code)"
        case .authorize: "authorize"
        case .cancel: "cancel"
        }
    }
}

/// The sheet's answer to a buyer's action, given at once.
public enum SheetBuyerReply: Sendable, Equatable, CustomStringConvertible {
    /// Taken; the delegate is being asked (or the sheet is closing).
    case accepted
    /// A delegate call is outstanding: the action is refused, not queued.
    case busy
    /// Not possible now, and why (e.g. `no card selected`).
    case refused(String)

    /// `accepted`, `busy` or `refused: why`.
    public var description: String {
        switch self {
        case .accepted: "accepted"
        case .busy: "busy"
        case .refused(let why): "refused: \(why)"
        }
    }
}

/// One rendering of the sheet: what a presenter shows. Card data appears only as `Visa •••• 1111`;
/// contacts only as city and country.
public struct WalletSheet: Sendable, CustomStringConvertible {
    /// What the sheet is doing.
    public enum State: Sendable, Equatable, CustomStringConvertible {
        /// Waiting for the buyer.
        case ready
        /// Waiting for the delegate's answer to a change (the call's name).
        case busy(String)
        /// Waiting for the delegate's answer to the authorization ("Processing").
        case processing
        /// Showing the status the delegate answered.
        case showingStatus(PaymentAuthorizationStatus)
        /// Finished; being dismissed.
        case finished

        /// `ready`, `busy(didSelectShippingMethod)`, `processing`, `status(success)`, `finished`.
        public var description: String {
            switch self {
            case .ready: "ready"
            case .busy(let call): "busy(\(call))"
            case .processing: "processing"
            case .showingStatus(let status): "status(\(status))"
            case .finished: "finished"
            }
        }
    }

    /// What the sheet is doing.
    public let state: State
    /// The currency code.
    public let currencyCode: String
    /// The summary items; the last is the total.
    public let summaryItems: [PaymentSummaryItem]
    /// The shipping methods.
    public let shippingMethods: [ShippingMethod]
    /// The selected method's identifier.
    public let selectedShippingMethod: String?
    /// The wallet's contacts as the sheet lists them (`Contact(city, country)`).
    public let contacts: [String]
    /// The selected contact's index.
    public let selectedContact: Int?
    /// The wallet's cards (`Visa •••• 1111`), with whether the merchant accepts each.
    public let cards: [(displayName: String, accepted: Bool)]
    /// The selected card's index.
    public let selectedCard: Int?
    /// Whether a coupon field is shown, and the code applied.
    public let supportsCouponCode: Bool
    /// The coupon code applied.
    public let couponCode: String?
    /// Errors the delegate reported, shown to the buyer.
    public let errors: [String]

    /// The total (the last summary item's amount).
    public var total: Decimal { summaryItems.last?.amount ?? 0 }

    /// A multi-line rendering for a terminal.
    public var description: String {
        let money = { (amount: Decimal) in CurrencyExponent.format(amount, currencyCode: currencyCode) }
        var lines = ["sheet: \(state)  total \(money(total))"]
        for item in summaryItems.dropLast() {
            lines.append("  \(item.label) \(item.type == .pending ? "pending" : money(item.amount))")
        }
        if let last = summaryItems.last { lines.append("  = \(last.label) \(money(last.amount))") }
        for method in shippingMethods {
            let mark = method.identifier == selectedShippingMethod ? "x" : " "
            lines.append("  [\(mark)] \(method.identifier): \(method.label) \(money(method.amount))")
        }
        for (index, contact) in contacts.enumerated() {
            lines.append("  contact \(index)\(index == selectedContact ? " *" : ""): \(contact)")
        }
        for (index, card) in cards.enumerated() {
            lines.append(
                "  card \(index)\(index == selectedCard ? " *" : ""): \(card.displayName)"
                    + (card.accepted ? "" : " (not accepted)"))
        }
        if supportsCouponCode { lines.append("  coupon: \(couponCode ?? "-")") }
        for error in errors { lines.append("  error: \(error)") }
        return lines.joined(separator: "\n")
    }
}
