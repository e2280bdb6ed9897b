/// One pass over a card number as typed: digit count, Luhn, leading digits and
/// whether a character other than a digit, space or dash appeared.
///
/// This is the hot path of validation: for native strings it reads the UTF-8
/// bytes in place, allocates nothing, and computes the Luhn sum left to right
/// for both possible parities so the length need not be known in advance.
struct NumberScan: Equatable {
    /// Digits seen (spaces and dashes skipped).
    var digitCount = 0
    /// Luhn sum if the number has an even count of digits (every digit at an
    /// even index from the left doubled).
    var sumDoublingEven = 0
    /// Luhn sum if the number has an odd count of digits.
    var sumDoublingOdd = 0
    /// A character other than an ASCII digit, a space or a dash appeared.
    var hasInvalidCharacter = false

    /// `true` when the digits pass the Luhn (mod 10) check; `false` for none.
    var isLuhnValid: Bool {
        guard digitCount > 0 else { return false }
        let sum = digitCount & 1 == 0 ? sumDoublingEven : sumDoublingOdd
        return sum % 10 == 0
    }

    @inline(__always)
    mutating func add(_ digit: Int) {
        let doubled = digit &* 2 &- (digit >= 5 ? 9 : 0)
        if digitCount & 1 == 0 {
            sumDoublingEven &+= doubled
            sumDoublingOdd &+= digit
        } else {
            sumDoublingEven &+= digit
            sumDoublingOdd &+= doubled
        }
        digitCount &+= 1
    }
}

/// Character classes shared by validation, detection and the editors.
@usableFromInline
enum CardNumberScanner {
    /// The value of an ASCII digit `0`–`9`; other digits (Arabic-Indic,
    /// fullwidth, ...) are not card digits.
    @usableFromInline
    static func asciiDigit(_ scalar: Unicode.Scalar) -> Int? {
        let value = scalar.value
        return value >= 0x30 && value <= 0x39 ? Int(value - 0x30) : nil
    }

    /// A separator a buyer may type or paste between digit groups: the one set
    /// shared by the number field, ``CardNumberRedaction`` and every tool built
    /// on it (``CardNumberGrammar/isSeparator(_:)``): ASCII space, tab and
    /// hyphen-minus, every Unicode space separator (Zs: no-break space,
    /// U+2000–U+200A, narrow no-break space, U+205F, ideographic space, ...),
    /// every dash punctuation (Pd: hyphen, en and em dash, U+2010–U+2015,
    /// U+FE58, U+FE63, U+FF0D, ...) and the minus sign U+2212.
    @usableFromInline
    static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x20, 0x2D, 0x2212:
            return true
        case 0..<0x80:
            return false
        default:
            let category = scalar.properties.generalCategory
            return category == .spaceSeparator || category == .dashPunctuation
        }
    }

    /// Scans `number` (see ``NumberScan``).
    static func scan(_ number: String) -> NumberScan {
        if let result = number.utf8.withContiguousStorageIfAvailable({ scanASCII($0) }), let result {
            return result
        }
        return scanScalars(number.unicodeScalars)
    }

    /// Scans UTF-8 bytes read in place (a sensitive buffer's), with the same rules.
    static func scan(utf8 bytes: UnsafeBufferPointer<UInt8>) -> NumberScan {
        scanASCII(bytes) ?? scanScalars(UTF8Scalars(bytes: bytes))
    }

    /// The byte-level fast path; `nil` when a non-ASCII byte appears.
    static func scanASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> NumberScan? {
        var scan = NumberScan()
        for byte in bytes {
            let digit = byte &- UInt8(ascii: "0")
            if digit < 10 {
                scan.add(Int(digit))
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "\t") {
                continue
            } else if byte >= 0x80 {
                return nil
            } else {
                scan.hasInvalidCharacter = true
            }
        }
        return scan
    }

    static func scanScalars(_ scalars: some Sequence<Unicode.Scalar>) -> NumberScan {
        var scan = NumberScan()
        for scalar in scalars {
            if let digit = asciiDigit(scalar) {
                scan.add(digit)
            } else if !isSeparator(scalar) {
                scan.hasInvalidCharacter = true
            }
        }
        return scan
    }

    /// The ASCII digits of `text`, skipping every other character.
    static func digitsOnly(_ text: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 where byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Groups `digits` (ASCII digits only) with single spaces, by `groups`;
    /// digits past the last group stay in the last group.
    static func group(_ digits: some StringProtocol, by groups: [Int]) -> String {
        var out = ""
        out.reserveCapacity(digits.utf8.count + groups.count)
        var groupIndex = 0
        var inGroup = 0
        for character in digits {
            if groupIndex < groups.count - 1, inGroup == groups[groupIndex] {
                out.append(" ")
                groupIndex += 1
                inGroup = 0
            }
            out.append(character)
            inGroup += 1
        }
        return out
    }
}
