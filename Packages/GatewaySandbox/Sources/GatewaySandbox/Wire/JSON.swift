import EGWWire

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

    /// The JSON type.
    var kind: JSONKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// A short name of the JSON type, for error messages.
    var typeName: String { kind.typeName }
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

/// The type of a JSON value, known also for a value read without building it.
enum JSONKind: Sendable, Equatable {
    case null, bool, number, string, array, object

    /// A short name of the type, for error messages.
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

/// Receives the Unicode scalars of one JSON string as the strict parser decodes them (escapes
/// resolved, UTF-8 validated), so a caller can keep a string's contents somewhere other than a
/// `String`.
protocol JSONScalarSink: ~Copyable {
    mutating func append(_ scalar: Unicode.Scalar)
}

/// A JSON document read by ``JSONValue/scanShallow(_:)``: checked in full, but with no value built.
struct JSONShallowDocument: Sendable, Equatable {
    /// A member of the top-level object.
    struct Member: Sendable, Equatable {
        /// The member name, decoded.
        var name: String
        var kind: JSONKind
        /// For a string, the offset of its opening quote, for ``JSONValue/decodeString(at:in:into:)``.
        var stringStart: Int?
    }

    /// The type of the top-level value.
    var kind: JSONKind
    /// The top-level object's members in order (none when the document is not an object).
    var members: [Member]

