/// The one grammar of a card number written with separators, shared by the
/// number field (``CardNumber``, ``CardInput``, ``CardNumberEditor``), by
/// ``CardNumberRedaction`` (what is masked in any text) and by tools built on
/// them (egw-repl's history and echo rule).
///
/// A card number is 12 to 19 ASCII digits `0`–`9` passing Luhn; between two
/// digits any sequence of separators may stand. The separators are exactly:
/// - ASCII space U+0020, tab U+0009 and hyphen-minus U+002D;
/// - every Unicode space separator (category Zs): U+00A0, U+1680,
///   U+2000–U+200A, U+202F, U+205F, U+3000;
/// - every dash punctuation (category Pd): U+2010–U+2015, U+FE58, U+FE63,
///   U+FF0D and the rarer ones (U+058A, U+05BE, U+1400, U+1806, U+2E17, ...);
/// - the minus sign U+2212 (category Sm, which text tools put for a dash).
///
/// Nothing else is one: a slash, a dot, a newline, a zero-width space
/// (U+200B is Cf) or a combining mark ends a number, and fullwidth or
/// Arabic-Indic digits are not card digits.
public enum CardNumberGrammar {
    /// Whether `scalar` may stand between the digits of a card number.
    public static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        CardNumberScanner.isSeparator(scalar)
    }

    /// Whether `scalar` is a card digit (ASCII `0`–`9` only).
    public static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        CardNumberScanner.asciiDigit(scalar) != nil
    }
}
