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

    /// How many UTF-8 bytes `scalar` takes inside a JSON string literal under this policy: 2 for `"` and
    /// `\`, 6 for a `\uXXXX` escape, otherwise the scalar's own UTF-8 length (1 to 4).
    @inlinable
    public static func escapedByteCount(of scalar: Unicode.Scalar) -> Int {
        switch scalar {
        case "\"", "\\": 2
        default: escapesAsHex(scalar) ? 6 : UTF8.width(scalar)
        }
    }

    /// Hands `emit`, in order, the UTF-8 bytes of `scalar` as it stands inside a JSON string literal under
    /// this policy (``escapedByteCount(of:)`` of them).
    ///
    /// Allocates nothing and keeps no copy, so a caller can write text it must wipe (card data) straight into
    /// storage it owns: iterate the text's `unicodeScalars` and call this for each one (the byte form of
    /// `appendQuoted` is exactly that between two quotes). `emit` is called synchronously, on the caller's
    /// thread, and never stored.
    @inlinable
    public static func writeEscaped(_ scalar: Unicode.Scalar, _ emit: (UInt8) -> Void) {
        switch scalar {
        case "\"", "\\":
            emit(UInt8(ascii: "\\"))
            emit(UInt8(truncatingIfNeeded: scalar.value))
        default:
            if escapesAsHex(scalar) {
                // Every escaped scalar is at most U+FFFF: four hex digits, lower case.
                emit(UInt8(ascii: "\\"))
                emit(UInt8(ascii: "u"))
                emit(hexDigit(scalar.value >> 12 & 0xF))
                emit(hexDigit(scalar.value >> 8 & 0xF))
                emit(hexDigit(scalar.value >> 4 & 0xF))
                emit(hexDigit(scalar.value & 0xF))
            } else {
                for byte in scalar.utf8 { emit(byte) }
            }
        }
    }

    /// The lower-case hex digit for `nibble` (0 to 15).
    @usableFromInline
    static func hexDigit(_ nibble: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10)
    }

    /// Appends `text` as a JSON string literal, quotes included, to UTF-8 `output`.
    public static func appendQuoted(_ text: String, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + text.utf8.count + 2)
        output.append(UInt8(ascii: "\""))
        for scalar in text.unicodeScalars {
            writeEscaped(scalar) { output.append($0) }
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
    /// member names unique). The same text as ``JSONValue/jsonText`` of the object.
    public static func object(_ members: [(String, String)]) -> String {
        JSONValue.members(members.map { ($0.0, .string($0.1)) }).jsonText
    }
}
