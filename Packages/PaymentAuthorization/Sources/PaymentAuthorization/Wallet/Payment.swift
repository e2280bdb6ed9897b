import CardValidation
import Foundation

/// The card the buyer picked (`PKPaymentMethod`). Before authorization the delegate gets it redacted:
/// only the funding type, no network and no name.
public struct PaymentMethod: Sendable, Equatable, CustomStringConvertible {
    /// `Visa •••• 1111`; nil before authorization.
    public let displayName: String?
    /// The network; nil before authorization.
    public let network: CardBrand?
    /// Credit or debit.
    public let type: WalletCard.Funding

    init(_ card: WalletCard, redacted: Bool) {
        displayName = redacted ? nil : card.displayName
        network = redacted ? nil : card.network
        type = card.funding
    }

    /// `Visa •••• 1111 (credit)`, or `(credit)` when redacted.
    public var description: String { (displayName.map { $0 + " " } ?? "") + "(\(type.rawValue))" }
}

/// What the app sends its processor (`PKPaymentToken`). On Linux the "payment data" is the wallet card
/// itself, for ``WalletPaymentContext`` (or the app) to pay with an EGW card payment.
public struct PaymentToken: Sendable, CustomStringConvertible {
    /// The card, unredacted.
    public let paymentMethod: PaymentMethod
    /// A fresh identifier per authorization.
    public let transactionIdentifier: String
    /// The wallet card to pay with. Its description is masked.
    public let card: CardInput
    /// The request's `applicationData`.
    public let applicationData: Data?

    init(card: WalletCard, transactionIdentifier: String, applicationData: Data?) {
        paymentMethod = PaymentMethod(card, redacted: false)
        self.transactionIdentifier = transactionIdentifier
        self.card = card.card
        self.applicationData = applicationData
    }

    /// `PaymentToken(Visa •••• 1111, id)`.
    public var description: String { "PaymentToken(\(paymentMethod), \(transactionIdentifier))" }
}

/// The authorized payment (`PKPayment`): the token, the contacts with only the fields the request
/// required (Apple's rule; nil when none were required), the shipping method and the final items.
public struct Payment: Sendable, CustomStringConvertible {
    /// The token for the processor.
    public let token: PaymentToken
    /// The billing contact: only the request's `requiredBillingContactFields` (nil: none required).
    /// On Linux the wallet has one contact list, so billing is the selected contact.
    public let billingContact: Contact?
    /// The shipping contact: only the request's `requiredShippingContactFields` (nil: none required).
    public let shippingContact: Contact?
    /// The shipping method chosen.
    public let shippingMethod: ShippingMethod?
    /// The sheet's final summary items, as the buyer saw them (the last is the total).
    public let summaryItems: [PaymentSummaryItem]
    /// The total authorized, in major units (the last summary item).
    public var total: Decimal { summaryItems.last?.amount ?? 0 }
    /// The currency of `total`.
    public let currencyCode: String

    init(
        token: PaymentToken, billingContact: Contact?, shippingContact: Contact?, shippingMethod: ShippingMethod?,
        summaryItems: [PaymentSummaryItem], currencyCode: String
    ) {
        self.token = token
        self.billingContact = billingContact
        self.shippingContact = shippingContact
        self.shippingMethod = shippingMethod
        self.summaryItems = summaryItems
        self.currencyCode = currencyCode
    }

    /// `Payment(token, total currency)`; contacts left out.
    public var description: String {
        "Payment(\(token), \(CurrencyExponent.format(total, currencyCode: currencyCode)))"
    }
}
