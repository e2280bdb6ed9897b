/// A line matched against the command table, before it becomes a ``Command``.
public struct Invocation: Equatable, Sendable {
    /// The command path (`["card", "number"]`), canonical lower case.
    public var path: [String]
    /// Positional values by argument name; a rest argument's words are joined
    /// by single spaces into one token spanning them.
    public var arguments: [String: Token]
    /// Flags present, by name; a flag without a value maps to its own token.
    public var flags: [String: Token]
    /// The column just past the end of the line (where a missing word would go).
    public var endColumn: Int

    /// The word given for `argument` (joined words for a rest argument), if any.
    public func token(_ argument: ArgumentSpec) -> Token? {
        arguments[argument.name]
    }

    /// The text given for `argument`, if any.
    public func text(_ argument: ArgumentSpec) -> String? {
        arguments[argument.name]?.text
    }

    /// The value given with `flag` (or the flag's own word when it takes none), if present.
    public func token(_ flag: FlagSpec) -> Token? {
        flags[flag.name]
    }

    /// Whether `flag` is on the line.
    public func has(_ flag: FlagSpec) -> Bool {
        flags[flag.name] != nil
    }
}

/// Turns one input line into a ``Command`` using a ``CommandTable``.
///
/// Pure: no I/O, no state. Every error carries the column of the offending
/// word and never quotes a secret argument.
public struct CommandParser: Sendable {
    /// The table to parse against.
    public var table: CommandTable

    /// Creates a parser over `table`.
    public init(table: CommandTable = .standard) {
        self.table = table
    }

    /// Parses `line`; `nil` for a blank line or a comment.
    ///
    /// - Throws: ``ReplError`` with the column of the problem.
    public func parse(_ line: String) throws(ReplError) -> Command? {
        guard let invocation = try match(line) else {
            return nil
        }
        guard let build = table.spec(at: invocation.path)?.build else {
            throw ReplError(
                .unknownCommand, "'\(invocation.path.joined(separator: " "))' has no handler", column: 1,
                length: invocation.path.first?.count ?? 1)
        }
        return try build(invocation)
    }

    /// Matches `line` against the table without building a command.
    public func match(_ line: String) throws(ReplError) -> Invocation? {
        let tokens = try Tokenizer.tokenize(line)
        guard let first = tokens.first else {
            return nil
        }
        let endColumn = line.count + 1
        guard var spec = table.command(first.text) else {
            var message = "unknown command '\(first.text)'"
            if let guess = Self.closest(to: first.text, among: table.commands.map(\.name)) {
                message += " (did you mean '\(guess)'?)"
            } else {
                message += " (type help for the list)"
            }
            if first.text.contains(where: \.isNumber) {
                // Never quote a word with digits: it may be a card number or a code typed at the prompt.
                message = "unknown command (type help for the list)"
            }
            throw ReplError(.unknownCommand, message, column: first.column, length: first.length)
        }
        var path = [spec.name]
        var index = 1
        while !spec.subcommands.isEmpty {
            guard index < tokens.count else {
                if spec.runsAlone {
                    break
                }
                let names = spec.subcommands.map(\.name).joined(separator: ", ")
                throw ReplError(
                    .missingSubcommand, "'\(path.joined(separator: " "))' needs a sub-command: \(names)",
                    column: endColumn)
            }
            let word = tokens[index]
            guard let sub = spec.subcommand(word.text) else {
                let shown = word.text.contains(where: \.isNumber) ? "" : " '\(word.text)'"
                var message = "unknown sub-command\(shown) for '\(path.joined(separator: " "))'"
                if let guess = Self.closest(to: word.text, among: spec.subcommands.map(\.name)) {
                    message += " (did you mean '\(guess)'?)"
                } else {
                    message += " (expected one of: \(spec.subcommands.map(\.name).joined(separator: ", ")))"
                }
                throw ReplError(.unknownSubcommand, message, column: word.column, length: word.length)
            }
            spec = sub
            path.append(sub.name)
            index += 1
        }

        var arguments: [String: Token] = [:]
        var flags: [String: Token] = [:]
        var positional: [Token] = []
        var onlyPositional = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if !onlyPositional && token.text == "--" {
                onlyPositional = true
                continue
            }
            if !onlyPositional && token.text.hasPrefix("--") && token.text.count > 2 {
                var name = token.text
                var inlineValue: Token?
                if let equals = name.firstIndex(of: "=") {
                    let offset = name.distance(from: name.startIndex, to: equals)
                    let valueText = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                    inlineValue = Token(
                        text: valueText, column: token.column + offset + 1, length: max(1, token.length - offset - 1))
                }
                guard let flag = spec.flag(name) else {
                    let known = spec.flags.map(\.name)
                    let hint = known.isEmpty ? "it takes none" : "expected \(known.joined(separator: ", "))"
                    // On a command taking a secret, a word starting with -- may be that secret mistyped.
                    let shown = spec.arguments.contains { $0.isSecret } ? "" : " '\(name)'"
                    throw ReplError(
                        .unknownFlag, "unknown flag\(shown) for '\(path.joined(separator: " "))' (\(hint))",
                        column: token.column, length: token.length)
                }
                if let valueSpec = flag.value {
                    let value: Token
                    if let inlineValue {
                        value = inlineValue
                    } else {
                        guard index < tokens.count else {
                            throw ReplError(
                                .missingFlagValue, "\(flag.name) needs a value (\(valueSpec.synopsis))",
                                column: endColumn)
                        }
                        value = tokens[index]
                        index += 1
                    }
                    flags[flag.name] = try Self.validate(value, against: valueSpec)
                } else {
                    if inlineValue != nil {
                        throw ReplError(
                            .invalidValue, "\(flag.name) takes no value", column: token.column, length: token.length)
                    }
                    flags[flag.name] = token
                }
                continue
            }
            positional.append(token)
        }

