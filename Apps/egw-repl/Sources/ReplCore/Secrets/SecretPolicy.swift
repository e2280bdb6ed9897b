import CardValidation

/// What counts as a secret in REPL input, and how it is kept out of the history
/// file, error echoes and messages.
///
/// - Card numbers are found and masked by CardValidation's one rule,
///   `CardNumberRedaction`, on its one grammar (`CardNumberGrammar`: the
///   separators the SDK's number field accepts, Unicode spaces and dashes,
///   tab and U+2212 included): a digit run of 12 to 19 digits that passes
///   Luhn, shown as `•••• 1234`. Ids, amounts and timestamps in messages and
///   SDK output are left alone.
/// - A line the user typed is stricter (the REPL did not write it, and a
///   mistyped number is still a card number): any digit run of the same
///   grammar with 12 or more digits, Luhn or not, keeps the line out of
///   history and is masked when the line is echoed under an error: a card
///   number in it as `redact` shows it (`•••• 4242 ••••` for a number and the
///   code after it), any other such run as `••••` (it has no number to take a
///   last four from). Same scanner, same masked form.
/// - Every other secret is declared once, in the command table: an argument
///   with `secret: true` (`card cvc CODE`, `payment use ID VERIFICATION_KEY`,
///   `buyer challenge CODE`, the numbers given to `card number`, `brand`,
///   `luhn`, `format`). A line that gives one is never recorded, and its words
///   are masked when echoed; so are the words after an unknown sub-command of a
///   command that takes secrets (a mistyped `card cvc`).
public enum SecretPolicy {
    /// The masking character used everywhere (one column wide).
    public static let maskCharacter: Character = "•"

    /// Whether `line` may be written to the history file: not blank, no card number
    /// (``containsCardNumber(_:)``), and no word that holds a secret argument by the
    /// command `table` (``secretTokens(in:table:)``).
    public static func shouldRecordInHistory(_ line: String, table: CommandTable = .standard) -> Bool {
        if line.allSatisfy({ $0 == " " || $0 == "\t" }) {
            return false
        }
        if containsCardNumber(line) {
            return false
        }
        return secretTokens(in: Tokenizer.scan(line).tokens, table: table).isEmpty
    }

