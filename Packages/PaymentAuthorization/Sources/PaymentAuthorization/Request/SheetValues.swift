import CardValidation
import Foundation

/// One line of the sheet (`PKPaymentSummaryItem`). The last item of a list is the total.
public struct PaymentSummaryItem: Sendable, Equatable, CustomStringConvertible {
    /// Whether the amount is known.
    public enum ItemType: String, Sendable, Equatable {
        /// The amount is final.
        case final
        /// Not known yet (e.g. a taxi fare); its amount must be zero and it cannot be the total.
        case pending
    }

    /// What the line is for (the total's label is the merchant's name).
    public var label: String
    /// The amount in major units of the request's currency (e.g. `12.50`).
    public var amount: Decimal
    /// Final or pending.
    public var type: ItemType

    /// A line; `.final` unless said otherwise.
    public init(label: String, amount: Decimal, type: ItemType = .final) {
        self.label = label
        self.amount = amount
        self.type = type
    }

    /// `label amount` (`pending` for a pending line).
    public var description: String { type == .pending ? "\(label) pending" : "\(label) \(amount)" }
}

/// A shipping method offered on the sheet (`PKShippingMethod`).
public struct ShippingMethod: Sendable, Equatable, CustomStringConvertible {
    /// The app's identifier, unique within a request.
    public var identifier: String
    /// What the buyer reads.
    public var label: String
    /// What it costs, in major units.
    public var amount: Decimal
    /// Optional extra text (e.g. "2-3 days").
    public var detail: String?

    /// A method.
    public init(identifier: String, label: String, amount: Decimal, detail: String? = nil) {
        self.identifier = identifier
        self.label = label
        self.amount = amount
        self.detail = detail
    }

    /// `identifier (label amount)`.
    public var description: String { "\(identifier) (\(label) \(amount))" }
}

/// How the merchant processes card payments (`PKMerchantCapability`).
public struct MerchantCapabilities: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates the set from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// 3-D Secure (the EGW card flow). Required unless `.emv` is present.
    public static let threeDSecure = MerchantCapabilities(rawValue: 1 << 0)
    /// EMV.
    public static let emv = MerchantCapabilities(rawValue: 1 << 1)
    /// Credit cards accepted. With neither `.credit` nor `.debit`, both are.
    public static let credit = MerchantCapabilities(rawValue: 1 << 2)
    /// Debit cards accepted.
    public static let debit = MerchantCapabilities(rawValue: 1 << 3)
}

/// A contact field a request can require (`PKContactField`).
public enum ContactField: String, Sendable, Hashable, CaseIterable {
    /// Name.
    case name
    /// Postal address.
    case postalAddress
    /// E-mail address.
    case emailAddress
    /// Phone number.
    case phoneNumber
}

/// Wording of the shipping part of the sheet (`PKShippingType`).
public enum ShippingType: String, Sendable, Equatable {
    /// Shipped to the buyer.
    case shipping
    /// Delivered by the merchant.
    case delivery
    /// Picked up at a store.
    case storePickup
    /// The buyer is picked up (a ride).
    case servicePickup
}

/// A contact: name, postal address, e-mail, phone (`PKContact`).
///
/// Before authorization the delegate sees only ``redacted``: city, state, postal code and country.
/// `description` shows the city and country only, so a contact line never lands in a log whole.
public struct Contact: Sendable, Equatable, CustomStringConvertible {
    /// The person's name.
    public var name: String?
    /// Street and number.
    public var street: String?
    /// City.
    public var city: String?
    /// State or region.
    public var state: String?
    /// Postal code.
    public var postalCode: String?
    /// ISO 3166-1 alpha-2 country code.
    public var countryCode: String?
    /// E-mail address.
    public var emailAddress: String?
    /// Phone number.
    public var phoneNumber: String?

    /// A contact; every field optional.
    public init(
        name: String? = nil, street: String? = nil, city: String? = nil, state: String? = nil,
        postalCode: String? = nil, countryCode: String? = nil, emailAddress: String? = nil, phoneNumber: String? = nil
    ) {
        self.name = name
        self.street = street
        self.city = city
        self.state = state
        self.postalCode = postalCode
        self.countryCode = countryCode
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
    }

    /// What PassKit hands the delegate before authorization: city, state, postal code and country.
    public var redacted: Contact {
        Contact(city: city, state: state, postalCode: postalCode, countryCode: countryCode)
    }

