import EGWWire

// The sandbox's JSON is EGWWire's: `StrictJSONParser` reads every body (RFC 8259 strictly: one value, no
// trailing bytes, valid UTF-8, no duplicated members, no lone surrogates, no leading zeros, nesting at most
// 64), `JSONValue` holds it, `JSONObjectBuilder` builds answers with their members in a stable order, and
// `JSONValue.jsonBytes` writes them with EGWWire's one escape policy. What follows is only what the
// sandbox's readers ask of a value and how its refusals name things.

extension JSONValue {
    /// The flag when `self` is `true` or `false`; nil for every other value.
    var boolValue: Bool? {
        guard case .bool(let flag) = self else { return nil }
        return flag
    }

    /// The number as a `Double` (any JSON number literal); nil when `self` is not a number.
    var doubleValue: Double? {
        guard case .number(let literal) = self else { return nil }
        return Double(literal)
    }

    /// The member names in order when `self` is an object; empty for every other value.
    var memberNames: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.name)
    }

    /// A short name of the JSON type, for error messages.
    var typeName: String { kind.typeName }
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

extension JSONSyntaxError {
    /// The reason for a reply: a duplicate member's name is quoted with EGWWire's JSON writer (controls
    /// escaped), so a client sees which member without the sandbox echoing raw bytes.
    var replyReason: String {
        guard let name = duplicateName else { return reason }
        return "duplicate member \(JSONWriter.quoted(name))"
    }
}
