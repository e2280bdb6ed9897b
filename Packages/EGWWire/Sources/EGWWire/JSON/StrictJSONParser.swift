/// An RFC 8259 parser that refuses what lenient parsers let through: invalid UTF-8, duplicate member names
/// (compared after unescaping), trailing bytes, numbers with leading zeros, lone surrogate escapes, raw
/// control characters in strings, and nesting deeper than a limit (64 unless told). Every refusal is a
/// ``JSONSyntaxError`` with the exact byte offset of the fault.
///
/// The text is validated in place: no `String` of the whole input is made. ``parse(_:maximumDepth:wipe:)-([UInt8],_,_)``
/// builds a ``JSONValue``, passing the scratch bytes of each decoded string through `wipe` before they are
/// released (a secure wipe when strings may hold secrets, such as a private JWK).
/// ``scanShallow(_:maximumDepth:)`` makes the same checks and builds nothing but the top-level member names;
/// ``decodeString(at:in:into:)`` then feeds one string's scalars to storage of the caller's choosing (card
/// numbers that never become a `String`).
///
/// ```swift
/// let value = try StrictJSONParser.parse(Array(#"{"kty":"RSA"}"#.utf8))
/// value[member: "kty"]  // .string("RSA")
/// ```
public struct StrictJSONParser {
    /// The nesting limit when the caller gives none.
    public static let defaultMaximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    private let maximumDepth: Int
    private let wipe: (inout [UInt8]) -> Void

