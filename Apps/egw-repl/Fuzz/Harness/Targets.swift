import CardValidation
import FuzzSupport
import ReplCore

/// egw-repl's fuzz target: one input line through the tokenizer, the command parser and the secret
/// policy, as the shell handles every line typed or read from a script.
enum ReplCoreFuzz {
    static let targets: [FuzzTarget] = [
        FuzzTarget("repl-line", check: checkLine),
        FuzzTarget("card-number-agreement", check: checkCardNumberAgreement),
    ]

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
            // quote put before it into one Character, a word that ends with a prepended concatenation
            // mark (Grapheme_Cluster_Break=Prepend: U+0600–U+0605, U+06DD, U+070F, U+08E2, U+110BD, ...)
            // the quote put after it, and such a mark before a `"` or `\` inside the word the backslash
            // put before it; such words cannot be re-quoted. Re-quoting is checked when quoting added
            // exactly its own Characters: two quotes and one backslash per standalone `"` or `\`.
            if tokens.allSatisfy({ token in
                let escapes = token.text.filter { $0 == "\"" || $0 == "\\" }.count
                return quote(token.text).count == token.text.count + 2 + escapes
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

    /// The three readers of a card number agree on any line: every stretch of the line that the SDK's
    /// parser reads as a valid card number (a maximal stretch of characters `CardNumber.digits(of:)`
    /// takes, validated by `CardInput` as the number field) is masked by `CardNumberRedaction.redact`,
    /// keeps the line out of the shell's history, and is shown by neither the shell's display form
    /// nor its typed-text masking; every card number `redact` finds is one by the parser, and its
    /// masked form shows the last four digits of that very number (never digits from beyond it).
    static func checkCardNumberAgreement(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let line = String(decoding: input, as: UTF8.self)
        let numbers = parsedCardNumbers(in: line)
        if !numbers.isEmpty {
            try fuzzRequire(CardNumberRedaction.containsCardNumber(line), "redaction misses a number the parser reads")
            try fuzzRequire(!SecretPolicy.shouldRecordInHistory(line), "a number the parser reads goes to the history")
        }
        try fuzzRequire(
            parsedCardNumbers(in: CardNumberRedaction.redact(line)).isEmpty, "redact leaves a number the parser reads")
        try fuzzRequire(
            parsedCardNumbers(in: SecretPolicy.redactedForDisplay(line)).isEmpty,
            "the shell's display shows a number the parser reads")
        try fuzzRequire(
            parsedCardNumbers(in: SecretPolicy.maskTypedCardNumbers(in: line)).isEmpty,
            "the shell's typed masking shows a number the parser reads")
        for card in CardNumberRedaction.cardNumbers(in: line) {
            let text = String(line[card.range])
            let field = CardInput()
            field.cardNumber = text
            try fuzzRequire(field.validationIssue(for: .cardNumber) == nil, "redaction masks what the parser refuses")
            let digits = text.unicodeScalars.filter { ("0"..."9").contains($0) }.map(Character.init)
            try fuzzRequire(
                card.masked == "•••• " + String(digits.suffix(4)), "a mask takes digits from beyond the number")
        }
    }

    /// The stretches of `text` the parser reads as a valid card number: maximal stretches of code
    /// points each of which `CardNumber.digits(of:)` accepts alone (a digit or a separator), trimmed
    /// to their digits, that `CardInput` validates as a number.
    static func parsedCardNumbers(in text: String) -> [String] {
        var found: [String] = []
        var stretch = String.UnicodeScalarView()
        func close() {
            let candidate = String(stretch)
            stretch = String.UnicodeScalarView()
            guard let digits = CardNumber.digits(of: candidate), digits.count >= CardNumber.minimumLength else {
                return
            }
            let field = CardInput()
            field.cardNumber = candidate
            if field.validationIssue(for: .cardNumber) == nil { found.append(candidate) }
        }
        for scalar in text.unicodeScalars {
            if CardNumber.digits(of: String(Character(scalar))) != nil {
                stretch.append(scalar)
            } else {
                close()
            }
        }
        close()
        return found
    }

    /// `text` in double quotes, `"` and `\` escaped.
    static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
