/// The card networks the SDK recognises, for display and input formatting only.
///
/// The brand is derived from the leading digits of the card number (see
/// ``detect(_:)`` and ``iinRanges``). It is never sent to the gateway and never a
/// reason to reject a card: whether a store accepts a brand is decided by the
/// gateway. Cards of networks not listed here (JCB, Diners Club, UnionPay, Mir,
/// ...) are `.unknown`, never a guess at one of these.
///
/// Raw values are fixed by the SDK contract and stable across versions.
public enum CardBrand: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// Not one of the brands below, or not yet decidable from what was typed.
    case unknown = 0
    /// Visa (IIN 4).
    case visa = 1
    /// Mastercard (IIN 51–55 and 2221–2720).
    case mastercard = 2
    /// American Express (IIN 34, 37).
    case amex = 3
    /// Maestro (IIN 5018, 5020, 5038, 5893, 56–58, 6304, 6759, 6761–6763, 67).
    case maestro = 4
    /// Discover (IIN 6011, 644–649, 65).
    case discover = 5

    /// The case name, e.g. `"visa"`; stable, suitable for logs and JSON.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .visa: "visa"
        case .mastercard: "mastercard"
        case .amex: "amex"
        case .maestro: "maestro"
        case .discover: "discover"
        }
    }

    /// The network's name as a buyer knows it, e.g. `"American Express"`.
    public var displayName: String {
        switch self {
        case .unknown: "Unknown"
        case .visa: "Visa"
        case .mastercard: "Mastercard"
        case .amex: "American Express"
        case .maestro: "Maestro"
        case .discover: "Discover"
        }
    }

    /// The most digits a card number of this brand can have: Amex 15,
    /// Mastercard 16, every other brand (and `.unknown`) 19.
    ///
    /// Read from the brand's rows of ``iinRanges`` (the longest of their
    /// ``IINRange/panLengths``); `.unknown` has no row and takes 19.
    ///
    /// The number editor stops accepting digits here. Validation itself stays
    /// brand-agnostic (12 to 19 digits and Luhn), so this never rejects a card.
    public var maximumNumberLength: Int { IINTable.layouts[rawValue].maximumNumberLength }

    /// The most digits the security-code editor accepts for this brand: 4 for
    /// Amex and for `.unknown` (which may still turn out to be Amex), 3 otherwise.
    ///
    /// Read from the brand's rows of ``iinRanges``. Validation itself accepts 3
    /// or 4 digits for every brand.
    public var securityCodeLength: Int { IINTable.layouts[rawValue].securityCodeLength }

    /// The sizes of the digit groups the number is displayed in: `[4, 6, 5]`
    /// for Amex, `[4, 4, 4, 4, 3]` for every other brand (16 digits as
    /// 4-4-4-4, longer numbers continue with a fifth group).
    ///
    /// Read from the brand's rows of ``iinRanges``. Digits beyond the last
    /// group (only possible past the brand's maximum length) are appended to
    /// the last group.
    public var numberGrouping: [Int] { IINTable.layouts[rawValue].numberGrouping }

    /// The brand of a card number, read from its leading digits as typed.
    ///
    /// - Spaces and dashes (Unicode categories Zs and Pd) are skipped.
    /// - Works on partial input: `"4"` is `.visa`. A prefix that could still
    ///   become either of two brands in ``iinRanges`` is `.unknown` until one more
    ///   digit decides (`"5"` may be Mastercard or Maestro; `"51"` is Mastercard).
    ///   A prefix that only one brand's ranges can still complete is that brand
    ///   (`"2"` is Mastercard, `"3"` is Amex); one that no range can complete is
    ///   `.unknown` (`"35"`, a JCB prefix).
    /// - The most specific range wins: with overlapping ranges, the one with the
    ///   most digits decides.
    /// - Only the leading digits are read (as many as the longest range has,
    ///   four); a character other than a digit, space or dash among them makes
    ///   the result `.unknown`; what follows them is not examined.
    ///
    /// Pure and thread-safe; allocation-free for native strings.
    @inlinable
    public static func detect(_ number: some StringProtocol) -> CardBrand {
        // The fast path answers a raw value, or -1 when it met a non-ASCII
        // byte (a Unicode space or dash needs the scalar path).
        let raw = number.utf8.withContiguousStorageIfAvailable { IINTable.detectRaw(utf8: $0) } ?? -1
        if raw >= 0, let brand = CardBrand(rawValue: raw) { return brand }
        return IINTable.detect(scalars: number.unicodeScalars)
    }
}

/// A range of issuer identification numbers (the leading digits of a card
/// number) that belongs to one brand, with what numbers in the range look
/// like: their lengths, their security code's length and how they are grouped
/// for display (as Stripe's BIN ranges carry their PAN length).
///
/// `low...high` compares the first `digits` digits of a card number, so
/// `IINRange(low: 2221, high: 2720, digits: 4, brand: .mastercard, panLengths: [16])`
/// covers every number that starts with 2221 up to every number that starts
/// with 2720.
public struct IINRange: Sendable, Equatable, CustomStringConvertible {
    /// The lowest prefix in the range, as a number of exactly `digits` digits.
    public let low: Int
    /// The highest prefix in the range (inclusive), exactly `digits` digits.
    public let high: Int
    /// How many leading digits of a card number the range compares.
    public let digits: Int
    /// The brand every number in the range belongs to.
    public let brand: CardBrand
    /// The lengths a card number in the range can have, ascending (e.g.
    /// `[13, 16, 19]` for Visa). The longest is where the number editor stops.
    public let panLengths: [Int]
    /// How many digits the security code of a card in the range has (the
    /// security-code editor's limit; validation accepts 3 or 4 for every brand).
    public let securityCodeLength: Int
    /// The sizes of the digit groups a number in the range is displayed in,
    /// e.g. `[4, 6, 5]`.
    public let numberGrouping: [Int]

