import CardValidation

/// What counts as a secret in REPL input, and how it is kept out of the history
/// file, error echoes and messages.
///
/// - Card numbers are found and masked by CardValidation's one rule,
///   `CardNumberRedaction`: a digit run of 12 to 19 digits (single spaces or
///   dashes between digits) that passes Luhn, shown as `•••• 1234`. Ids,
///   amounts and timestamps in messages and SDK output are left alone.
/// - A line the user typed is stricter (the REPL did not write it, and a
///   mistyped number is still a card number): any digit run of 12 or more
///   digits, Luhn or not, keeps the line out of history and is masked when the
///   line is echoed under an error. Same scanner, same masked form.
/// - A security code is anything after `card cvc`.
/// - The verification key is the fourth word of `payment use ID KEY ...`.
/// - A 3-D Secure challenge code (`buyer challenge CODE`) is treated as secret too.
public enum SecretPolicy {
    /// The masking character used everywhere (one column wide).
    public static let maskCharacter: Character = "•"

    /// Whether `line` may be written to the history file.
    ///
    /// Never records a line holding a card number or a security code, a
    /// `payment use` line (it holds the verification key), a `buyer challenge`
    /// line, or a `card` line whose sub-command is unknown and carries arguments
    /// (it may be a mistyped `card cvc`).
    public static func shouldRecordInHistory(_ line: String) -> Bool {
        if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
            return false
        }
        if containsCardNumber(line) {
            return false
        }
        let words = Tokenizer.scan(line).tokens.map { $0.text.lowercased() }
        guard let first = words.first else {
            return true
        }
        let second = words.count > 1 ? words[1] : nil
        switch first {
        case "card":
            guard let second else {
                return true
            }
            switch second {
            case "cvc":
                return false
            case "number":
                return words.count == 2
            case "name", "expiry", "test", "show", "check", "clear":
                return true
            default:
                return words.count == 2 && !second.contains(where: \.isNumber)
            }
        case "payment":
            return second != "use"
        case "buyer":
            return second != "challenge"
        default:
            return true
        }
    }

    /// Whether a line typed while a 3-D Secure challenge page waits for its answer may be written to the
    /// history file: never, since a bare word there is the challenge code itself.
    public static func shouldRecordInHistory(_ line: String, answeringChallenge: Bool) -> Bool {
        !answeringChallenge && shouldRecordInHistory(line)
    }

    /// True when `text`, as a user typed it, holds a digit run of 12 or more digits, Luhn or not (a
    /// mistyped card number is still one). Runs of spaces, tabs and dashes count as one separator, so
    /// `4111  1111  1111  1111` is caught too.
    public static func containsCardNumber(_ text: String) -> Bool {
        !typedCardNumbers(in: text).isEmpty
    }

    /// Where `text`, as a user typed it, holds a card number: CardValidation's digit runs
    /// (`CardNumberRedaction.digitRuns`), joined while only spaces, tabs and dashes stand between
    /// them, that add up to 12 or more digits.
    static func typedCardNumbers(in text: String) -> [Range<String.Index>] {
        var found: [Range<String.Index>] = []
        var span: Range<String.Index>?
        var digits = 0
        func close() {
            if let span, digits >= CardNumber.minimumLength { found.append(span) }
            span = nil
            digits = 0
        }
        for run in CardNumberRedaction.digitRuns(in: text) {
            if let open = span, text[open.upperBound..<run.range.lowerBound].allSatisfy({ " \t-".contains($0) }) {
                span = open.lowerBound..<run.range.upperBound
            } else {
                close()
                span = run.range
            }
            digits += run.digitCount
        }
        close()
        return found
    }

    /// `text` with every card number replaced by `•••• 1234`, by CardValidation's one rule
    /// (`CardNumberRedaction.redact`): for messages and SDK output.
    ///
    /// With `sparingIdentifiers`, a card number glued to a letter or `_` (part of an id such as
    /// `cs_4111111111111111x`) is left alone, so ids stay readable in SDK output.
    public static func maskCardNumbers(in text: String, sparingIdentifiers: Bool = false) -> String {
        func isIdentifierCharacter(_ character: Character?) -> Bool {
            guard let character else { return false }
            return character == "_" || (character.isASCII && character.isLetter)
        }
        guard sparingIdentifiers else { return CardNumberRedaction.redact(text) }
        return CardNumberRedaction.redact(
            text,
            except: { run in
                let before =
                    run.range.lowerBound > text.startIndex ? text[text.index(before: run.range.lowerBound)] : nil
                let after = run.range.upperBound < text.endIndex ? text[run.range.upperBound] : nil
                return isIdentifierCharacter(before) || isIdentifierCharacter(after)
            })
    }

    /// `text` with every card number by the rule for typed text (see ``containsCardNumber(_:)``: 12 or
    /// more digits, Luhn or not) in the one masked form `•••• 1234`: for an error message that quotes
    /// what the user typed, where a mistyped number is still a card number.
    public static func maskTypedCardNumbers(in text: String) -> String {
        var result = ""
        var rest = text.startIndex
        for span in typedCardNumbers(in: text) {
            result += text[rest..<span.lowerBound] + CardNumberRedaction.masked(text[span])
            rest = span.upperBound
        }
        return result + text[rest...]
    }

    /// `line` as it may be echoed under an error: every card number by the rule for typed text (see
    /// ``containsCardNumber(_:)``) in the one masked form `•••• 1234`, padded with
    /// spaces to the run's width, and the words holding a security code, a verification key or a
    /// challenge code replaced by mask characters. The character count is unchanged so a caret line
    /// still lines up.
    public static func redactedForDisplay(_ line: String) -> String {
        var characters = Array(line)
        for span in typedCardNumbers(in: line) {
            let start = line.distance(from: line.startIndex, to: span.lowerBound)
            let width = line[span].count
            let masked = CardNumberRedaction.masked(line[span])
            let shown = Array(masked) + Array(repeating: " ", count: max(0, width - masked.count))
            characters.replaceSubrange(start..<(start + width), with: shown)
        }
        let tokens = Tokenizer.scan(line).tokens
        let words = tokens.map { $0.text.lowercased() }
        var secretTokens: [Token] = []
        if words.count >= 2 {
            switch (words[0], words[1]) {
            case ("card", "cvc"), ("buyer", "challenge"):
                secretTokens = Array(tokens[2...])
            case ("payment", "use") where words.count >= 4:
                secretTokens = [tokens[3]]
            case ("card", _) where !["name", "expiry", "test", "show", "check", "clear"].contains(words[1]):
                // An unknown or number sub-command: whatever follows may be card data.
                secretTokens = Array(tokens[2...])
                if words[1].contains(where: \.isNumber) {
                    secretTokens.append(tokens[1])
                }
            default:
                break
            }
        }
        for token in secretTokens {
            let start = token.column - 1
            let end = min(characters.count, start + token.length)
            guard start >= 0, start < end else {
                continue
            }
            for index in start..<end {
                characters[index] = maskCharacter
            }
        }
        return String(characters)
    }

    /// A short display form of a verification key: never the key itself.
    public static func maskedKey(_ key: String) -> String {
        key.isEmpty ? "(none)" : "\(String(repeating: maskCharacter, count: 4)) (\(key.count) chars)"
    }
}