    subscript(name: String) -> Member? { members.first { $0.name == name } }
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
        try Array(bytes).withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var parser = StrictJSONParser(bytes: buffer)
            return try parser.parseDocument()
        }
    }

    /// Parses exactly one JSON value from UTF-8 text.
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Checks `bytes` exactly as ``parse(_:)-swift.type.method`` does (the same refusals, reasons and
    /// offsets) but builds no value and no string except the top-level object's member names, which
    /// it needs to refuse duplicates. For secrets: a string member's contents stay in `bytes` until
    /// the caller decodes them with ``decodeString(at:in:into:)`` into storage of its choosing.
    static func scanShallow(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONShallowDocument {
        var parser = StrictJSONParser(bytes: bytes)
        return try parser.scanShallowDocument()
    }

    /// Decodes the string whose opening quote is at `quote` in `bytes` (a member that
    /// ``scanShallow(_:)`` read from the same bytes), feeding its scalars to `sink`.
    static func decodeString<Sink: JSONScalarSink & ~Copyable>(
        at quote: Int, in bytes: UnsafeBufferPointer<UInt8>, into sink: inout Sink
    ) throws(JSONParseError) {
        precondition(bytes.indices.contains(quote) && bytes[quote] == UInt8(ascii: "\""), "not a string's start")
        var parser = StrictJSONParser(bytes: bytes)
        parser.index = quote
        try parser.scanString(into: &sink)
    }
}

/// Builds a `String`.
private struct StringSink: JSONScalarSink {
    var scalars = String.UnicodeScalarView()
    mutating func append(_ scalar: Unicode.Scalar) { scalars.append(scalar) }
}

/// Checks a string and keeps nothing of it.
private struct DiscardingSink: JSONScalarSink {
    mutating func append(_ scalar: Unicode.Scalar) {}
}

/// The one strict JSON reader: `parseValue` builds values, `skipValue` checks them with the same
/// code and keeps nothing, and every string goes through `scanString` into a sink.
private struct StrictJSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    static let maximumDepth = 64

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        try expectEnd()
        return value
    }

    mutating func scanShallowDocument() throws(JSONParseError) -> JSONShallowDocument {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else {
            let kind = try skipValue()
            try expectEnd()
            return JSONShallowDocument(kind: kind, members: [])
        }
        var members: [JSONShallowDocument.Member] = []
        try scanObject { (parser, name) throws(JSONParseError) in
            let start = parser.index
            let kind = try parser.skipValue()
            members.append(.init(name: name, kind: kind, stringStart: kind == .string ? start : nil))
        }
        try expectEnd()
        return JSONShallowDocument(kind: .object, members: members)
    }

    mutating func expectEnd() throws(JSONParseError) {
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected data after the JSON value") }
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: index) }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            var object = JSONObject()
            try scanObject { (parser, key) throws(JSONParseError) in object[key] = try parser.parseValue() }
            return .object(object)
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            try scanArray { (parser) throws(JSONParseError) in elements.append(try parser.parseValue()) }
            return .array(elements)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(String(decoding: bytes[try scanNumber()], as: UTF8.self))
        default: throw fail("unexpected character")
        }
    }

    /// Checks one value as `parseValue` does, keeping none of its strings or numbers.
    mutating func skipValue() throws(JSONParseError) -> JSONKind {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try scanObject { (parser, _) throws(JSONParseError) in _ = try parser.skipValue() }
            return .object
        case UInt8(ascii: "["):
            try scanArray { (parser) throws(JSONParseError) in _ = try parser.skipValue() }
            return .array
        case UInt8(ascii: "\""):
            var sink = DiscardingSink()
            try scanString(into: &sink)
            return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try scanNumber()
            return .number
        default:
            return try parseValue().kind  // a literal (nothing of the input kept) or the error
        }
    }

    mutating func expectLiteral(_ literal: String) throws(JSONParseError) {
        let expected = Array(literal.utf8)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
        else {
            throw fail("invalid literal")
        }
        index += expected.count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("nesting too deep") }
    }

    /// Reads an object, handing each member's value to `member` with the parser at its first byte.
    mutating func scanObject(
        _ member: (inout StrictJSONParser, String) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        try enter()
        index += 1
        var seen = Set<String>()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
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
            try member(&self, key)
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
            index += 1
            depth -= 1
            return
        }
    }

    /// Reads an array, handing each element to `element` with the parser at its first byte.
    mutating func scanArray(_ element: (inout StrictJSONParser) throws(JSONParseError) -> Void) throws(JSONParseError) {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            try element(&self)
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
            index += 1
            depth -= 1
            return
        }
    }

    /// Checks a number literal; returns where it lies.
    mutating func scanNumber() throws(JSONParseError) -> Range<Int> {
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
        return start..<index
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
        var sink = StringSink()
        try scanString(into: &sink)
        return String(sink.scalars)
    }

    /// Reads the string at `index` (its opening quote), feeding its scalars to `sink`.
    mutating func scanString<Sink: JSONScalarSink & ~Copyable>(into sink: inout Sink) throws(JSONParseError) {
        index += 1  // opening quote
        var runStart = index
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                try decodeRun(runStart..<index, into: &sink)
                index += 1
                return
            }
            if c < 0x20 { throw fail("control character in string") }
            if c != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            try decodeRun(runStart..<index, into: &sink)
            index += 1
            guard index < bytes.count else { throw fail("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): sink.append("\"")
            case UInt8(ascii: "\\"): sink.append("\\")
            case UInt8(ascii: "/"): sink.append("/")
            case UInt8(ascii: "b"): sink.append("\u{08}")
            case UInt8(ascii: "f"): sink.append("\u{0C}")
            case UInt8(ascii: "n"): sink.append("\n")
            case UInt8(ascii: "r"): sink.append("\r")
            case UInt8(ascii: "t"): sink.append("\t")
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
                sink.append(scalar)
            default:
                throw fail("invalid escape")
            }
            runStart = index
        }
    }

    /// Validates and decodes a run of unescaped string bytes with the standard library's UTF-8
    /// decoder (overlong forms, surrogates and values past U+10FFFF are errors), making no `String`.
    func decodeRun<Sink: JSONScalarSink & ~Copyable>(_ run: Range<Int>, into sink: inout Sink) throws(JSONParseError) {
        var iterator = bytes[run].makeIterator()
        var decoder = Unicode.UTF8.ForwardParser()
        while true {
            switch decoder.parseScalar(from: &iterator) {
            case .valid(let encoded): sink.append(Unicode.UTF8.decode(encoded))
            case .emptyInput: return
            case .error: throw JSONParseError(reason: "invalid UTF-8 in string", offset: run.lowerBound)
            }
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
        case .string(let s): JSONWriter.appendQuoted(s, to: &out)
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
                JSONWriter.appendQuoted(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }
}
