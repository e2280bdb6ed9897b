/// The brand-agnostic rules, one pure function per field. `nil` means valid.
///
/// Every rule reads the UTF-8 bytes in place on the common (ASCII) path and
/// allocates nothing; only non-ASCII input takes the slower Unicode path.
enum FieldRules {
    typealias Failure = (reason: CardValidationIssue.Reason, state: FieldState)

    /// Most characters (extended grapheme clusters) a cardholder name may have.
    static let maximumNameLength = 45

    // MARK: Number

    /// Digits after removing spaces and dashes, any other character an error,
    /// 12 to 19 digits, Luhn.
    static func number(_ number: String) -> Failure? {
        let scan = CardNumberScanner.scan(number)
        if scan.hasInvalidCharacter { return (.invalidCharacters, .invalid) }
        let count = scan.digitCount
        if count == 0 { return (.missing, .incomplete) }
        if count > CardNumber.maximumLength { return (.tooLong, .invalid) }
        if count < CardNumber.minimumLength { return (.tooShort, .incomplete) }
        if !scan.isLuhnValid {
            // More digits could still fix the check digit while the brand's
            // longest number has not been reached (a 16-digit Visa may be a
            // 19-digit one being typed).
            let longest = CardBrand.detect(number).maximumNumberLength
            return (.checksumFailed, count < longest ? .incomplete : .invalid)
        }
        return nil
    }

    // MARK: Expiry

    /// What a two-digit field holds.
    enum DigitField: Equatable {
        case empty
        case invalidCharacters
        /// `count` ASCII digits with numeric `value`; `count` may exceed 2.
        case digits(count: Int, value: Int)
    }

    static func digitField(_ text: String) -> DigitField {
        var count = 0
        var value = 0
        for byte in text.utf8 {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return .invalidCharacters }
            count &+= 1
            if count <= 4 { value = value &* 10 &+ Int(digit) }
        }
        return count == 0 ? .empty : .digits(count: count, value: value)
    }

    /// Two-digit month `01`–`12` and two-digit year; valid through the last
    /// day of the expiry month. `today` is asked only when the answer depends
    /// on it.
    static func expiry(month: String, year: String, today: () -> YearMonth) -> Failure? {
        let monthField = digitField(month)
        let yearField = digitField(year)
        if monthField == .invalidCharacters || yearField == .invalidCharacters {
            return (.invalidCharacters, .invalid)
        }
        if monthField == .empty && yearField == .empty { return (.missing, .incomplete) }

        var monthValue: Int? = nil
        if case .digits(let count, let value) = monthField {
            if count > 2 || (count == 2 && !(1...12).contains(value)) { return (.invalidMonth, .invalid) }
            if count == 2 { monthValue = value }
        }
        var yearDigits = 0
        var yearValue = 0
        if case .digits(let count, let value) = yearField {
            if count > 2 { return (.invalidYear, .invalid) }
            yearDigits = count
            yearValue = value
        }
        guard let monthValue else { return (.incomplete, .incomplete) }

        let now = today()
        if yearDigits == 1 {
            // "1" in 2026 can only become 2010-2019: already expired, however
            // it is completed.
            let canStillBeValid = (0...9).contains { last in
                !isExpired(YearMonth(year: fullYear(yearValue * 10 + last, today: now), month: monthValue), today: now)
            }
            return canStillBeValid ? (.incomplete, .incomplete) : (.expired, .invalid)
        }
        if yearDigits == 0 { return (.incomplete, .incomplete) }
        let expiry = YearMonth(year: fullYear(yearValue, today: now), month: monthValue)
        return isExpired(expiry, today: now) ? (.expired, .invalid) : nil
    }

    /// The four-digit year a two-digit year means: the one from 50 years
    /// before to 49 years after the current year (in 2026: 1976–2075).
    static func fullYear(_ twoDigits: Int, today: YearMonth) -> Int {
        let current = today.year
        var year = current - current % 100 + twoDigits
        if year > current + 49 { year -= 100 }
        if year < current - 50 { year += 100 }
        return year
    }

    /// A card is valid through the last day of its expiry month.
    static func isExpired(_ expiry: YearMonth, today: YearMonth) -> Bool {
        expiry < today
    }

    // MARK: Security code

    /// 3 or 4 ASCII digits.
    static func securityCode(_ code: String) -> Failure? {
        switch digitField(code) {
        case .invalidCharacters: return (.invalidCharacters, .invalid)
        case .empty: return (.missing, .incomplete)
        case .digits(let count, _):
            if count < 3 { return (.tooShort, .incomplete) }
            if count > 4 { return (.tooLong, .invalid) }
            return nil
        }
    }

    // MARK: Cardholder name

    /// Not blank, at most 45 characters, no control characters.
    ///
    /// Control characters are Unicode Cc (C0, DEL, C1) plus the line and
    /// paragraph separators U+2028 and U+2029. Blank means only whitespace.
    /// Length counts extended grapheme clusters (`"José"` is 4 characters
    /// whether the accent is precomposed or combining).
    static func cardholderName(_ name: String) -> Failure? {
        var sawNonSpace = false
        var isASCII = true
        for byte in name.utf8 {
            if byte >= 0x80 {
                isASCII = false
                break
            }
            if byte < 0x20 || byte == 0x7F { return (.invalidCharacters, .invalid) }
            if byte != UInt8(ascii: " ") { sawNonSpace = true }
        }
        if isASCII {
            if !sawNonSpace { return (.missing, .incomplete) }
            // ASCII without control characters: one byte, one character.
            return name.utf8.count > maximumNameLength ? (.tooLong, .invalid) : nil
        }
        sawNonSpace = false
        for scalar in name.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029 {
                return (.invalidCharacters, .invalid)
            }
            if !scalar.properties.isWhitespace { sawNonSpace = true }
        }
        if !sawNonSpace { return (.missing, .incomplete) }
        return name.count > maximumNameLength ? (.tooLong, .invalid) : nil
    }
}