    private init(
        bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, wipe: @escaping (inout [UInt8]) -> Void = { _ in }
    ) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.wipe = wipe
    }

    /// Parses one JSON text: any value at top level, surrounded by optional whitespace.
    ///
    /// - Parameters:
    ///   - bytes: the JSON text, UTF-8.
    ///   - maximumDepth: how many objects and arrays may enclose one another.
    ///   - wipe: called on every scratch buffer that held string bytes before it is released.
    /// - Throws: ``JSONSyntaxError`` at the first fault.
    public static func parse(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth,
        wipe: (inout [UInt8]) -> Void = { _ in }
    ) throws(JSONSyntaxError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONValue in
            try parse(buffer, maximumDepth: maximumDepth, wipe: wipe)
        }
    }

    /// Parses one JSON text held in `bytes`; see ``parse(_:maximumDepth:wipe:)-([UInt8],_,_)``.
    public static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int = defaultMaximumDepth,
        wipe: (inout [UInt8]) -> Void = { _ in }
    ) throws(JSONSyntaxError) -> JSONValue {
        try withoutActuallyEscaping(wipe) { (wipe) throws(JSONSyntaxError) -> JSONValue in
            var parser = StrictJSONParser(bytes: bytes, maximumDepth: maximumDepth, wipe: wipe)
            parser.skipWhitespace()
            let value = try parser.parseValue()
            try parser.expectEnd()
            return value
        }
    }

    /// Checks `bytes` exactly as ``parse(_:maximumDepth:wipe:)-(UnsafeBufferPointer<UInt8>,_,_)`` does (the
    /// same refusals, codes and offsets) but builds no value and no string except the top-level object's
    /// member names, which it needs to refuse duplicates. A string member's contents stay in `bytes` until
    /// the caller decodes them with ``decodeString(at:in:into:)``.
    public static func scanShallow(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONSyntaxError) -> JSONShallowDocument {
        var parser = StrictJSONParser(bytes: bytes, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else {
            let kind = try parser.skipValue()
            try parser.expectEnd()
            return JSONShallowDocument(kind: kind, members: [])
        }
        var members: [JSONShallowDocument.Member] = []
        try parser.scanObject { (parser, name) throws(JSONSyntaxError) in
            let start = parser.index
            let kind = try parser.skipValue()
            members.append(
                .init(
                    name: name, kind: kind, stringStart: kind == .string ? start : nil, valueRange: start..<parser.index
                ))
        }
        try parser.expectEnd()
        return JSONShallowDocument(kind: .object, members: members)
    }

    /// Decodes the string whose opening quote is at `quote` in `bytes` (a member that
    /// ``scanShallow(_:maximumDepth:)`` read from the same bytes), feeding its scalars to `sink`.
    public static func decodeString<Sink: JSONScalarSink & ~Copyable>(
        at quote: Int, in bytes: UnsafeBufferPointer<UInt8>, into sink: inout Sink
    ) throws(JSONSyntaxError) {
        precondition(bytes.indices.contains(quote) && bytes[quote] == UInt8(ascii: "\""), "not a string's start")
        var parser = StrictJSONParser(bytes: bytes, maximumDepth: defaultMaximumDepth)
        parser.index = quote
        try parser.scanString(into: &sink)
    }

    private func fail(_ code: JSONSyntaxError.Code, _ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(code, reason, offset: index)
    }

    private mutating func expectEnd() throws(JSONSyntaxError) {
        skipWhitespace()
        guard index == bytes.count else { throw fail(.trailingBytes, "unexpected bytes after the JSON value") }
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
        case UInt8(ascii: "{"):
            var members: [JSONMember] = []
            try scanObject { (parser, name) throws(JSONSyntaxError) in
                members.append(JSONMember(name: name, value: try parser.parseValue()))
            }
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [JSONValue] = []
            try scanArray { (parser) throws(JSONSyntaxError) in elements.append(try parser.parseValue()) }
            return .array(elements)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(String(decoding: bytes[try scanNumber()], as: UTF8.self))
        default: throw fail(.unexpectedCharacter, "unexpected character")
        }
    }

    /// Checks one value as `parseValue` does, keeping none of its strings or numbers.
    private mutating func skipValue() throws(JSONSyntaxError) -> JSONKind {
        guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try scanObject { (parser, _) throws(JSONSyntaxError) in _ = try parser.skipValue() }
            return .object
        case UInt8(ascii: "["):
            try scanArray { (parser) throws(JSONSyntaxError) in _ = try parser.skipValue() }
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

    /// Reads an object, handing each member's value to `member` with the parser at its first byte.
    private mutating func scanObject(
        _ member: (inout StrictJSONParser, String) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        try enter()
        // Names are compared scalar by scalar (RFC 8259 section 8.3), not by Swift's canonical
        // equivalence, under which "K" and U+212A KELVIN SIGN would be one name.
        var names = Set<[Unicode.Scalar]>()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            guard bytes[index] == UInt8(ascii: "\"") else { throw fail(.unexpectedCharacter, "expected a member name") }
            let nameOffset = index
            let name = try parseString()
            guard names.insert(Array(name.unicodeScalars)).inserted else {
                throw JSONSyntaxError(
                    .duplicateMember, "duplicate member name", offset: nameOffset, duplicateName: name)
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':'")
            skipWhitespace()
            try member(&self, name)
            skipWhitespace()
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "expected ',' or '}'")
            depth -= 1
            return
        }
    }

    /// Reads an array, handing each element to `element` with the parser at its first byte.
    private mutating func scanArray(
        _ element: (inout StrictJSONParser) throws(JSONSyntaxError) -> Void
    ) throws(JSONSyntaxError) {
        try enter()
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
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"), "expected ',' or ']'")
            depth -= 1
            return
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

    /// Checks a number literal; returns where it lies.
    private mutating func scanNumber() throws(JSONSyntaxError) -> Range<Int> {
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
        return start..<index
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

    /// The scalar of the well-formed UTF-8 sequence at `index` (Unicode table 3-7) and its length, or nil.
    private func utf8Sequence() -> (scalar: Unicode.Scalar, length: Int)? {
        let lead = bytes[index]
        let second: ClosedRange<UInt8>
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: (second, length, value) = (0x80...0xBF, 2, UInt32(lead & 0x1F))
        case 0xE0: (second, length, value) = (0xA0...0xBF, 3, UInt32(lead & 0x0F))
        case 0xE1...0xEC, 0xEE...0xEF: (second, length, value) = (0x80...0xBF, 3, UInt32(lead & 0x0F))
        case 0xED: (second, length, value) = (0x80...0x9F, 3, UInt32(lead & 0x0F))
        case 0xF0: (second, length, value) = (0x90...0xBF, 4, UInt32(lead & 0x07))
        case 0xF1...0xF3: (second, length, value) = (0x80...0xBF, 4, UInt32(lead & 0x07))
        case 0xF4: (second, length, value) = (0x80...0x8F, 4, UInt32(lead & 0x07))
        default: return nil
        }
        guard index + length <= bytes.count, second.contains(bytes[index + 1]) else { return nil }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard (0x80...0xBF).contains(byte) else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        // Reserved at its final size before the first byte is written: a buffer that grew by reallocation
        // would leave unwiped copies of its prefixes behind (a private JWK's d, p, q), out of `wipe`'s reach.
        var sink = UTF8Scratch(capacity: encodedLength(ofStringAt: index))
        defer { wipe(&sink.bytes) }
        try scanString(into: &sink)
        return String(decoding: sink.bytes, as: UTF8.self)
    }

    /// The bytes between the quote at `quote` and the string's closing quote (or the end of the input): an
    /// upper bound of the string's decoded UTF-8, since an escape never decodes to more bytes than it takes.
    private func encodedLength(ofStringAt quote: Int) -> Int {
        var position = quote + 1
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\\"): position += 2
            case UInt8(ascii: "\""): return position - quote - 1
            default: position += 1
            }
        }
        return bytes.count - quote - 1
    }

    /// Reads the string at `index` (its opening quote), feeding its scalars to `sink`.
    private mutating func scanString<Sink: JSONScalarSink & ~Copyable>(
        into sink: inout Sink
    ) throws(JSONSyntaxError) {
        index += 1  // opening quote
        while true {
            guard index < bytes.count else { throw fail(.unexpectedEnd, "unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return
            case 0x00..<0x20:
                throw fail(.controlCharacter, "control character in string")
            case UInt8(ascii: "\\"):
                sink.append(try parseEscape())
            case 0x80...:
                guard let (scalar, length) = utf8Sequence() else { throw fail(.invalidUTF8, "not valid UTF-8") }
                sink.append(scalar)
                index += length
            default:
                sink.append(Unicode.Scalar(byte))
                index += 1
            }
        }
    }

    private mutating func parseEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let start = index
        index += 1  // backslash
        guard index < bytes.count else { throw fail(.unexpectedEnd, "unterminated escape") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
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
            return Unicode.Scalar(scalar)!
        default:
            throw JSONSyntaxError(.invalidEscape, "invalid escape", offset: start)
        }
    }
}

