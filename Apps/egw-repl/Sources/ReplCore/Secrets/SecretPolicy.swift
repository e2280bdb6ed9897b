/// What counts as a secret in REPL input, and how it is kept out of the history
/// file, error echoes and messages.
///
/// - A card number is any run of 12 or more digits once spaces and dashes are
///   removed (the shortest card numbers have 12 digits, the longest 19; longer
///   runs are treated the same way rather than guessed about, and Luhn is not
///   consulted, so a mistyped number is caught too).
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

    /// True when `text` holds a run of 12 or more digits once spaces and dashes are removed.
    public static func containsCardNumber(_ text: String) -> Bool {
        var run = 0
        for character in text {
            if character.isASCII && character.isNumber {
                run += 1
                if run >= 12 {
                    return true
                }
            } else if character != " " && character != "-" {
                run = 0
            }
        }
        return false
    }

    /// `text` with every card-number-like digit run masked but for its last four
    /// digits; separators are kept, so the result has the same number of characters.
    ///
    /// With `sparingIdentifiers`, a run glued to a letter or `_` (part of an id such
    /// as `cs_733037213230d9e4`) is left alone, so ids stay readable in SDK output.
    public static func maskCardNumbers(in text: String, sparingIdentifiers: Bool = false) -> String {
        var characters = Array(text)
        var runStart: Int?
        var digitIndices: [Int] = []

        func isIdentifierCharacter(_ index: Int) -> Bool {
            guard index >= 0, index < characters.count else {
                return false
            }
            let character = characters[index]
            return character == "_" || (character.isASCII && character.isLetter)
        }

        func close() {
            let glued =
                sparingIdentifiers
                && (isIdentifierCharacter((digitIndices.first ?? 0) - 1)
                    || isIdentifierCharacter((digitIndices.last ?? 0) + 1))
            if digitIndices.count >= 12 && !glued {
                for index in digitIndices.dropLast(4) {
                    characters[index] = maskCharacter
                }
            }
            digitIndices.removeAll(keepingCapacity: true)
            runStart = nil
        }

        for (index, character) in characters.enumerated() {
            if character.isASCII && character.isNumber {
                if runStart == nil {
                    runStart = index
                }
                digitIndices.append(index)
            } else if (character == " " || character == "-") && runStart != nil {
                continue
            } else {
                close()
            }
        }
        close()
        return String(characters)
    }

    /// `line` as it may be echoed under an error: card numbers masked as in
    /// ``maskCardNumbers(in:)``, and the words holding a security code, a
    /// verification key or a challenge code replaced by mask characters.
    /// The character count is unchanged so a caret line still lines up.
    public static func redactedForDisplay(_ line: String) -> String {
        var characters = Array(maskCardNumbers(in: line))
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
