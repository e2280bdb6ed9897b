import FuzzSupport
import ReplCore

/// egw-repl's fuzz target: one input line through the tokenizer, the command parser and the secret
/// policy, as the shell handles every line typed or read from a script.
enum ReplCoreFuzz {
    static let targets: [FuzzTarget] = [FuzzTarget("repl-line", check: checkLine)]

    /// The tolerant scan and the strict tokenizer agree (an error exactly when the scan saw an open
    /// quote or a trailing backslash, the same tokens otherwise); every token lies inside the line;
    /// the tokens, written back double-quoted, tokenize to the same words; a parse error points inside
    /// the line (or just past it), and neither its rendering nor its description shows a card number as
    /// the shell's own rule finds them; the display form keeps the width and shows none either; a line
    /// holding one never goes to the history.
    static func checkLine(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let line = String(decoding: input, as: UTF8.self)
        let width = line.count
        let scan = Tokenizer.scan(line)
        var tokens: [Token]?
        do { tokens = try Tokenizer.tokenize(line) } catch {
            try fuzzRequire(
                scan.unterminatedQuote != nil || scan.danglingEscapeColumn != nil,
                "tokenize fails on a line the scan found complete")
        }
        if let tokens {
            try fuzzRequire(
                scan.unterminatedQuote == nil && scan.danglingEscapeColumn == nil, "tokenize accepts an open line")
            try fuzzRequire(tokens == scan.tokens, "tokenize and scan give different tokens")
            for token in tokens {
                try fuzzRequire(
                    token.column >= 1 && token.length >= 1 && token.column + token.length - 1 <= width,
                    "a token lies outside the line")
            }
            // The tokenizer reads Characters: a word that starts with a combining mark would join the
            // quote put before it into one Character, and a word that ends with a prepended
            // concatenation mark (Grapheme_Cluster_Break=Prepend: U+0600–U+0605, U+06DD, U+070F,
            // U+08E2, U+110BD, ...) would join the quote put after it; such words cannot be re-quoted.
            if tokens.allSatisfy({
                ("\"" + $0.text).count == $0.text.count + 1 && ($0.text + "\"").count == $0.text.count + 1
            }) {
                let quoted = tokens.map { quote($0.text) }.joined(separator: " ")
                let again = try? Tokenizer.tokenize(quoted)
                try fuzzRequire(again?.map(\.text) == tokens.map(\.text), "re-quoted words tokenize differently")
            }
        }

        do {
            _ = try CommandParser().parse(line)
        } catch {
            if let column = error.column {
                try fuzzRequire((1...width + 1).contains(column), "an error column lies outside the line")
            }
            let rendered = error.rendered(line: line, lineNumber: 1)
            try fuzzRequire(!SecretPolicy.containsCardNumber(rendered), "a rendered error shows a card number")
            try fuzzRequire(
                !SecretPolicy.containsCardNumber(error.description), "an error description shows a card number")
        }

        let display = SecretPolicy.redactedForDisplay(line)
        try fuzzRequire(display.count == width, "the display form changes the width")
        try fuzzRequire(!SecretPolicy.containsCardNumber(display), "the display form shows a card number")
        if SecretPolicy.containsCardNumber(line) {
            try fuzzRequire(!SecretPolicy.shouldRecordInHistory(line), "a line with a card number goes to the history")
        }
    }

    /// `text` in double quotes, `"` and `\` escaped.
    static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
