/// An error the REPL reports to its user: a code to switch on, a message a
/// person can act on, and, for input errors, where in the line it is.
///
/// Messages never quote a card number, a security code or a verification key:
/// the parser refers to secret arguments by name, and ``rendered(line:lineNumber:)``
/// masks the echoed source line (see ``SecretPolicy``).
public struct ReplError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong, for tests and scripts; the prose may change, codes do not.
    public enum Code: String, Sendable, CaseIterable {
        /// A quote was opened and never closed.
        case unterminatedQuote
        /// A backslash ended the line.
        case danglingEscape
        /// The first word is not a command.
        case unknownCommand
        /// The word after a command is not one of its sub-commands.
        case unknownSubcommand
        /// A command that needs a sub-command got none.
        case missingSubcommand
        /// A required argument is missing.
        case missingArgument
        /// More arguments than the command takes.
        case unexpectedArgument
        /// A flag the command does not know.
        case unknownFlag
        /// A flag that takes a value is last on the line.
        case missingFlagValue
        /// An argument or flag value is not acceptable (not a number, not a choice, ...).
        case invalidValue
        /// The command is valid but cannot run now (no payment running, no sandbox, ...).
        case notAvailable
        /// The command ran and failed.
        case commandFailed
        /// A command-line usage error (unknown option, bad option value).
        case usage
    }

    /// What went wrong.
    public var code: Code
    /// The message, without position.
    public var message: String
    /// The 1-based column of the offending input, when the error is about the input.
    public var column: Int?
    /// How many characters the caret line underlines (at least 1 when `column` is set).
    public var length: Int

    /// Creates an error; `column` is 1-based.
    public init(_ code: Code, _ message: String, column: Int? = nil, length: Int = 1) {
        self.code = code
        self.message = message
        self.column = column
        self.length = max(1, length)
    }

    /// The message with its column when it has one (`"6: unknown command 'x'"`); a card number the
    /// message quotes from the input is masked by the typed-text rule, as in ``rendered(line:lineNumber:)``.
    public var description: String {
        let shown = SecretPolicy.maskTypedCardNumbers(in: message)
        if let column {
            return "col \(column): \(shown)"
        }
        return shown
    }

    /// The full report: `line N:col: message`, then, for input errors, the source
    /// line (secrets masked) and a caret line under the offending characters.
    ///
    /// - Parameters:
    ///   - line: the input line the error is about.
    ///   - lineNumber: its 1-based number in the script or session.
    public func rendered(line: String, lineNumber: Int) -> String {
        guard let column else {
            return "line \(lineNumber): error: \(SecretPolicy.maskTypedCardNumbers(in: message))"
        }
        let masked = SecretPolicy.redactedForDisplay(line)
        let caretIndent = String(repeating: " ", count: max(0, column - 1))
        let carets = String(repeating: "^", count: length)
        return """
            line \(lineNumber):\(column): error: \(SecretPolicy.maskTypedCardNumbers(in: message))
              \(masked)
              \(caretIndent)\(carets)
            """
    }
}
