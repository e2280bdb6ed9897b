/// The interpreter as a pure function of input lines: it numbers lines, parses
/// each one and says what to do, without running anything.
///
/// ```swift
/// var interpreter = Interpreter()
/// interpreter.feed("card test visa")   // .command(.card(.test(name: "visa")))
/// interpreter.feed("card frob")        // .error(...) with line 2, column 6
/// ```
public struct Interpreter: Sendable {
    /// One line's verdict.
    public enum Step: Equatable, Sendable {
        /// A blank line or a comment.
        case blank
        /// A command to run.
        case command(Command)
        /// The line could not be parsed; ``ReplError/rendered(line:lineNumber:)`` shows it.
        case error(ReplError)
    }

    /// The parser in use.
    public var parser: CommandParser
    /// The number of the last line fed (1-based; 0 before the first).
    public private(set) var lineNumber = 0

    /// Creates an interpreter over `table`.
    public init(table: CommandTable = .standard) {
        self.parser = CommandParser(table: table)
    }

    /// Parses the next line.
    public mutating func feed(_ line: String) -> Step {
        lineNumber += 1
        do {
            guard let command = try parser.parse(line) else {
                return .blank
            }
            return .command(command)
        } catch {
            return .error(error)
        }
    }

    /// Every line's number and verdict, in order.
    public static func interpret(_ lines: [String], table: CommandTable = .standard) -> [(line: Int, step: Step)] {
        var interpreter = Interpreter(table: table)
        return lines.map { line in
            let step = interpreter.feed(line)
            return (interpreter.lineNumber, step)
        }
    }
}

/// `help` and `help COMMAND [SUB-COMMAND]` text, from the command table.
public enum HelpText {
    /// The help for `topic` (empty: the overview).
    ///
    /// - Throws: ``ReplError`` `.unknownCommand` / `.unknownSubcommand` for a topic
    ///   that is not in the table.
    public static func render(topic: [String], table: CommandTable = .standard) throws(ReplError) -> String {
        guard let first = topic.first else {
            return overview(table)
        }
        guard var spec = table.command(first) else {
            throw ReplError(.unknownCommand, "no help for '\(first)': not a command")
        }
        var path = [spec.name]
        for word in topic.dropFirst() {
            guard let sub = spec.subcommand(word) else {
                throw ReplError(.unknownSubcommand, "'\(path.joined(separator: " "))' has no sub-command '\(word)'")
            }
            spec = sub
            path.append(sub.name)
        }
        var lines: [String] = []
        let pathText = path.joined(separator: " ")
        lines.append("\(pathText) — \(spec.summary)")
        if spec.subcommands.isEmpty || spec.runsAlone {
            let synopsis = spec.subcommands.isEmpty ? spec.argumentSynopsis : ""
            lines.append("usage: \(pathText)\(synopsis.isEmpty ? "" : " " + synopsis)")
        }
        if !spec.details.isEmpty {
            lines.append("")
            lines.append(spec.details)
        }
        if !spec.flags.isEmpty {
            lines.append("")
            lines.append("flags:")
            let width = spec.flags.map(\.synopsis.count).max() ?? 0
            for flag in spec.flags {
                lines.append("  \(pad(flag.synopsis, width))  \(flag.summary)")
            }
        }
        if !spec.subcommands.isEmpty {
            lines.append("")
            lines.append("sub-commands:")
            let entries = spec.subcommands.map { sub in
                (
                    "\(pathText) \(sub.name)" + (sub.argumentSynopsis.isEmpty ? "" : " " + sub.argumentSynopsis),
                    sub.summary
                )
            }
            let width = entries.map(\.0.count).max() ?? 0
            for (usage, summary) in entries {
                lines.append("  \(pad(usage, width))  \(summary)")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func overview(_ table: CommandTable) -> String {
        var lines = ["Commands (help COMMAND for details, Tab completes):"]
        let width = table.commands.map(\.name.count).max() ?? 0
        for spec in table.commands {
            lines.append("  \(pad(spec.name, width))  \(spec.summary)")
        }
        lines.append("")
        lines.append(
            "Quick start: payment create · card test mastercard-challenge · pay card --step (the sandbox passes code 1234)"
        )
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
