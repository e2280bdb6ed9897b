/// Helpers for card numbers as people type and paste them.
///
/// "Formatting characters" throughout are the separators of
/// ``CardNumberGrammar``: spaces and dashes (Unicode categories Zs and Pd:
/// `" "`, no-break space, `"-"`, en dash, ...), tab and the minus sign U+2212. Only the
/// ASCII digits `0`–`9` are card digits. Every function is pure and
/// thread-safe.
public enum CardNumber {
    /// The fewest digits a card number may have (brand-agnostic rule).
    public static let minimumLength = 12
    /// The most digits a card number may have (ISO/IEC 7812).
    public static let maximumLength = 19

    /// The digits of `number` with formatting characters removed, or `nil`
    /// when any other character (a letter, `"/"`, a non-ASCII digit, ...)
    /// is present.
    ///
    /// `digits(of: "4242 4242-4242 4242")` is `"4242424242424242"`;
    /// `digits(of: "4242x")` is `nil`; `digits(of: "")` is `""`.
    public static func digits(of number: some StringProtocol) -> String? {
        for scalar in number.unicodeScalars
        where CardNumberScanner.asciiDigit(scalar) == nil && !CardNumberScanner.isSeparator(scalar) {
            return nil
        }
        return CardNumberScanner.digitsOnly(number)
    }

    /// Whether `digits` passes the Luhn (mod 10) check digit test.
    ///
    /// `digits` must be ASCII digits only (pass the result of
    /// ``digits(of:)``); the empty string and any other character give `false`.
    /// Length is not checked here.
    public static func isLuhnValid(_ digits: some StringProtocol) -> Bool {
        var scan = NumberScan()
        for byte in digits.utf8 {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return false }
            scan.add(Int(digit))
        }
        return scan.isLuhnValid
    }

    /// The digits of `number` grouped for display by its brand: 4-4-4-4 (and
    /// a fifth group up to 19 digits), Amex 4-6-5.
    ///
    /// Every character other than an ASCII digit is dropped first; nothing is
    /// truncated. `format("4242424242424242")` is `"4242 4242 4242 4242"`,
    /// `format("378282246310005")` is `"3782 822463 10005"`.
    public static func format(_ number: some StringProtocol) -> String {
        let digits = CardNumberScanner.digitsOnly(number)
        return CardNumberScanner.group(digits, by: CardBrand.detect(digits).numberGrouping)
    }

    /// A display form that shows at most the last four digits of the number
    /// alone: `"•••• 4242"` for a card number (12 to 19 digits passing Luhn),
    /// `"••••"` for anything else (a partial or mistyped number, or a number
    /// with its code typed after it, whose last four could be the code's), and
    /// `""` when there are no digits.
    ///
    /// The same as ``CardNumberRedaction/masked(_:)``, the SDK's one masked
    /// form. Safe for logs, descriptions and tool output. Characters other than
    /// ASCII digits are ignored.
    public static func masked(_ number: some StringProtocol) -> String {
        CardNumberRedaction.masked(number)
    }
}
