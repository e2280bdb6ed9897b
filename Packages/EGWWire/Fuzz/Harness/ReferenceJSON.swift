/// A second, independent reading of RFC 8259 for the fuzzer to hold the strict parser to: a recogniser
/// written from the RFC's grammar (section 2 to 7), plus the project's strict rules as the EGWWire README
/// states them (UTF-8 only, no lone surrogate, no duplicate member name compared scalar by scalar as
/// section 8.3 advises, at most `maximumDepth` nested containers). It builds nothing; it only says
/// whether a document is acceptable.
struct ReferenceJSON {
    private let bytes: [UInt8]
    private let maximumDepth: Int
    private var position = 0

    /// Whether `bytes` is one acceptable JSON text.
    static func accepts(_ bytes: [UInt8], maximumDepth: Int) -> Bool {
        guard String(validating: bytes, as: UTF8.self) != nil else { return false }
        var reader = ReferenceJSON(bytes: bytes, maximumDepth: maximumDepth)
        reader.skipSpace()
        guard reader.readValue(depth: 0) else { return false }
        reader.skipSpace()
        return reader.position == bytes.count
    }

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        position += 1
        return true
    }

    private mutating func readValue(depth: Int) -> Bool {
        switch current {
        case UInt8(ascii: "{"): return readObject(depth: depth + 1)
        case UInt8(ascii: "["): return readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return readString() != nil
        case UInt8(ascii: "t"): return readWord("true")
        case UInt8(ascii: "f"): return readWord("false")
        case UInt8(ascii: "n"): return readWord("null")
        default: return readNumber()
        }
    }

    private mutating func readWord(_ word: String) -> Bool {
        for byte in word.utf8 where !take(byte) { return false }
        return true
    }

    private mutating func readObject(depth: Int) -> Bool {
        guard depth <= maximumDepth else { return false }
        position += 1
        skipSpace()
        if take(UInt8(ascii: "}")) { return true }
        var names = Set<[UInt32]>()
        while true {
            skipSpace()
            guard current == UInt8(ascii: "\""), let name = readString(), names.insert(name).inserted else {
                return false
            }
            skipSpace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipSpace()
            guard readValue(depth: depth) else { return false }
            skipSpace()
            if take(UInt8(ascii: "}")) { return true }
            guard take(UInt8(ascii: ",")) else { return false }
        }
    }

    private mutating func readArray(depth: Int) -> Bool {
        guard depth <= maximumDepth else { return false }
        position += 1
        skipSpace()
        if take(UInt8(ascii: "]")) { return true }
        while true {
            skipSpace()
            guard readValue(depth: depth) else { return false }
            skipSpace()
            if take(UInt8(ascii: "]")) { return true }
            guard take(UInt8(ascii: ",")) else { return false }
        }
    }

    /// The string's code points (escapes resolved), nil when it is not a valid string.
    private mutating func readString() -> [UInt32]? {
        position += 1
        var scalars: [UInt32] = []
        var pendingHigh: UInt32?
        while let byte = current {
            position += 1
            var unit: UInt32
            switch byte {
            case UInt8(ascii: "\""):
                return pendingHigh == nil ? scalars : nil
            case 0x00..<0x20:
                return nil
            case UInt8(ascii: "\\"):
                guard let escape = current else { return nil }
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unit = UInt32(escape)
                case UInt8(ascii: "b"): unit = 0x08
                case UInt8(ascii: "f"): unit = 0x0C
                case UInt8(ascii: "n"): unit = 0x0A
                case UInt8(ascii: "r"): unit = 0x0D
                case UInt8(ascii: "t"): unit = 0x09
                case UInt8(ascii: "u"):
                    guard let value = readHex4() else { return nil }
                    unit = value
                default: return nil
                }
            default:
                // Raw UTF-8 (already validated as a whole): gather the sequence into one scalar.
                var value = UInt32(byte)
                var extra = 0
                if byte >= 0xF0 {
                    value &= 0x07
                    extra = 3
                } else if byte >= 0xE0 {
                    value &= 0x0F
                    extra = 2
                } else if byte >= 0xC0 {
                    value &= 0x1F
                    extra = 1
                }
                for _ in 0..<extra {
                    value = value << 6 | UInt32(bytes[position] & 0x3F)
                    position += 1
                }
                unit = value
            }
            if let high = pendingHigh {
                guard (0xDC00...0xDFFF).contains(unit), byte == UInt8(ascii: "\\") else { return nil }
                scalars.append(0x10000 + (high - 0xD800) << 10 + (unit - 0xDC00))
                pendingHigh = nil
            } else if (0xD800...0xDBFF).contains(unit), byte == UInt8(ascii: "\\") {
                pendingHigh = unit
            } else if (0xDC00...0xDFFF).contains(unit) {
                return nil
            } else {
                scalars.append(unit)
            }
        }
        return nil
    }

    private mutating func readHex4() -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Int(String(UnicodeScalar(byte)), radix: 16) else { return nil }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func readNumber() -> Bool {
        _ = take(UInt8(ascii: "-"))
        if take(UInt8(ascii: "0")) {
            // a leading zero stands alone
        } else {
            guard readDigits() else { return false }
        }
        if take(UInt8(ascii: ".")) {
            guard readDigits() else { return false }
        }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard readDigits() else { return false }
        }
        return true
    }

    private mutating func readDigits() -> Bool {
        let start = position
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
        return position > start
    }
}
