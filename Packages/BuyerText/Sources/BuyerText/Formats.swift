import Foundation

/// A CLDR plural category: which form of a word a number takes in a language.
public enum PluralCategory: String, Sendable, CaseIterable {
    case zero, one, two, few, many, other
}

extension BuyerText {
    /// The plural categories whole numbers take in this language, per CLDR's rules: English and
    /// Estonian `one`, `other`; Latvian `zero`, `one`, `other`; Lithuanian `one`, `few`, `other`
    /// (its `many` is for fractions only); Russian `one`, `few`, `many` (its `other` is for
    /// fractions only). A plural key `k` has one entry `k#<category>` per category here.
    public var pluralCategories: [PluralCategory] {
        switch language {
        case "lv": [.zero, .one, .other]
        case "lt": [.one, .few, .other]
        case "ru": [.one, .few, .many]
        default: [.one, .other]
        }
    }

    /// The CLDR plural category of the whole number `count` in this language (its absolute value).
    public func pluralCategory(_ count: Int) -> PluralCategory {
        let n = count.magnitude
        let mod10 = n % 10
        let mod100 = n % 100
        switch language {
        case "lv":
            if mod10 == 0 || (11...19).contains(mod100) { return .zero }
            return mod10 == 1 && mod100 != 11 ? .one : .other
        case "lt":
            if (11...19).contains(mod100) { return .other }
            if mod10 == 1 { return .one }
            return mod10 >= 2 ? .few : .other
        case "ru":
            if mod10 == 1 && mod100 != 11 { return .one }
            if (2...4).contains(mod10) && !(12...14).contains(mod100) { return .few }
            return .many
        default:
            return n == 1 ? .one : .other
        }
    }

    /// The form of plural key `key` for `count` (`key#<category>`), with `%@` replaced by `count`
    /// written as ``number(_:)`` writes it. A form this table lacks falls back to its `other` form, then
    /// to English; a key no table has gives the key itself.
    public func plural(_ key: String, count: Int) -> String {
        let own = table["\(key)#\(pluralCategory(count).rawValue)"] ?? table["\(key)#other"]
        let english = BuyerText.english(count)
        let form = own ?? fallback["\(key)#\(english.rawValue)"] ?? fallback["\(key)#other"] ?? key
        return form.replacingOccurrences(of: "%@", with: number(count))
    }

    private static func english(_ count: Int) -> PluralCategory { count.magnitude == 1 ? .one : .other }

    /// `value` as this language writes a whole number: `1,234` in English; `1234` and `12 345` in
    /// Latvian and Estonian (grouped from five digits); `1 234` in Lithuanian and Russian; the groups
    /// split by a no-break space (U+00A0) outside English, and a negative number with the language's
    /// minus sign (U+2212 in Estonian and Lithuanian).
    public func number(_ value: Int) -> String {
        let style = NumberStyle(language)
        return (value < 0 ? style.minus : "") + style.group(String(value.magnitude))
    }

    /// `amount` as this language writes a price in `currencyCode`, with exactly `fractionDigits`
    /// fraction digits (rounded half away from zero), after CLDR's standard currency pattern:
    /// `€1,234.50` in English, `1234,50 €` in Latvian and Estonian, `1 234,50 €` in Lithuanian and
    /// Russian (no-break spaces, U+00A0). The currency shows as the symbol CLDR gives it in the
    /// language (`€` everywhere; `$`, `£`, `¥` except in Lithuanian; `₽` in Russian), else as its
    /// ISO code (`USD 12.50`, `12,50 USD`).
    public func money(_ amount: Decimal, currencyCode: String, fractionDigits: Int) -> String {
        let style = NumberStyle(language)
        var value = amount
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, max(0, fractionDigits), .plain)
        let negative = rounded < 0
        let plain = "\(negative ? -rounded : rounded)"
        let parts = plain.split(separator: ".", omittingEmptySubsequences: false)
        var digits = style.group(String(parts[0]))
        if fractionDigits > 0 {
            let fraction = parts.count > 1 ? String(parts[1]) : ""
            digits += style.decimal + fraction + String(repeating: "0", count: max(0, fractionDigits - fraction.count))
        }
        let symbol = style.symbols[currencyCode] ?? currencyCode
        let sign = negative ? style.minus : ""
        if style.currencyFirst {
            let spacing = symbol.last?.isLetter == true ? "\u{A0}" : ""
            return sign + symbol + spacing + digits
        }
        return sign + digits + "\u{A0}" + symbol
    }
}

/// One language's number symbols, from CLDR (`numbers/symbols`, `minimumGroupingDigits`, the
/// standard currency pattern and the currency symbols).
private struct NumberStyle {
    let decimal: String
    let separator: String
    let minimumGroupingDigits: Int
    let minus: String
    let currencyFirst: Bool
    let symbols: [String: String]

    init(_ language: String) {
        let common = ["EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥"]
        switch language {
        case "lv": self.init(",", "\u{A0}", 2, "-", false, common)
        case "et": self.init(",", "\u{A0}", 2, "\u{2212}", false, common)
        case "lt": self.init(",", "\u{A0}", 1, "\u{2212}", false, ["EUR": "€"])
        case "ru": self.init(",", "\u{A0}", 1, "-", false, common.merging(["RUB": "₽"]) { $1 })
        default: self.init(".", ",", 1, "-", true, common)
        }
    }

    private init(
        _ decimal: String, _ separator: String, _ minimumGroupingDigits: Int, _ minus: String, _ currencyFirst: Bool,
        _ symbols: [String: String]
    ) {
        self.decimal = decimal
        self.separator = separator
        self.minimumGroupingDigits = minimumGroupingDigits
        self.minus = minus
        self.currencyFirst = currencyFirst
        self.symbols = symbols
    }

    /// `digits` in groups of three from the right, when it has at least 3 + minimumGroupingDigits.
    func group(_ digits: String) -> String {
        guard digits.count >= 3 + minimumGroupingDigits else { return digits }
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return groups.joined(separator: separator)
    }
}
