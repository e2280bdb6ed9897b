/// A tiny JSON writer with stable key order (the shell's `--json` output).
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
        case .string(let value): Self.quote(value)
        case .number(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        case .object(let members):
            "{" + members.map { "\(Self.quote($0.0)):\($0.1.text)" }.joined(separator: ",") + "}"
        case .array(let values):
            "[" + values.map(\.text).joined(separator: ",") + "]"
        }
    }

    static func quote(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
