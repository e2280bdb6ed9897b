/// One word of an input line, unquoted, with where it came from.
public struct Token: Equatable, Sendable {
    /// The word after quote removal and escape processing.
    public var text: String
    /// The 1-based column of its first raw character (a quote, if quoted).
    public var column: Int
    /// How many raw characters it spans, quotes included.
    public var length: Int

    /// Creates a token.
    public init(text: String, column: Int, length: Int) {
        self.text = text
        self.column = column
        self.length = length
    }
}

/// Splits an input line into words, shell-style but smaller.
///
/// - Words are separated by spaces and tabs.
/// - `'single quotes'` keep everything literally; `"double quotes"` allow
///   `\"` and `\\`; outside quotes a backslash escapes the next character.
/// - A `#` at the start of a word starts a comment that runs to the end of the line.
///
/// Columns count characters (extended grapheme clusters), 1-based, so an error
/// can put a caret under the offending input.
public enum Tokenizer {
    /// The words of `line`.
    ///
    /// - Throws: ``ReplError`` `.unterminatedQuote` (column of the opening quote)
    ///   or `.danglingEscape` (column of the backslash).
    public static func tokenize(_ line: String) throws(ReplError) -> [Token] {
        let scan = scan(line)
        if let open = scan.unterminatedQuote {
            throw ReplError(.unterminatedQuote, "unterminated quote", column: open.column, length: open.length)
        }
        if let escape = scan.danglingEscapeColumn {
            throw ReplError(.danglingEscape, "a backslash ends the line", column: escape)
        }
        return scan.tokens
    }

    /// The result of a tolerant scan, used by completion on a partial line.
    public struct Scan: Equatable, Sendable {
        /// The words found, the last one possibly unfinished.
        public var tokens: [Token]
        /// Set when a quote was still open at the end (column, and length to the end).
        public var unterminatedQuote: (column: Int, length: Int)?
        /// The column of a backslash that ended the line, if any.
        public var danglingEscapeColumn: Int?
        /// True when the line ends in whitespace (or is empty): the next word has not started.
        public var endsBetweenWords: Bool

        /// Field-by-field equality (tuples are not `Equatable`).
        public static func == (lhs: Scan, rhs: Scan) -> Bool {
            lhs.tokens == rhs.tokens && lhs.unterminatedQuote?.column == rhs.unterminatedQuote?.column
                && lhs.unterminatedQuote?.length == rhs.unterminatedQuote?.length
                && lhs.danglingEscapeColumn == rhs.danglingEscapeColumn && lhs.endsBetweenWords == rhs.endsBetweenWords
        }
    }

    /// Scans without throwing: an open quote or trailing backslash is reported, not fatal.
    public static func scan(_ line: String) -> Scan {
        enum Mode { case between, word, single, double }
        var tokens: [Token] = []
        var mode = Mode.between
        var text = ""
        var start = 0
        var quoteColumn = 0
        var escaping = false
        var escapeColumn = 0
        var column = 0
        var comment = false

        func finish(at end: Int) {
            tokens.append(Token(text: text, column: start, length: end - start + 1))
            text = ""
        }

        for character in line {
            column += 1
            if escaping {
                escaping = false
                if mode == .double && character != "\"" && character != "\\" {
                    text.append("\\")
                }
                text.append(character)
                continue
            }
            switch mode {
            case .between:
                if character == " " || character == "\t" {
                    continue
                }
                if character == "#" {
                    comment = true
                    break
                }
                start = column
                mode = .word
                fallthrough
            case .word:
                switch character {
                case " ", "\t":
                    finish(at: column - 1)
                    mode = .between
                case "'":
                    quoteColumn = column
                    mode = .single
                case "\"":
                    quoteColumn = column
                    mode = .double
                case "\\":
                    escaping = true
                    escapeColumn = column
                default:
                    text.append(character)
                }
            case .single:
                if character == "'" {
                    mode = .word
                } else {
                    text.append(character)
                }
            case .double:
                switch character {
                case "\"":
                    mode = .word
                case "\\":
                    escaping = true
                    escapeColumn = column
                default:
                    text.append(character)
                }
            }
            if comment {
                break
            }
        }

        var result = Scan(tokens: [], unterminatedQuote: nil, danglingEscapeColumn: nil, endsBetweenWords: false)
        switch mode {
        case .between:
            result.endsBetweenWords = true
        case .word:
            finish(at: column)
        case .single, .double:
            result.unterminatedQuote = (quoteColumn, column - quoteColumn + 1)
            finish(at: column)
        }
        if escaping {
            result.danglingEscapeColumn = escapeColumn
        }
        result.tokens = tokens
        return result
    }
}
