/// A card number the sandbox gives a fixed behaviour (GATEWAY.md, "Test cards").
///
/// Any future expiry, any cardholder name and any 3-digit security code (4 digits for Amex)
/// work with every test card. A Luhn-valid number not in the table completes frictionless (`Y`).
public struct SandboxTestCard: Sendable, Equatable, CustomStringConvertible {
    /// A short stable name (`"mastercard-challenge"`), for REPL completion and scripts.
    public let name: String
    /// The card number, digits only.
    public let number: String
    /// The brand, lower case (`visa`, `mastercard`, `maestro`, `discover`, `amex`).
    public let brand: String
    /// What the sandbox does with it, in words.
    public let behaviour: String

    let outcome: CardBehaviour

    /// `name (brand •••• last4): behaviour` — never the whole number.
    public var description: String { "\(name) (\(brand) •••• \(number.suffix(4))): \(behaviour)" }
}

/// What a card session does for a card, decided at creation from the number.
enum CardBehaviour: Sendable, Equatable {
    /// 3-D Secure without a challenge ending in this `transStatus` (Y, A, U complete; N, R fail).
    case frictionless(transStatus: String)
    /// 3-D Secure with a challenge (`1234` passes).
    case challenge
    /// No 3-D Secure: the session is `COMPLETED` at creation.
    case noThreeDS
    /// Declined at creation: the session is `FAILED`.
    case declined
    /// `422 CARD_BRAND_NOT_ACCEPTED` at creation (the store does not take Amex).
    case brandNotAccepted

    /// The behaviour for a (Luhn-valid) card number given as ASCII digits, compared byte by byte
    /// (the number is never made a `String`).
    static func of(number digits: UnsafeBufferPointer<UInt8>) -> CardBehaviour {
        if let card = SandboxTestCard.all.first(where: { $0.number.utf8.elementsEqual(digits) }) { return card.outcome }
        let amexPrefix = digits.count == 15 && digits[0] == UInt8(ascii: "3")
        if amexPrefix, digits[1] == UInt8(ascii: "4") || digits[1] == UInt8(ascii: "7") { return .brandNotAccepted }
        return .frictionless(transStatus: "Y")
    }
}

extension SandboxTestCard {
    /// The table of GATEWAY.md, then two additions of this sandbox for the `transStatus`
    /// values the table does not reach (`U` and a frictionless `N`). Numbers are the
    /// networks' published test numbers (Visa, Mastercard and Discover developer pages, the
    /// Adyen and Stripe test-card lists).
    static let all: [SandboxTestCard] = [
        SandboxTestCard(
            name: "visa-frictionless", number: "4111111111111111", brand: "visa",
            behaviour: "3-D Secure frictionless Y -> COMPLETED", outcome: .frictionless(transStatus: "Y")),
        SandboxTestCard(
            name: "mastercard-challenge", number: "5555555555554444", brand: "mastercard",
            behaviour: "challenge; code 1234 -> COMPLETED, any other -> FAILED (N)", outcome: .challenge),
        SandboxTestCard(
            name: "maestro-challenge", number: "6759649826438453", brand: "maestro",
            behaviour: "challenge; code 1234 -> COMPLETED, any other -> FAILED (N)", outcome: .challenge),
        SandboxTestCard(
            name: "visa-attempted", number: "4000000000003063", brand: "visa",
            behaviour: "frictionless A (attempted) -> COMPLETED", outcome: .frictionless(transStatus: "A")),
        SandboxTestCard(
            name: "mastercard-no-3ds", number: "5200828282828210", brand: "mastercard",
            behaviour: "no 3-D Secure: COMPLETED at creation", outcome: .noThreeDS),
        SandboxTestCard(
            name: "visa-declined", number: "4000000000000002", brand: "visa",
            behaviour: "declined at creation -> FAILED", outcome: .declined),
        SandboxTestCard(
            name: "discover-rejected", number: "6011111111111117", brand: "discover",
            behaviour: "authentication rejected R -> FAILED", outcome: .frictionless(transStatus: "R")),
        SandboxTestCard(
            name: "amex-not-accepted", number: "378282246310005", brand: "amex",
            behaviour: "422 CARD_BRAND_NOT_ACCEPTED at creation", outcome: .brandNotAccepted),
        SandboxTestCard(
            name: "visa-3ds-unavailable", number: "4000000000003105", brand: "visa",
            behaviour: "3-D Secure could not be performed U -> COMPLETED (the gateway decides)",
            outcome: .frictionless(transStatus: "U")),
        SandboxTestCard(
            name: "visa-not-authenticated", number: "4000000000003204", brand: "visa",
            behaviour: "frictionless N (not authenticated) -> FAILED", outcome: .frictionless(transStatus: "N")),
    ]
}
