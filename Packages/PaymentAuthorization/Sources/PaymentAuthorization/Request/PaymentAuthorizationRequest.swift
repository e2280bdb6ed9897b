import CardValidation
import Foundation

/// What the sheet asks the buyer to pay, as PassKit's `PKPaymentRequest` describes it.
///
/// A value type: the controller copies it at `init` and never shares it. `validationError()` names
/// the first broken rule; the controller refuses (`init?` returns nil) a request that breaks one.
public struct PaymentAuthorizationRequest: Sendable, Equatable {
    /// The merchant's wallet identifier (e.g. `merchant.com.example`). Must not be blank.
    public var merchantIdentifier: String
    /// ISO 3166-1 alpha-2 country of the merchant (two upper-case letters).
    public var countryCode: String
    /// ISO 4217 currency of every amount (three upper-case letters, in ``CurrencyExponent``'s table).
    public var currencyCode: String
    /// The card networks the merchant accepts; non-empty, `.unknown` not allowed.
    public var supportedNetworks: [CardBrand]
    /// How the merchant processes cards; must contain `.threeDSecure` or `.emv`.
    public var merchantCapabilities: MerchantCapabilities
    /// The lines of the sheet; the last one is the total (labelled with the merchant's name).
    public var paymentSummaryItems: [PaymentSummaryItem]
    /// Contact fields the buyer must give for billing.
    public var requiredBillingContactFields: Set<ContactField>
    /// Contact fields the buyer must give for shipping.
    public var requiredShippingContactFields: Set<ContactField>
    /// A prefilled shipping contact (the seed's "prefilled address").
    public var shippingContact: Contact?
    /// The shipping methods offered; the first is selected at start. Identifiers must be unique.
    public var shippingMethods: [ShippingMethod]
    /// How the goods reach the buyer (changes only wording).
    public var shippingType: ShippingType
    /// Whether the sheet offers a coupon-code field.
    public var supportsCouponCode: Bool
    /// A coupon code entered before the sheet opens.
    public var couponCode: String?
    /// Opaque data the app binds to the payment; returned in the token, never shown.
    public var applicationData: Data?

    /// A request with the required fields; everything else empty.
    public init(
        merchantIdentifier: String, countryCode: String, currencyCode: String, supportedNetworks: [CardBrand],
        merchantCapabilities: MerchantCapabilities = [.threeDSecure], paymentSummaryItems: [PaymentSummaryItem]
    ) {
        self.merchantIdentifier = merchantIdentifier
        self.countryCode = countryCode
        self.currencyCode = currencyCode
        self.supportedNetworks = supportedNetworks
        self.merchantCapabilities = merchantCapabilities
        self.paymentSummaryItems = paymentSummaryItems
        self.requiredBillingContactFields = []
        self.requiredShippingContactFields = []
        self.shippingContact = nil
        self.shippingMethods = []
        self.shippingType = .shipping
        self.supportsCouponCode = false
        self.couponCode = nil
        self.applicationData = nil
    }

    /// The first rule this request breaks, or nil when it is usable. Pure; call it from any thread.
    public func validationError() -> PaymentAuthorizationRequestError? {
        if merchantIdentifier.trimmingCharacters(in: .whitespaces).isEmpty { return .init(.merchantIdentifierBlank) }
        if !Self.isUpperLetters(countryCode, count: 2) { return .init(.countryCodeInvalid) }
        guard Self.isUpperLetters(currencyCode, count: 3), let exponent = CurrencyExponent.of(currencyCode) else {
            return .init(.currencyUnknown)
        }
        if supportedNetworks.isEmpty { return .init(.networksEmpty) }
        if supportedNetworks.contains(.unknown) { return .init(.networkUnknown) }
        if merchantCapabilities.isDisjoint(with: [.threeDSecure, .emv]) { return .init(.capabilityMissing) }
        if let problem = Self.summaryItemsProblem(paymentSummaryItems, exponent: exponent) { return problem }
        var seen = Set<String>()
        for method in shippingMethods {
            if !seen.insert(method.identifier).inserted { return .init(.shippingMethodIdentifierDuplicated) }
            if method.label.trimmingCharacters(in: .whitespaces).isEmpty { return .init(.itemUnlabelled) }
            if method.amount < 0 { return .init(.amountNegative) }
            if !CurrencyExponent.fits(method.amount, exponent: exponent) { return .init(.tooManyFractionDigits) }
        }
        return nil
    }

    /// The summary-item rules: the last is a final total above zero, every line labelled, pending
    /// lines zero, no more fraction digits than `exponent`.
    private static func summaryItemsProblem(
        _ items: [PaymentSummaryItem], exponent: Int
    ) -> PaymentAuthorizationRequestError? {
        guard let total = items.last else { return .init(.summaryItemsEmpty) }
        for item in items {
            if item.label.trimmingCharacters(in: .whitespaces).isEmpty { return .init(.itemUnlabelled) }
            if item.type == .pending && item.amount != 0 { return .init(.pendingItemNotZero) }
            if !CurrencyExponent.fits(item.amount, exponent: exponent) { return .init(.tooManyFractionDigits) }
        }
        if total.type != .final { return .init(.totalNotFinal) }
        if total.amount < 0 { return .init(.amountNegative) }
        if total.amount == 0 { return .init(.totalZero) }
        return nil
    }

    private static func isUpperLetters(_ text: String, count: Int) -> Bool {
        text.unicodeScalars.count == count && text.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }
    }
}

/// The rule a ``PaymentAuthorizationRequest`` (or a delegate's update) breaks.
public struct PaymentAuthorizationRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broken rules, one case each.
    public enum Rule: String, Sendable, CaseIterable {
        /// `merchantIdentifier` is blank.
        case merchantIdentifierBlank
        /// `countryCode` is not two upper-case letters.
        case countryCodeInvalid
        /// `currencyCode` is not three upper-case letters of the ISO 4217 table.
        case currencyUnknown
        /// `supportedNetworks` is empty.
        case networksEmpty
        /// `supportedNetworks` contains `.unknown`.
        case networkUnknown
        /// `merchantCapabilities` has neither 3-D Secure nor EMV.
        case capabilityMissing
        /// There are no summary items (the last one is the total).
        case summaryItemsEmpty
        /// The total (the last item) is pending.
        case totalNotFinal
        /// The total, or a shipping method's amount, is below zero.
        case amountNegative
        /// The total is zero: there is nothing to pay (a card payment of 0 minor units is refused).
        case totalZero
        /// An item or a shipping method has a blank label.
        case itemUnlabelled
        /// A pending item has an amount other than zero.
        case pendingItemNotZero
        /// An amount has more fraction digits than the currency has (EUR 2, JPY 0, BHD 3).
        case tooManyFractionDigits
        /// Two shipping methods share an identifier.
        case shippingMethodIdentifierDuplicated
    }

    /// The rule broken.
    public let rule: Rule

    init(_ rule: Rule) { self.rule = rule }

    /// `invalid payment request: <rule>`.
    public var description: String { "invalid payment request: \(rule.rawValue)" }
}
