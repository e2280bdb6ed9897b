import EGWWire

/// A tiny JSON writer with stable key order (the shell's `--json` output); strings are written by
/// EGWWire's one escape policy.
enum JSONValue: Equatable {
    case string(String)
    case number(Int)
    case bool(Bool)
    case null
    case object([(String, JSONValue)])
    case array([JSONValue])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.text == rhs.text
    }

    /// Compact JSON text.
    var text: String {
        switch self {
        case .string(let value): JSONWriter.quoted(value)
        case .number(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .object(let members):
            "{" + members.map { "\(JSONWriter.quoted($0.0)):\($0.1.text)" }.joined(separator: ",") + "}"
        case .array(let values):
            "[" + values.map(\.text).joined(separator: ",") + "]"
        }
    }
}
