/// The grammar, help text and construction of one command or sub-command.
///
/// The whole REPL vocabulary is a table of these (``CommandTable``): the
/// parser, `help` and tab completion all read the same table, so a command
/// cannot be parsable but undocumented, or documented but not completable.
/// A runnable spec carries ``build``, which turns its matched words into the
/// ``Command``, reading them through the very ``ArgumentSpec`` and ``FlagSpec``
/// values it declares: no command path or argument name is spelled twice.
public struct CommandSpec: Sendable {
    /// Turns a line matched against this spec into its command.
    public typealias Builder = @Sendable (Invocation) throws(ReplError) -> Command

    /// The word that selects it (`"card"`, `"number"`).
    public var name: String
    /// One line for `help`.
    public var summary: String
    /// A paragraph for `help COMMAND`; may be empty.
    public var details: String
    /// Positional arguments, in order.
    public var arguments: [ArgumentSpec]
    /// Flags (`--step`, `--method VALUE`).
    public var flags: [FlagSpec]
    /// Sub-commands; when present, the next word must be one of them
    /// unless ``runsAlone`` is true.
    public var subcommands: [CommandSpec]
    /// True when the command also runs with no sub-command (`config`).
    public var runsAlone: Bool { build != nil && !subcommands.isEmpty }
    /// Builds the command; `nil` for a command that only groups sub-commands.
    public var build: Builder?

    /// Creates a spec; `build` makes the command from the matched line (leave it out only for a
    /// command that needs a sub-command).
    public init(
        _ name: String, _ summary: String, details: String = "", arguments: [ArgumentSpec] = [],
        flags: [FlagSpec] = [], subcommands: [CommandSpec] = [], build: Builder? = nil
    ) {
        self.name = name
        self.summary = summary
        self.details = details
        self.arguments = arguments
        self.flags = flags
        self.subcommands = subcommands
        self.build = build
    }

    /// The sub-command named `word` (case-insensitive).
    public func subcommand(_ word: String) -> CommandSpec? {
        let lower = word.lowercased()
        return subcommands.first { $0.name == lower }
    }

    /// Whether it, or any of its sub-commands, takes a secret argument.
    public var takesSecrets: Bool {
        arguments.contains { $0.isSecret } || subcommands.contains { $0.takesSecrets }
    }

    /// The flag named `word` (`"--step"`).
    public func flag(_ word: String) -> FlagSpec? {
        flags.first { $0.name == word }
    }

    /// The usage line without the command path: `"[AMOUNT] [CURRENCY] [--order N]"`.
    public var argumentSynopsis: String {
        var parts: [String] = []
        if !subcommands.isEmpty {
            let names = subcommands.map(\.name).joined(separator: "|")
            parts.append(runsAlone ? "[\(names)]" : names)
        }
        for argument in arguments {
            var text = argument.synopsis
            if argument.takesRest {
                text += "..."
            }
            parts.append(argument.isOptional ? "[\(text)]" : text)
        }
        for flag in flags {
            parts.append("[\(flag.synopsis)]")
        }
        return parts.joined(separator: " ")
    }
}

/// A positional argument.
public struct ArgumentSpec: Sendable {
    /// What values it accepts; drives validation and completion.
    public enum Domain: Sendable, Equatable {
        /// Any word.
        case text
        /// A whole number in a range.
        case integer(ClosedRange<Int>)
        /// A positive decimal number.
        case positiveNumber
        /// One of these words (case-insensitive; the canonical spelling is kept).
        case choices([String])
        /// The name of a sandbox test card (completed from the context; checked when run).
        case testCard
        /// A command name (for `help`).
        case command
    }

    /// The placeholder shown in help (`"AMOUNT"`).
    public var name: String
    /// Accepted values.
    public var domain: Domain
    /// May be left out.
    public var isOptional: Bool
    /// Takes every remaining word, joined by single spaces (`card name Ada Lovelace`).
    public var takesRest: Bool
    /// Holds a secret (security code, verification key): never quoted in a message.
    public var isSecret: Bool

    /// Creates an argument spec.
    public init(
        _ name: String, _ domain: Domain = .text, optional: Bool = false, rest: Bool = false, secret: Bool = false
    ) {
        self.name = name
        self.domain = domain
        self.isOptional = optional
        self.takesRest = rest
        self.isSecret = secret
    }

    /// `"pay|decline"` for short choice lists, else the placeholder.
    public var synopsis: String {
        if case .choices(let values) = domain, values.count <= 5 {
            return values.joined(separator: "|")
        }
        return name
    }
}

/// A `--flag` or `--flag VALUE`.
public struct FlagSpec: Sendable {
    /// The flag with its dashes (`"--step"`).
    public var name: String
    /// One line for help.
    public var summary: String
    /// The value it takes, if any.
    public var value: ArgumentSpec?

    /// Creates a flag spec.
    public init(_ name: String, _ summary: String, value: ArgumentSpec? = nil) {
        self.name = name
        self.summary = summary
        self.value = value
    }

    /// `"--method card|bank|click-to-pay"`.
    public var synopsis: String {
        guard let value else {
            return name
        }
        return "\(name) \(value.synopsis)"
    }
}