    /// A range; `low` and `high` must both have exactly `digits` digits and
    /// `low <= high` (the built-in table is checked by the tests). The layout
    /// defaults to that of a number no range recognises: 12 to 19 digits, a
    /// 4-digit code, groups of 4-4-4-4-3.
    public init(
        low: Int, high: Int, digits: Int, brand: CardBrand, panLengths: [Int] = Array(12...19),
        securityCodeLength: Int = 4, numberGrouping: [Int] = [4, 4, 4, 4, 3]
    ) {
        self.low = low
        self.high = high
        self.digits = digits
        self.brand = brand
        self.panLengths = panLengths
        self.securityCodeLength = securityCodeLength
        self.numberGrouping = numberGrouping
    }

    /// `"2221-2720 mastercard"` or `"4 visa"`.
    public var description: String {
        low == high ? "\(low) \(brand)" : "\(low)-\(high) \(brand)"
    }
}

extension CardBrand {
    /// The IIN table brand detection is computed from.
    ///
    /// Sources: the project's issue 2, which fixes the ranges to support; the
    /// IIN table of Wikipedia's "Payment card number" article (ISO/IEC 7812
    /// registrations: Maestro 5018, 5020, 5038, 5893, 6304, 6759, 6761–6763);
    /// Braintree `credit-card-type`, `src/lib/card-types.ts` (Visa 4,
    /// Mastercard 51–55 and 2221–2720, Amex 34/37, Discover 6011/644–649/65).
    ///
    /// | brand | ranges | lengths | code | groups |
    /// |---|---|---|---|---|
    /// | Visa | 4 | 13, 16, 19 | 3 | 4-4-4-4-3 |
    /// | Mastercard | 51–55, 2221–2720 | 16 | 3 | 4-4-4-4-3 |
    /// | American Express | 34, 37 | 15 | 4 | 4-6-5 |
    /// | Discover | 6011, 644–649, 65 | 16–19 | 3 | 4-4-4-4-3 |
    /// | Maestro | 5018, 5020, 5038, 5893, 56–58, 6304, 6759, 6761–6763, 67 | 12–19 | 3 | 4-4-4-4-3 |
    ///
    /// Each row carries its lengths, code length and groups; a brand's
    /// ``maximumNumberLength``, ``securityCodeLength`` and ``numberGrouping``
    /// are read from its rows. A number no row recognises (`.unknown`) takes
    /// 19 digits, a 4-digit code (it may still be Amex) and 4-4-4-4-3.
    ///
    /// Deliberately absent: Maestro's wider 50–69 claims and Discover's
    /// co-branded 622126–622925 (both overlap UnionPay, Elo, RuPay and others:
    /// a wrong logo is worse than none); those numbers are `.unknown`.
    public static let iinRanges: [IINRange] = {
        // Lengths: Wikipedia's IIN table (Visa 13, 16, 19; Discover 16-19;
        // Maestro 12-19) and Braintree's card-types.ts (Mastercard 16, Amex 15).
        // Codes: Amex's 4-digit CID, 3 digits elsewhere. Groups: Amex 4-6-5,
        // the others 4-4-4-4 and a fifth group up to 19 digits.
        let fourFour = [4, 4, 4, 4, 3]
        func visa(_ low: Int, _ high: Int, _ digits: Int) -> IINRange {
            IINRange(
                low: low, high: high, digits: digits, brand: .visa, panLengths: [13, 16, 19], securityCodeLength: 3,
                numberGrouping: fourFour)
        }
        func mastercard(_ low: Int, _ high: Int, _ digits: Int) -> IINRange {
            IINRange(
                low: low, high: high, digits: digits, brand: .mastercard, panLengths: [16], securityCodeLength: 3,
                numberGrouping: fourFour)
        }
        func amex(_ low: Int, _ high: Int, _ digits: Int) -> IINRange {
            IINRange(
                low: low, high: high, digits: digits, brand: .amex, panLengths: [15], securityCodeLength: 4,
                numberGrouping: [4, 6, 5])
        }
        func discover(_ low: Int, _ high: Int, _ digits: Int) -> IINRange {
            IINRange(
                low: low, high: high, digits: digits, brand: .discover, panLengths: Array(16...19),
                securityCodeLength: 3, numberGrouping: fourFour)
        }
        func maestro(_ low: Int, _ high: Int, _ digits: Int) -> IINRange {
            IINRange(
                low: low, high: high, digits: digits, brand: .maestro, panLengths: Array(12...19),
                securityCodeLength: 3, numberGrouping: fourFour)
        }
        return [
            visa(4, 4, 1),
            mastercard(51, 55, 2),
            mastercard(2221, 2720, 4),
            amex(34, 34, 2),
            amex(37, 37, 2),
            discover(6011, 6011, 4),
            discover(644, 649, 3),
            discover(65, 65, 2),
            maestro(5018, 5018, 4),
            maestro(5020, 5020, 4),
            maestro(5038, 5038, 4),
            maestro(5893, 5893, 4),
            maestro(56, 58, 2),
            maestro(6304, 6304, 4),
            maestro(6759, 6759, 4),
            maestro(6761, 6763, 4),
            maestro(67, 67, 2),
        ]
    }()
}