/// Receives the Unicode scalars of one JSON string as the strict parser decodes them (escapes resolved,
/// UTF-8 validated), so a caller can keep a string's contents somewhere other than a `String`.
public protocol JSONScalarSink: ~Copyable {
    /// Takes the next scalar of the string.
    mutating func append(_ scalar: Unicode.Scalar)
}

/// The type of a JSON value, known also for a value read without building it.
public enum JSONKind: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool
    /// A number.
    case number
    /// A string.
    case string
    /// An array.
    case array
    /// An object.
    case object
}

/// A JSON document read by ``StrictJSONParser/scanShallow(_:maximumDepth:)``: checked in full, no value built.
public struct JSONShallowDocument: Sendable, Equatable {
    /// A member of the top-level object.
    public struct Member: Sendable, Equatable {
        /// The member name, decoded.
        public var name: String
        /// The type of the member's value.
        public var kind: JSONKind
        /// For a string, the offset of its opening quote, for
        /// ``StrictJSONParser/decodeString(at:in:into:)``.
        public var stringStart: Int?
        /// Where the member's value lies in the scanned bytes (already checked: parse that slice with
        /// ``StrictJSONParser/parse(_:maximumDepth:wipe:)-(UnsafeBufferPointer<UInt8>,_,_)`` to build it
        /// alone); nil for a member made by hand.
        public var valueRange: Range<Int>?

        /// A member named `name` of type `kind`.
        public init(name: String, kind: JSONKind, stringStart: Int?, valueRange: Range<Int>? = nil) {
            self.name = name
            self.kind = kind
            self.stringStart = stringStart
            self.valueRange = valueRange
        }
    }

    /// The type of the top-level value.
    public var kind: JSONKind
    /// The top-level object's members in order (none when the document is not an object).
    public var members: [Member]

    /// A document of type `kind` with `members`.
    public init(kind: JSONKind, members: [Member]) {
        self.kind = kind
        self.members = members
    }

    /// The member named `name`, if any; names match scalar by scalar.
    public subscript(name: String) -> Member? {
        members.first { JSONMember.namesMatch($0.name, name) }
    }
}

extension JSONValue {
    /// The JSON type of the value.
    public var kind: JSONKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }
}

/// Collects a string's UTF-8 for ``StrictJSONParser/parse(_:maximumDepth:wipe:)-([UInt8],_,_)``.
private struct UTF8Scratch: JSONScalarSink {
    var bytes: [UInt8]
    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }
    mutating func append(_ scalar: Unicode.Scalar) {
        assert(bytes.count + scalar.utf8.count <= bytes.capacity, "the scratch would be reallocated")
        bytes.append(contentsOf: scalar.utf8)
    }
}

/// Checks a string and keeps nothing of it.
private struct DiscardingSink: JSONScalarSink {
    mutating func append(_ scalar: Unicode.Scalar) {}
}
