import EGWWire

/// The shell's one terminal-safe escape for third-party text (page titles, gateway messages and statuses,
/// paths, header values, key IDs): every character EGWWire's escape policy writes as `\uXXXX` in JSON
/// (``JSONWriter/escapesAsHex(_:)``: C0 and C1 controls, DEL, U+2028/U+2029, the bidi embeddings, overrides
/// and isolates U+202A to U+202E and U+2066 to U+2069) is shown as that same visible `\uXXXX`, so no text from
/// outside can move the cursor, retitle the window, clear the screen or reorder what the terminal shows.
/// The shell's own styling is added after, around the escaped text.
///
/// ```swift
/// TerminalText.escaped("Pay\u{1B}]0;pwned\u{07}")  // "Pay\\u001b]0;pwned\\u0007"
/// ```
enum TerminalText {
    private static let hexDigits = Array("0123456789abcdef")

    /// `text` with every control and bidi character as a visible `\uXXXX` (lower-case hex).
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: JSONWriter.escapesAsHex) else { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard JSONWriter.escapesAsHex(scalar) else {
                output.append(scalar)
                continue
            }
            // Every escaped scalar is below U+10000: four digits.
            let value = Int(scalar.value)
            output.append(contentsOf: "\\u".unicodeScalars)
            for shift in [12, 8, 4, 0] {
                output.append(hexDigits[value >> shift & 0xF].unicodeScalars.first!)
            }
        }
        return String(output)
    }
}