    /// Only the fields a request asked for (Apple populates only the requested `PKContactField`s):
    /// `.name` keeps the name, `.postalAddress` the street, city, state, postal code and country,
    /// `.emailAddress` and `.phoneNumber` their field. Nil when nothing was asked for.
    public func restricted(to fields: Set<ContactField>) -> Contact? {
        guard !fields.isEmpty else { return nil }
        var kept = Contact()
        if fields.contains(.name) { kept.name = name }
        if fields.contains(.postalAddress) {
            kept.street = street
            kept.city = city
            kept.state = state
            kept.postalCode = postalCode
            kept.countryCode = countryCode
        }
        if fields.contains(.emailAddress) { kept.emailAddress = emailAddress }
        if fields.contains(.phoneNumber) { kept.phoneNumber = phoneNumber }
        return kept
    }

    /// Whether this contact has every field in `fields`.
    public func provides(_ fields: Set<ContactField>) -> Bool {
        fields.allSatisfy { field in
            switch field {
            case .name: Self.present(name)
            case .postalAddress: Self.present(street) && Self.present(city) && Self.present(countryCode)
            case .emailAddress: Self.present(emailAddress)
            case .phoneNumber: Self.present(phoneNumber)
            }
        }
    }

    private static func present(_ text: String?) -> Bool {
        !(text ?? "").trimmingCharacters(in: .whitespaces).isEmpty
    }

    /// `Contact(city, country)`; the other fields are left out.
    public var description: String { "Contact(\(city ?? "-"), \(countryCode ?? "-"))" }
}

/// ISO 4217 minor-unit exponents (the number of fraction digits a currency has).
public enum CurrencyExponent {
    /// Currencies with no minor unit.
    static let zero: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF",
        "XOF", "XPF",
    ]
    /// Currencies with three fraction digits.
    static let three: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]
    /// Currencies with four fraction digits.
    static let four: Set<String> = ["CLF", "UYW"]
    /// Currencies with two fraction digits (the usual case), listed so an unknown code is refused.
    static let two: Set<String> = [
        "AED", "ARS", "AUD", "BGN", "BRL", "CAD", "CHF", "CNY", "CZK", "DKK", "EGP", "EUR", "GBP", "GEL", "HKD",
        "HUF", "IDR", "ILS", "INR", "KZT", "MAD", "MDL", "MXN", "MYR", "NOK", "NZD", "PEN", "PHP", "PLN", "QAR",
        "RON", "RSD", "RUB", "SAR", "SEK", "SGD", "THB", "TRY", "TWD", "UAH", "USD", "ZAR",
    ]

    /// The exponent of `currencyCode`, or nil when the table does not know it.
    public static func of(_ currencyCode: String) -> Int? {
        if two.contains(currencyCode) { return 2 }
        if zero.contains(currencyCode) { return 0 }
        if three.contains(currencyCode) { return 3 }
        if four.contains(currencyCode) { return 4 }
        return nil
    }

    /// `amount` with exactly the currency's fraction digits and its code, e.g. `12.50 EUR`, `1500 JPY`
    /// (rounded half up when it has more; an unknown currency gets two).
    public static func format(_ amount: Decimal, currencyCode: String) -> String {
        let exponent = of(currencyCode) ?? 2
        var value = amount
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, exponent, .plain)
        var text = "\(rounded)"
        if exponent > 0 {
            if !text.contains(".") { text += "." }
            let fraction = text.split(separator: ".", omittingEmptySubsequences: false).last?.count ?? 0
            text += String(repeating: "0", count: max(0, exponent - fraction))
        }
        return "\(text) \(currencyCode)"
    }

    /// Whether `amount` has at most `exponent` fraction digits.
    public static func fits(_ amount: Decimal, exponent: Int) -> Bool {
        minorUnits(amount, exponent: exponent) != nil
    }

    /// `amount` in minor units (`12.50` EUR is 1250), or nil when it has more fraction digits than
    /// `exponent` or does not fit an `Int`.
    public static func minorUnits(_ amount: Decimal, exponent: Int) -> Int? {
        var scaled = amount
        for _ in 0..<exponent { scaled *= 10 }
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .plain)
        guard rounded == scaled, abs(rounded) < Decimal(Int64.max / 2) else { return nil }
        return NSDecimalNumber(decimal: rounded).intValue
    }
}
