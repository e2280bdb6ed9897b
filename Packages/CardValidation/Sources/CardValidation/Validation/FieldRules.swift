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
        withUTF8(number) { self.number(utf8: $0) }
    }

    /// ``number(_:)`` over UTF-8 bytes read in place (a sensitive buffer's).
    static func number(utf8 number: UnsafeBufferPointer<UInt8>) -> Failure? {
        let scan = CardNumberScanner.scan(utf8: number)
        if scan.hasInvalidCharacter { return (.invalidCharacters, .invalid) }
        let count = scan.digitCount
        if count == 0 { return (.missing, .incomplete) }
        if count > CardNumber.maximumLength { return (.tooLong, .invalid) }
        if count < CardNumber.minimumLength { return (.tooShort, .incomplete) }
        if !scan.isLuhnValid {
            // More digits could still fix the check digit while the brand's
            // longest number has not been reached (a 16-digit Visa may be a
            // 19-digit one being typed).
            let longest = IINTable.detect(utf8: number).maximumNumberLength
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
        withUTF8(text) { digitField(utf8: $0) }
    }

    /// ``digitField(_:)`` over UTF-8 bytes read in place.
    static func digitField(utf8 bytes: UnsafeBufferPointer<UInt8>) -> DigitField {
        var value = 0
        for byte in bytes {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return .invalidCharacters }
            value = value &* 10 &+ Int(digit)
        }
        return bytes.isEmpty ? .empty : .digits(count: bytes.count, value: bytes.count <= 4 ? value : 0)
    }

    /// Runs `body` on the UTF-8 bytes of `text` in place (small strings are
    /// spilled to the stack by the standard library, not the heap).
    @inline(__always)
    static func withUTF8<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(text.utf8).withUnsafeBufferPointer(body)
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
        withUTF8(code) { securityCode(utf8: $0) }
    }

    /// ``securityCode(_:)`` over UTF-8 bytes read in place (a sensitive buffer's).
    static func securityCode(utf8 code: UnsafeBufferPointer<UInt8>) -> Failure? {
        switch digitField(utf8: code) {
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
    /// paragraph separators U+2028 and U+2029. Blank means only whitespace
    /// (the Unicode White_Space property). Length counts extended grapheme
    /// clusters (`"José"` is 4 characters whether the accent is precomposed or
    /// combining).
    static func cardholderName(_ name: String) -> Failure? {
        let scan = withUTF8(name) { scanName($0) }
        switch scan {
        case .control: return (.invalidCharacters, .invalid)
        case .blank: return (.missing, .incomplete)
        case .text(let scalars, let isASCII):
            // A character has at least one scalar (and an ASCII character
            // without controls exactly one): count graphemes only when the
            // scalars alone could be too many.
            if scalars <= maximumNameLength { return nil }
            if isASCII { return (.tooLong, .invalid) }
            return name.count > maximumNameLength ? (.tooLong, .invalid) : nil
        }
    }

    enum NameScan {
        case control
        case blank
        case text(scalars: Int, isASCII: Bool)
    }

    /// One pass over the UTF-8 bytes of a name (Swift strings are valid
    /// UTF-8), decoding scalars by hand.
    static func scanName(_ bytes: UnsafeBufferPointer<UInt8>) -> NameScan {
        var index = 0
        var scalars = 0
        var sawNonSpace = false
        var isASCII = true
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            var value = UInt32(lead)
            var length = 1
            if lead >= 0x80 {
                isASCII = false
                length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
                guard index + length <= count else { break }
                value = UInt32(lead) & (lead < 0xE0 ? 0x1F : lead < 0xF0 ? 0x0F : 0x07)
                for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
            }
            if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029 {
                return .control
            }
            if !isWhitespace(value) { sawNonSpace = true }
            scalars &+= 1
            index &+= length
        }
        return sawNonSpace ? .text(scalars: scalars, isASCII: isASCII) : .blank
    }

    /// The Unicode White_Space property (PropList.txt, unchanged since
    /// Unicode 6.3), as a table: the stdlib's property lookup costs more than
    /// the whole rest of validation.
    static func isWhitespace(_ value: UInt32) -> Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
            return true
        default:
            return false
        }
    }
}
