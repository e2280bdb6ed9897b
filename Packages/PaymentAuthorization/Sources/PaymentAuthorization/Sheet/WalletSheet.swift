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
    /// Not possible now, and why (e.g. ``SheetRefusal/noCardSelected``). A presenter chooses the
    /// buyer's words by the reason, never by its ``SheetRefusal/description``.
    case refused(SheetRefusal)

    /// `accepted`, `busy` or `refused: why` (the reason's description).
    public var description: String {
        switch self {
        case .accepted: "accepted"
        case .busy: "busy"
        case .refused(let why): "refused: \(why)"
        }
    }
}

/// Why the sheet refused a buyer's action: a value, so a presenter words it (BuyerText) by case.
public enum SheetRefusal: Sendable, Equatable, CustomStringConvertible {
    /// No sheet is presented (a scripted sheet before presentation).
    case noSheet
    /// The sheet is being presented and not shown yet.
    case sheetNotShown
    /// The sheet has closed, or is closing.
    case sheetClosed
    /// The sheet is showing the delegate's final status.
    case finishing
    /// There is no wallet contact at this index.
    case noContact(Int)
    /// There is no shipping method with this identifier.
    case noShippingMethod(String)
    /// There is no wallet card at this index.
    case noCard(Int)
    /// The merchant does not accept this card (its network or capabilities).
    case cardNotAccepted
    /// The request does not support coupon codes.
    case noCouponCodes
    /// Authorize with no card selected.
    case noCardSelected
    /// Authorize while the delegate's errors block the selected contact.
    case contactHasErrors
    /// Authorize after the delegate's last update failed.
    case lastChangeFailed
    /// Authorize without a contact that provides the required fields.
    case contactRequired

    /// A short English text for logs and terminals (`no card selected`, `no contact 3`); not for buyers.
    public var description: String {
        switch self {
        case .noSheet: "no sheet"
        case .sheetNotShown: "sheet not shown"
        case .sheetClosed: "sheet closed"
        case .finishing: "finishing"
        case .noContact(let index): "no contact \(index)"
        case .noShippingMethod(let id): "no shipping method \(id)"
        case .noCard(let index): "no card \(index)"
        case .cardNotAccepted: "card not accepted"
        case .noCouponCodes: "no coupon codes"
        case .noCardSelected: "no card selected"
        case .contactHasErrors: "contact has errors"
        case .lastChangeFailed: "the last change failed"
        case .contactRequired: "contact required"
        }
    }
}

/// The part of the sheet an error belongs to: where a presenter shows it.
public enum SheetField: Sendable, Hashable, CaseIterable {
    /// The shipping or billing contact.
    case contact
    /// The card.
    case card
    /// The coupon code.
    case coupon
    /// The sheet as a whole (an error that names no part).
    case general
}

/// One error the delegate reported, as a value: what it is and the field it belongs to. A presenter
/// places it by ``field`` and words it by case; ``description`` is for logs and terminals.
public enum SheetError: Sendable, Equatable, CustomStringConvertible {
    /// A ``PaymentRequestError`` (contact, address, coupon, or ``PaymentRequestError/unknown(_:)``).
    case request(PaymentRequestError)
    /// A ``WalletCardError`` (the card failed; another may be tried).
    case card(WalletCardError)
    /// An error of the app's own type, by its description (shown as it is, in ``SheetField/general``).
    case other(String)

    /// The error as the sheet keeps it: a ``PaymentRequestError`` or ``WalletCardError`` as itself,
    /// any other error by its description.
    public init(_ error: any Error) {
        if let error = error as? PaymentRequestError {
            self = .request(error)
        } else if let error = error as? WalletCardError {
            self = .card(error)
        } else {
            self = .other("\(error)")
        }
    }

    /// Where the sheet shows it.
    public var field: SheetField {
        switch self {
        case .request(let error):
            switch error {
            case .shippingContactInvalid, .billingContactInvalid, .shippingAddressUnserviceable: .contact
            case .couponCodeInvalid, .couponCodeExpired: .coupon
            case .unknown: .general
            }
        case .card: .card
        case .other: .general
        }
    }

    /// The error's own short text (`coupon invalid`, `card declined`, the app's description).
    public var description: String {
        switch self {
        case .request(let error): error.description
        case .card(let error): error.description
        case .other(let text): text
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
    /// The wallet's contacts, redacted (``Contact/redacted``: city, state, postal code and country),
    /// as the sheet lists them; their `description` is `Contact(city, country)`.
    public let contacts: [Contact]
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
    /// Errors the delegate reported, each naming the field it belongs to (``SheetError/field``).
    public let errors: [SheetError]

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
