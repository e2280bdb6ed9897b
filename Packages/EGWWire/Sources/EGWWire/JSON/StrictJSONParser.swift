/// An RFC 8259 parser that refuses what lenient parsers let through: invalid UTF-8, duplicate member names
/// (compared after unescaping), trailing bytes, numbers with leading zeros, lone surrogate escapes, raw
/// control characters in strings, and nesting deeper than a limit (64 unless told). Every refusal is a
/// ``JSONSyntaxError`` with the exact byte offset of the fault.
///
/// The text is validated in place: no `String` of the whole input is made, and the scratch bytes of each
/// decoded string go through `wipe` before they are released (pass a secure wipe when strings may hold
/// secrets, such as a private JWK).
///
/// ```swift
/// let value = try StrictJSONParser.parse(Array(#"{"kty":"RSA"}"#.utf8))
/// value[member: "kty"]  // .string("RSA")
/// ```
public struct StrictJSONParser {
    /// The nesting limit when the caller gives none.
    public static let defaultMaximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private let maximumDepth: Int
    private let wipe: (inout [UInt8]) -> Void

    private init(bytes: [UInt8], maximumDepth: Int, wipe: @escaping (inout [UInt8]) -> Void) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.wipe = wipe
    }

    /// Parses one JSON text: any value at top level, surrounded by optional whitespace.
    ///
    /// - Parameters:
    ///   - maximumDepth: how many objects and arrays may enclose one another.
    ///   - wipe: called on every scratch buffer that held string bytes before it is released.
    /// - Throws: ``JSONSyntaxError`` at the first fault.
    public static func parse(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth,
        wipe: (inout [UInt8]) -> Void = { _ in }
    ) throws(JSONSyntaxError) -> JSONValue {
        try withoutActuallyEscaping(wipe) { (wipe) throws(JSONSyntaxError) -> JSONValue in
            var parser = StrictJSONParser(bytes: bytes, maximumDepth: maximumDepth, wipe: wipe)
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            guard parser.index == bytes.count else {
                throw JSONSyntaxError(.trailingBytes, "unexpected bytes after the JSON value", offset: parser.index)
            }
            return value
        }
    }

    private func fail(_ code: JSONSyntaxError.Code, _ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(code, reason, offset: index)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail(.unexpectedCharacter, "unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let expected = literal.withUTF8Buffer { Array($0) }
        for byte in expected {
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            guard bytes[index] == byte else { throw fail(.unexpectedCharacter, "invalid literal") }
            index += 1
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        guard depth < maximumDepth else { throw fail(.tooDeep, "nesting deeper than \(maximumDepth)") }
        depth += 1
        index += 1  // { or [
    }

    private mutating func expect(_ byte: UInt8, _ reason: String) throws(JSONSyntaxError) {
        guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
        guard bytes[index] == byte else { throw fail(.unexpectedCharacter, reason) }
        index += 1
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        var members: [JSONMember] = []
        var names = Set<String>()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw fail(.unexpectedCharacter, "expected a member name") }
            let nameOffset = index
            let name = try parseString()
            guard names.insert(name).inserted else {
                throw JSONSyntaxError(
                    .duplicateMember, "duplicate member name", offset: nameOffset, duplicateName: name)
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':'")
            skipWhitespace()
            members.append(JSONMember(name: name, value: try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "expected ',' or '}'")
            depth -= 1
            return .object(members)
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"), "expected ',' or ']'")
            depth -= 1
            return .array(elements)
        }
    }

    private func isDigit(at position: Int) -> Bool {
        position < bytes.count && bytes[position] >= UInt8(ascii: "0") && bytes[position] <= UInt8(ascii: "9")
    }

    private mutating func digits() throws(JSONSyntaxError) {
        guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input in a number") }
        guard isDigit(at: index) else { throw fail(.invalidNumber, "expected a digit") }
        while isDigit(at: index) { index += 1 }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "0") {
            index += 1
            guard !isDigit(at: index) else { throw fail(.leadingZero, "a number with a leading zero") }
        } else {
            try digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            try digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try digits()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input in a \\u escape") }
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail(.invalidEscape, "a \\u escape needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// The length of the well-formed UTF-8 sequence at `index` (Unicode table 3-7), or nil.
    private func utf8SequenceLength() -> Int? {
        let lead = bytes[index]
        let second: ClosedRange<UInt8>
        let length: Int
        switch lead {
        case 0xC2...0xDF: (second, length) = (0x80...0xBF, 2)
        case 0xE0: (second, length) = (0xA0...0xBF, 3)
        case 0xE1...0xEC, 0xEE...0xEF: (second, length) = (0x80...0xBF, 3)
        case 0xED: (second, length) = (0x80...0x9F, 3)
        case 0xF0: (second, length) = (0x90...0xBF, 4)
        case 0xF1...0xF3: (second, length) = (0x80...0xBF, 4)
        case 0xF4: (second, length) = (0x80...0x8F, 4)
        default: return nil
        }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return nil }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return nil }
        return length
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        var output: [UInt8] = []
        defer { wipe(&output) }
        while true {
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: output, as: UTF8.self)
            case 0x00..<0x20:
                throw fail(.controlCharacter, "control character in string")
            case UInt8(ascii: "\\"):
                try parseEscape(into: &output)
            case 0x80...:
                guard let length = utf8SequenceLength() else { throw fail(.invalidUTF8, "not valid UTF-8") }
                output.append(contentsOf: bytes[index..<index + length])
                index += length
            default:
                output.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONSyntaxError) {
        let start = index
        index += 1  // backslash
        guard index < bytes.count else { throw fail(.unexpectedEnd, "unterminated escape") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): output.append(0x22)
        case UInt8(ascii: "\\"): output.append(0x5C)
        case UInt8(ascii: "/"): output.append(0x2F)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONSyntaxError(.loneSurrogate, "lone surrogate escape", offset: start) }
                index += 2
                let low = try parseHex4()
                guard low >= 0xDC00 && low < 0xE000 else {
                    throw JSONSyntaxError(.loneSurrogate, "lone surrogate escape", offset: start)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw JSONSyntaxError(.loneSurrogate, "lone surrogate escape", offset: start)
            }
            // Every value left is a scalar: surrogates were handled above and four hex digits stay in range.
            output.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
        default:
            throw JSONSyntaxError(.invalidEscape, "invalid escape", offset: start)
        }
    }
}