        var remaining = positional[...]
        for argument in spec.arguments {
            guard let first = remaining.first else {
                if argument.isOptional {
                    break
                }
                throw ReplError(
                    .missingArgument, "'\(path.joined(separator: " "))' needs \(argument.name)", column: endColumn)
            }
            if argument.takesRest {
                let last = remaining.last ?? first
                let joined = Token(
                    text: remaining.map(\.text).joined(separator: " "), column: first.column,
                    length: last.column + last.length - first.column)
                arguments[argument.name] = try Self.validate(joined, against: argument)
                remaining = []
            } else {
                arguments[argument.name] = try Self.validate(first, against: argument)
                remaining = remaining.dropFirst()
            }
        }
        if let extra = remaining.first {
            let secret = spec.arguments.contains { $0.isSecret }
            let shown = secret || extra.text.contains(where: \.isNumber) ? "" : " '\(extra.text)'"
            let usage = ([path.joined(separator: " ")] + [spec.argumentSynopsis]).joined(separator: " ")
            throw ReplError(
                .unexpectedArgument, "unexpected argument\(shown) (usage: \(usage))",
                column: extra.column, length: extra.length)
        }
        return Invocation(path: path, arguments: arguments, flags: flags, endColumn: endColumn)
    }

    /// Checks one value against its domain; returns it with a canonical spelling.
    static func validate(_ token: Token, against argument: ArgumentSpec) throws(ReplError) -> Token {
        var token = token
        switch argument.domain {
        case .text, .testCard, .command:
            if token.text.isEmpty && !argument.isOptional {
                throw ReplError(.invalidValue, "\(argument.name) is empty", column: token.column, length: token.length)
            }
        case .integer(let range):
            guard let value = Int(token.text), range.contains(value) else {
                throw ReplError(
                    .invalidValue,
                    "\(argument.name) must be a whole number from \(range.lowerBound) to \(range.upperBound)",
                    column: token.column, length: token.length)
            }
        case .positiveNumber:
            guard let value = Double(token.text), value > 0, value.isFinite else {
                throw ReplError(
                    .invalidValue, "\(argument.name) must be a positive number", column: token.column,
                    length: token.length)
            }
        case .choices(let values):
            guard let match = values.first(where: { $0 == token.text.lowercased() }) else {
                throw ReplError(
                    .invalidValue, "\(argument.name) must be one of: \(values.joined(separator: ", "))",
                    column: token.column, length: token.length)
            }
            token.text = match
        }
        return token
    }

    /// `sandbox fault ENDPOINT KIND [ARG] [--times N | --probability P]`, its values checked.
    static func fault(
        endpoint: String, kind: String, argument: Token?, times: Token?, probability: Token?, endColumn: Int
    ) throws(ReplError) -> Command {
        var value: Int?
        switch kind {
        case "latency", "status", "status-no-body":
            let range = kind == "latency" ? 0...60_000 : 100...599
            guard let argument else {
                let what = kind == "latency" ? "MS (milliseconds)" : "CODE (HTTP status)"
                throw ReplError(.missingArgument, "a \(kind) fault needs \(what)", column: endColumn)
            }
            guard let number = Int(argument.text), range.contains(number) else {
                throw ReplError(
                    .invalidValue, "\(kind) takes a whole number from \(range.lowerBound) to \(range.upperBound)",
                    column: argument.column, length: argument.length)
            }
            value = number
        default:
            if let argument {
                throw ReplError(
                    .unexpectedArgument, "a \(kind) fault takes no argument", column: argument.column,
                    length: argument.length)
            }
        }
        if let probability, Double(probability.text).map({ $0 > 1 }) ?? true {
            throw ReplError(
                .invalidValue, "P must be a number from 0 to 1", column: probability.column, length: probability.length)
        }
        if times != nil, let probability {
            throw ReplError(
                .invalidValue, "--times and --probability do not go together", column: probability.column,
                length: probability.length)
        }
        return .sandbox(
            .fault(
                endpoint: endpoint, kind: kind, argument: value, times: times.flatMap { Int($0.text) },
                probability: probability.flatMap { Double($0.text) }))
    }

    /// `MM/YY`, `MM/YYYY` or `MMYY` -> two-digit month and year.
    static func parseExpiry(_ text: String) -> (String, String)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let month: String
        var year: String
        if parts.count == 2 {
            (month, year) = (parts[0], parts[1])
        } else if parts.count == 1, text.count == 4 {
            (month, year) = (String(text.prefix(2)), String(text.suffix(2)))
        } else {
            return nil
        }
        let digits = { (value: String) in value.allSatisfy { $0.isASCII && $0.isNumber } }
        guard digits(month), digits(year), (1...2).contains(month.count), year.count == 2 || year.count == 4 else {
            return nil
        }
        guard let monthValue = Int(month), (1...12).contains(monthValue) else {
            return nil
        }
        if year.count == 4 {
            year = String(year.suffix(2))
        }
        return (monthValue < 10 ? "0\(monthValue)" : "\(monthValue)", year)
    }

    static func validateConfigValue(key: ConfigKey, token: Token) throws(ReplError) {
        switch key {
        case .apiBaseURL, .checkoutAPIBaseURL, .checkoutBaseURL, .merchantBaseURL:
            if token.text == "none" || token.text == "-" {
                return
            }
            try requireHTTPURL(token, name: key.rawValue)
        case .environment:
            guard CommandTable.environments.contains(token.text.lowercased()) else {
                throw ReplError(
                    .invalidValue, "environment must be sandbox or live", column: token.column, length: token.length)
            }
        case .timeout:
            guard let seconds = Double(token.text), seconds > 0, seconds <= 600 else {
                throw ReplError(
                    .invalidValue, "timeout must be a number of seconds from 0 to 600", column: token.column,
                    length: token.length)
            }
        case .challengeTimeout, .hostedTimeout:
            guard let seconds = Double(token.text), seconds > 0, seconds <= 86_400 else {
                throw ReplError(
                    .invalidValue, "\(key.rawValue) must be a number of seconds from 0 to 86400", column: token.column,
                    length: token.length)
            }
        case .verbose:
            guard ["on", "off"].contains(token.text.lowercased()) else {
                throw ReplError(.invalidValue, "verbose must be on or off", column: token.column, length: token.length)
            }
        case .logLevel:
            guard CommandTable.logLevels.contains(token.text.lowercased()) else {
                throw ReplError(
                    .invalidValue, "log-level must be one of: \(CommandTable.logLevels.joined(separator: ", "))",
                    column: token.column, length: token.length)
            }
        }
    }

    static func requireHTTPURL(_ token: Token, name: String) throws(ReplError) {
        let lower = token.text.lowercased()
        let hasScheme = lower.hasPrefix("http://") || lower.hasPrefix("https://")
        let afterScheme = lower.drop { $0 != ":" }.dropFirst(3)
        guard hasScheme, !afterScheme.isEmpty, !afterScheme.hasPrefix("/") else {
            throw ReplError(
                .invalidValue, "\(name) must be an http or https URL", column: token.column, length: token.length)
        }
    }

    /// The candidate closest to `word` by edit distance, if it is close enough to suggest.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let word = Array(word.lowercased())
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(word, Array(candidate))
            if distance <= max(1, candidate.count / 3), best == nil || distance < best!.1 {
                best = (candidate, distance)
            }
        }
        return best?.0
    }

    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
