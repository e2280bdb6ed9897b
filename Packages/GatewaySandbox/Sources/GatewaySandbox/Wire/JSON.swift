/// A JSON value as the sandbox reads and writes it.
///
/// Parsing is strict (RFC 8259): one value, no trailing bytes, valid UTF-8, no
/// duplicated object members (Foundation silently keeps one of them), no lone
/// surrogates, bounded nesting. Objects keep their member order so written JSON
/// is stable. Numbers keep their literal text; `intValue` reads integers exactly.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    static func int(_ value: Int) -> JSONValue { .number(String(value)) }

    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The number as an `Int` when its literal is an integer that fits (no fraction, no exponent).
    var intValue: Int? {
        guard case .number(let literal) = self, !literal.contains(where: { ".eE".contains($0) }) else { return nil }
        return Int(literal)
    }

    /// The number as a `Double` (any JSON number literal).
    var doubleValue: Double? {
        guard case .number(let literal) = self else { return nil }
        return Double(literal)
    }

    /// A short name of the JSON type, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// A JSON object with its members in order and unique keys.
struct JSONObject: Sendable, Equatable {
    private(set) var members: [Member]

    struct Member: Sendable, Equatable {
        var key: String
        var value: JSONValue
    }

    init(_ pairs: KeyValuePairs<String, JSONValue?> = [:]) {
        members = []
        for (key, value) in pairs {
            if let value { self[key] = value }
        }
    }

    var keys: [String] { members.map(\.key) }

    subscript(key: String) -> JSONValue? {
        get { members.first(where: { $0.key == key })?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }
}

/// Why a JSON text was refused.
struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    var reason: String
    var offset: Int
    var description: String { "\(reason) at byte \(offset)" }
}

extension JSONValue {
    /// Parses exactly one JSON value from `bytes`.
    static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = StrictJSONParser(bytes: Array(bytes))
        return try parser.parseDocument()
    }

    /// Parses exactly one JSON value from UTF-8 text.
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

private struct StrictJSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    static let maximumDepth = 64

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected data after the JSON value") }
        return value
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: index) }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
        let expected = Array(literal.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw fail("invalid literal")
        }
        index += expected.count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("nesting too deep") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var object = JSONObject()
        var seen = Set<String>()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try parseString()
            guard seen.insert(key).inserted else { throw fail("duplicated member \"\(key)\"") }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            object[key] = try parseValue()
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
            index += 1
            depth -= 1
            return .object(object)
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
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
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
            index += 1
            depth -= 1
            return .array(elements)
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        func isDigit(_ i: Int) -> Bool { i < bytes.count && (0x30...0x39).contains(bytes[i]) }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw fail("leading zero in number") }
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { throw fail("invalid fraction") }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard isDigit(index) else { throw fail("invalid exponent") }
            while isDigit(index) { index += 1 }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let digit: UInt32
            switch c {
            case 0x30...0x39: digit = UInt32(c - 0x30)
            case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ end: Int) throws(JSONParseError) {
            guard runStart < end else { return }
            guard let run = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                throw JSONParseError(reason: "invalid UTF-8 in string", offset: runStart)
            }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                try flushRun(index)
                index += 1
                return String(scalars)
            }
            if c < 0x20 { throw fail("control character in string") }
            if c != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            try flushRun(index)
            index += 1
            guard index < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                let first = try parseHex4()
                var code = first
                if (0xD800...0xDBFF).contains(first) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { throw fail("lone high surrogate") }
                    index += 2
                    let second = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(second) else { throw fail("invalid surrogate pair") }
                    code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(first) {
                    throw fail("lone low surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("invalid code point") }
                scalars.append(scalar)
            default:
                throw fail("invalid escape")
            }
            runStart = index
        }
    }
}

extension JSONValue {
    /// Compact JSON text with members in their stored order.
    var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let literal): out += literal
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let elements):
            out += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