    /// The words of a typed line that hold (or may hold) a secret, by the command table's
    /// `secret` arguments: each word given for one (every word, for a rest argument), words
    /// beyond the arguments of a command that takes a secret, and every word after an unknown
    /// sub-command of a command that takes secrets (plus that word, when it has digits).
    public static func secretTokens(in tokens: [Token], table: CommandTable = .standard) -> [Token] {
        guard let first = tokens.first, var spec = table.command(first.text) else {
            return []
        }
        var index = 1
        while !spec.subcommands.isEmpty, index < tokens.count {
            guard let sub = spec.subcommand(tokens[index].text) else {
                guard spec.takesSecrets else {
                    return []
                }
                let word = tokens[index]
                return (word.text.contains(where: \.isNumber) ? [word] : []) + tokens[(index + 1)...]
            }
            spec = sub
            index += 1
        }
        var positional: [Token] = []
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if token.text.hasPrefix("--"), let flag = spec.flag(String(token.text.prefix { $0 != "=" })) {
                if flag.value != nil, !token.text.contains("=") {
                    index += 1
                }
                continue
            }
            positional.append(token)
        }
        var secret: [Token] = []
        for (position, token) in positional.enumerated() {
            let argument =
                position < spec.arguments.count ? spec.arguments[position] : spec.arguments.last { $0.takesRest }
            if argument?.isSecret ?? spec.takesSecrets {
                secret.append(token)
            }
        }
        return secret
    }
    /// Whether a line typed while a 3-D Secure challenge page waits for its answer may be written to the
    /// history file: never, since a bare word there is the challenge code itself.
    public static func shouldRecordInHistory(_ line: String, answeringChallenge: Bool) -> Bool {
        !answeringChallenge && shouldRecordInHistory(line)
    }

    /// True when `text`, as a user typed it, holds a digit run of 12 or more digits, Luhn or not (a
    /// mistyped card number is still one), by CardValidation's grammar: any separators it accepts
    /// between two digits, so `4111  1111 \u{2013}1111\t1111` is caught too.
    public static func containsCardNumber(_ text: String) -> Bool {
        !typedCardNumbers(in: text).isEmpty
    }

    /// Where `text`, as a user typed it, holds a card number: CardValidation's digit runs
    /// (`CardNumberRedaction.digitRuns`, one grammar with the SDK's parser) of 12 or more digits.
    static func typedCardNumbers(in text: String) -> [CardNumberRedaction.DigitRun] {
        CardNumberRedaction.digitRuns(in: text).filter { $0.digitCount >= CardNumber.minimumLength }
    }

    /// The masked form of a typed run: as `redact` shows it when it holds a card number (the last four
    /// are the number's, what follows it `••••`), `••••` otherwise (a run that is no card number has no
    /// last four to show, and its end may be a security code), and `••••` too when what `redact` keeps
    /// before a number would itself be a typed card number.
    static func maskedTypedRun(_ run: CardNumberRedaction.DigitRun) -> String {
        guard let redacted = run.redacted, !containsCardNumber(redacted) else { return "••••" }
        return redacted
    }

    /// `text` with every card number replaced by `•••• 1234`, by CardValidation's one rule
    /// (`CardNumberRedaction.redact`): for messages and SDK output. Ids are never half-masked:
    /// a run is masked whole or not at all.
    public static func maskCardNumbers(in text: String) -> String {
        CardNumberRedaction.redact(text)
    }

    /// `text` with every card number by the rule for typed text (see ``containsCardNumber(_:)``: 12 or
    /// more digits, Luhn or not) in the one masked form `•••• 1234`: for an error message that quotes
    /// what the user typed, where a mistyped number is still a card number.
    public static func maskTypedCardNumbers(in text: String) -> String {
        var result = ""
        var rest = text.startIndex
        for run in typedCardNumbers(in: text) {
            result += text[rest..<run.range.lowerBound] + maskedTypedRun(run)
            rest = run.range.upperBound
        }
        return result + text[rest...]
    }

    /// `line` as it may be echoed under an error: every card number by the rule for typed text (see
    /// ``containsCardNumber(_:)``) in the one masked form `•••• 1234`, padded on the left with
    /// mask characters to the run's width, and the words holding a secret (``secretTokens(in:table:)``)
    /// replaced by mask characters. The character count is unchanged so a caret line
    /// still lines up.
    public static func redactedForDisplay(_ line: String) -> String {
        let shown = redactedForDisplay(line, showingLastFour: true)
        // A run the grammar ended inside a Character (a digit carrying a combining mark) loses that
        // mark when it is replaced, and its last four could then join the digits after it into a new
        // number (found by the repl-line fuzz target). Then nothing of the run is shown.
        return containsCardNumber(shown) ? redactedForDisplay(line, showingLastFour: false) : shown
    }

    private static func redactedForDisplay(_ line: String, showingLastFour: Bool) -> String {
        var characters = Array(line)
        var shownMasked = Set<Int>()  // already in the card-number form
        for run in typedCardNumbers(in: line) {
            let span = run.range
            let start = line.distance(from: line.startIndex, to: span.lowerBound)
            let width = line[span].count
            shownMasked.formUnion(start..<(start + width))
            // Padded on the left with mask characters, so the last four keep the neighbour the
            // whole run had on its right: a pad of spaces after them could join them to a digit
            // run that follows. A form wider than the run is shown as mask characters only.
            var masked = showingLastFour ? Array(maskedTypedRun(run)) : []
            if masked.count > width { masked = [] }
            let shown = Array(repeating: maskCharacter, count: width - masked.count) + masked
            characters.replaceSubrange(start..<(start + width), with: shown)
        }
        let secretTokens = secretTokens(in: Tokenizer.scan(line).tokens)
        for token in secretTokens {
            let start = token.column - 1
            let end = min(characters.count, start + token.length)
            guard start >= 0, start < end else {
                continue
            }
            for index in start..<end where !shownMasked.contains(index) {
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
