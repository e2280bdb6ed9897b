/// The project's one way of writing a JSON string literal, with one escape policy.
///
/// Escaped: `"` and `\` as `\"` and `\\`; every C0 control (U+0000 to U+001F), DEL (U+007F), every C1
/// control (U+0080 to U+009F), the line and paragraph separators U+2028 and U+2029, and the bidi
/// embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069) as `\uXXXX` with lower-case hex
/// (`\u000a`, not `\n`: one spelling per character). Everything else is written as itself in UTF-8. So the
/// text is valid JSON (RFC 8259 section 7), valid inside a JavaScript string, and never moves a terminal,
/// reorders what it shows or splits a log line, whatever the string holds. The same set is what a terminal
/// must never receive raw from third-party text (``escapesAsHex(_:)``).
///
/// ```swift
/// JSONWriter.quoted("a\"b\n")  // "\"a\\\"b\\u000a\""
/// ```
public enum JSONWriter {
    /// Whether the policy writes `scalar` as a `\uXXXX` escape (`"` and `\` have their own two-byte escapes).
    @inlinable
    public static func escapesAsHex(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Appends `text` as a JSON string literal, quotes included, to UTF-8 `output`.
    public static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + text.utf8.count + 2)
        output.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case "\\": output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            default:
                if escapesAsHex(scalar) {
                    let value = Int(scalar.value)
                    output += [
                        UInt8(ascii: "\\"), UInt8(ascii: "u"), hexDigits[value >> 12 & 0xF],
                        hexDigits[value >> 8 & 0xF], hexDigits[value >> 4 & 0xF], hexDigits[value & 0xF],
                    ]
                } else {
                    output.append(contentsOf: scalar.utf8)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `text` as a JSON string literal, quotes included, to `output`.
    public static func appendQuoted(_ text: String, to output: inout String) {
        output += quoted(text)
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendQuoted(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An object of string members in the given order, compact: `{"a":"1","b":"2"}` (the caller keeps
    /// member names unique).
    public static func object(_ members: [(String, String)]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, member) in members.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendQuoted(member.0, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendQuoted(member.1, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
