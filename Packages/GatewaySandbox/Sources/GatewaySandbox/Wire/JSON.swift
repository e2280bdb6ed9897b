import EGWWire

/// A JSON value as the sandbox reads and writes it.
///
/// Parsing is EGWWire's strict parser (RFC 8259): one value, no trailing bytes, valid
/// UTF-8, no duplicated object members (Foundation silently keeps one of them), no lone
/// surrogates, no leading zeros, nesting at most 64. Objects keep their member order so written JSON
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

    /// Keys match scalar by scalar, as EGWWire's parser tells member names apart
    /// (`JSONMember.namesMatch`): a parsed `{"K":1,"\u212a":2}` keeps both members.
    subscript(key: String) -> JSONValue? {
        get { members.first(where: { JSONMember.namesMatch($0.key, key) })?.value }
        set {
            if let index = members.firstIndex(where: { JSONMember.namesMatch($0.key, key) }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }
}

extension JSONKind {
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

/// Why a JSON text was refused: EGWWire's error (a code, the exact byte offset, a reason).
typealias JSONParseError = JSONSyntaxError

extension JSONSyntaxError {
    /// The reason for a reply: a duplicate member's name is quoted with EGWWire's JSON writer (controls
    /// escaped), so a client sees which member without the sandbox echoing raw bytes.
    var replyReason: String {
        guard let name = duplicateName else { return reason }
        return "duplicate member \(JSONWriter.quoted(name))"
    }
}

extension JSONValue {
    /// Parses exactly one JSON value from `bytes` with EGWWire's strict parser.
    static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        JSONValue(try StrictJSONParser.parse(Array(bytes)))
    }

    /// Parses exactly one JSON value from UTF-8 text.
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Checks `bytes` exactly as ``parse(_:)-swift.type.method`` does (the same refusals, codes and
    /// offsets) but builds no value and no string except the top-level object's member names. For
    /// secrets: a string member's contents stay in `bytes` until the caller decodes them with
    /// ``decodeString(at:in:into:)`` into storage of its choosing.
    static func scanShallow(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONShallowDocument {
        try StrictJSONParser.scanShallow(bytes)
    }

    /// Decodes the string whose opening quote is at `quote` in `bytes` (a member that
    /// ``scanShallow(_:)`` read from the same bytes), feeding its scalars to `sink`.
    static func decodeString<Sink: JSONScalarSink & ~Copyable>(
        at quote: Int, in bytes: UnsafeBufferPointer<UInt8>, into sink: inout Sink
    ) throws(JSONParseError) {
        try StrictJSONParser.decodeString(at: quote, in: bytes, into: &sink)
    }

    /// The sandbox's value for one EGWWire parsed, member order kept (names are unique already).
    init(_ parsed: EGWWire.JSONValue) {
        switch parsed {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let literal): self = .number(literal)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let members):
            var object = JSONObject()
            for member in members { object[member.name] = JSONValue(member.value) }
            self = .object(object)
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
