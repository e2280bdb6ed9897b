/// Writing a ``JSONValue``: the project's one JSON serialiser (the sandbox's answers, the shell's JSON
/// lines, the SDK's request bodies), compact, members in order, strings through ``JSONWriter``'s one
/// escape policy.
extension JSONValue {
    /// A number from an integer.
    public static func int(_ value: Int) -> JSONValue { .number(String(value)) }

    /// An object from members in order (the caller keeps names unique; see ``JSONObjectBuilder``).
    public static func members(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(members.map { JSONMember(name: $0.0, value: $0.1) })
    }

    /// The integer when `self` is a number written as one that fits an `Int`; nil otherwise.
    public var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        return Int(text)
    }

    /// Appends the compact JSON text of `self` (no whitespace) to UTF-8 `output`. A number is written
    /// as its text, which the caller keeps a valid JSON number (``int(_:)`` does).
    public func write(to output: inout [UInt8]) {
        switch self {
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.appendQuoted(member.name, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .string(let text): JSONWriter.appendQuoted(text, to: &output)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null: output.append(contentsOf: "null".utf8)
        }
    }

    /// The compact JSON text as UTF-8 bytes.
    public var jsonBytes: [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    /// The compact JSON text.
    public var jsonText: String { String(decoding: jsonBytes, as: UTF8.self) }
}

/// Builds a JSON object member by member, in order: setting a name already present replaces its value
/// where it stands, so names stay unique (names compare scalar by scalar, as the parser's do).
public struct JSONObjectBuilder: Sendable {
    /// The members so far, in order.
    public private(set) var members: [JSONMember] = []

    /// An empty object.
    public init() {}

    /// An object with these members, in order (a repeated name keeps its first place, its last value).
    public init(_ members: [(String, JSONValue)]) {
        for (name, value) in members { self[name] = value }
    }

    /// An object with these members, in order, written as a literal: `["id": .string(id), "note": note]`.
    /// A member whose value is nil is left out (so an optional field is written only when present); a
    /// repeated name keeps its first place, its last non-nil value.
    public init(_ members: KeyValuePairs<String, JSONValue?>) {
        for (name, value) in members {
            if let value { self[name] = value }
        }
    }

    /// The value of `name`; setting `nil` removes the member.
    public subscript(name: String) -> JSONValue? {
        get { members.first { JSONMember.namesMatch($0.name, name) }?.value }
        set {
            let index = members.firstIndex { JSONMember.namesMatch($0.name, name) }
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append(JSONMember(name: name, value: value))
            case (nil, nil): break
            }
        }
    }

    /// The object.
    public var value: JSONValue { .object(members) }
}
