/// The four fields of a card form, as ``CardInput`` validates them.
///
/// Raw values are fixed by the SDK contract and stable across versions.
public enum CardField: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// ``CardInput/cardholderName``.
    case cardholderName = 0
    /// ``CardInput/cardNumber``.
    case cardNumber = 1
    /// ``CardInput/expiryMonth`` and ``CardInput/expiryYear`` together.
    case expiry = 2
    /// ``CardInput/securityCode``.
    case securityCode = 3

    /// The case name, e.g. `"cardNumber"`; stable, suitable for logs and JSON.
    public var description: String {
        switch self {
        case .cardholderName: "cardholderName"
        case .cardNumber: "cardNumber"
        case .expiry: "expiry"
        case .securityCode: "securityCode"
        }
    }

    /// The field as a sentence names it, e.g. `"card number"`.
    public var displayName: String {
        switch self {
        case .cardholderName: "cardholder name"
        case .cardNumber: "card number"
        case .expiry: "expiry date"
        case .securityCode: "security code"
        }
    }
}

/// Where a field stands while the buyer is still typing, for live UIs.
///
/// As in Stripe's card element, a field that more typing could still make
/// valid is `.incomplete`, not `.invalid` (`"4242"` is incomplete), so a form
/// can wait until the field loses focus before it shows an error. A field
/// that no further typing can fix is `.invalid` at once (a letter in the
/// number, month `13`, a card that has expired).
public enum FieldState: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The field passes validation.
    case valid
    /// Empty or partial: not valid yet, but more typing could make it valid.
    case incomplete
    /// Wrong in a way more typing cannot fix.
    case invalid

    /// `"valid"`, `"incomplete"` or `"invalid"`.
    public var description: String {
        switch self {
        case .valid: "valid"
        case .incomplete: "incomplete"
        case .invalid: "invalid"
        }
    }
}
