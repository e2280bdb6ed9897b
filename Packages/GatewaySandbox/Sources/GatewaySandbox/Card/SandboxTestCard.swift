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
    /// 3-D Secure with a 3DS Method whose page posts back after `timing`: frictionless `Y` when the
    /// method completed and the browser data is complete, a challenge otherwise.
    case method(MethodTiming)

    /// The behaviour for a (Luhn-valid) card number given as ASCII digits, compared byte by byte
    /// (the number is never made a `String`).
    static func of(number digits: UnsafeBufferPointer<UInt8>) -> CardBehaviour {
        if let card = SandboxTestCard.all.first(where: { $0.number.utf8.elementsEqual(digits) }) { return card.outcome }
        let amexPrefix = digits.count == 15 && digits[0] == UInt8(ascii: "3")
        if amexPrefix, digits[1] == UInt8(ascii: "4") || digits[1] == UInt8(ascii: "7") { return .brandNotAccepted }
        return .frictionless(transStatus: "Y")
    }
}

/// When the sandbox issuer's 3DS Method page posts back to the method notification URL.
enum MethodTiming: Sendable, Equatable {
    /// At once.
    case fast
    /// After 12 s: past EMV's 10 s, so the requestor cuts it and says `N`.
    case slow
    /// Never: the page loads and waits.
    case never

    /// How long the method page takes to answer (and so to post back).
    var delay: Duration {
        switch self {
        case .fast, .never: .zero
        case .slow: .seconds(12)
        }
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
        SandboxTestCard(
            name: "visa-method-fast", number: "4000000000002107", brand: "visa",
            behaviour: "3DS Method posting back at once; frictionless Y when it completed and the browser data is "
                + "complete, else a challenge", outcome: .method(.fast)),
        SandboxTestCard(
            name: "visa-method-slow", number: "4000000000002206", brand: "visa",
            behaviour: "3DS Method posting back after 12 s (cut at 10 s: N); then a challenge",
            outcome: .method(.slow)),
        SandboxTestCard(
            name: "visa-method-never", number: "4000000000002305", brand: "visa",
            behaviour: "3DS Method that never posts back (N); then a challenge", outcome: .method(.never)),
    ]
}
