internal import EGWWire

/// Text that came from a token or a key, made safe for an error reason, a log line or a terminal.
///
/// A token's header is chosen by whoever sent it: an `alg` of `"\u001b]52;c;…\u0007"` or one holding a C1
/// control (U+009B is a one-byte CSI on many terminals), a bidirectional override or a lookalike letter must not
/// reach a terminal or a log as is. Every error reason this package builds from token or key text goes through
/// ``escaped(_:)``, and ``JWEProtectedHeader/json`` through ``escapedJSON(_:)``.
public enum UntrustedText {
    /// `text` as printable ASCII: `"` and `\` get a backslash, and every character outside U+0020...U+007E (C0
    /// controls, DEL, C1 controls, anything non-ASCII) becomes a JSON `\uXXXX` escape (a UTF-16 surrogate pair
    /// above U+FFFF). Between double quotes the result is a JSON string with the same value as `text`.
    ///
    /// ```swift
    /// UntrustedText.escaped("RSA\u{9B}31m")   // RSA\u009b31m
    /// ```
    public static func escaped(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: output += "\\\""
            case 0x5C: output += "\\\\"
            case 0x20...0x7E: output.unicodeScalars.append(scalar)
            default: appendEscape(scalar, to: &output)
            }
        }
        return output
    }

    /// A JSON text with every character outside printable ASCII written as a `\uXXXX` escape, except the
    /// whitespace JSON allows between tokens (space, tab, line feed, carriage return). For a valid JSON text the
    /// result is valid JSON with the same value: such characters can only occur inside strings, where the escape
    /// means the same character.
    public static func escapedJSON(_ json: String) -> String {
        var output = ""
        output.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            switch scalar.value {
            case 0x20...0x7E, 0x09, 0x0A, 0x0D: output.unicodeScalars.append(scalar)
            default: appendEscape(scalar, to: &output)
            }
        }
        return output
    }

    /// `"` + ``escaped(_:)`` + `"`: how a reason quotes a value taken from a token or a key.
    static func quoted(_ text: String) -> String {
        "\"" + escaped(text) + "\""
    }

    private static func appendEscape(_ scalar: Unicode.Scalar, to output: inout String) {
        for unit in String(scalar).utf16 {
            let hex = String(unit, radix: 16)
            output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}

extension JSONSyntaxError {
    /// The fault for a reason: a duplicate member's name is quoted with ``UntrustedText/quoted(_:)``, so the
    /// reason stays printable ASCII whatever the token or key held.
    var escapedDescription: String {
        guard let name = duplicateName else { return description }
        return "duplicate member \(UntrustedText.quoted(name)) at byte \(offset)"
    }
}
