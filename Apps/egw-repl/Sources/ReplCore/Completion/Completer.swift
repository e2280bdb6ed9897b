/// What completion may offer besides the fixed vocabulary.
public struct CompletionContext: Sendable, Equatable {
    /// The sandbox's test-card names (`card test NAME`).
    public var testCardNames: [String]

    /// Creates a context.
    public init(testCardNames: [String] = []) {
        self.testCardNames = testCardNames
    }
}

/// Tab-completion candidates for a partial line, from the same ``CommandTable``
/// the parser uses: commands, sub-commands, flags, choice values, test-card
/// names, and command paths after `help`.
///
/// Pure: the candidates depend only on the text up to the cursor and the context.
public struct Completer: Sendable {
    /// The vocabulary.
    public var table: CommandTable
    /// Dynamic names.
    public var context: CompletionContext

    /// Creates a completer.
    public init(table: CommandTable = .standard, context: CompletionContext = .init()) {
        self.table = table
        self.context = context
    }

    /// The whole words that can replace the word under the cursor (the text after
    /// the last space of `prefix`). Empty when nothing fits, inside quotes, or after
    /// an unknown word.
    public func candidates(forLineUpToCursor prefix: String) -> [String] {
        let scan = Tokenizer.scan(prefix)
        if scan.unterminatedQuote != nil || scan.danglingEscapeColumn != nil {
            return []
        }
        var preceding = scan.tokens
        var current = ""
        if !scan.endsBetweenWords, let last = preceding.popLast() {
            guard last.length == last.text.count else {
                return []  // quoted or escaped: leave it alone
            }
            current = last.text
        }
        var offered = options(after: preceding.map(\.text))
        if current.hasPrefix("-") {
            // A dash starts a flag even where a value was expected.
            offered += flags(after: preceding.map(\.text))
        }
        return Self.filter(offered, prefix: current)
    }

    /// Everything that may come after `words` (before prefix filtering).
    func options(after words: [String]) -> [String] {
        guard let first = words.first else {
            return table.commands.map(\.name)
        }
        guard var spec = table.command(first) else {
            return []
        }
        if spec.name == "help" {
            let path = Array(words.dropFirst())
            if path.isEmpty {
                return table.commands.map(\.name)
            }
            return table.spec(at: path)?.subcommands.map(\.name) ?? []
        }
        var index = 1
        while !spec.subcommands.isEmpty {
            guard index < words.count else {
                return spec.subcommands.map(\.name)
            }
            guard let sub = spec.subcommand(words[index]) else {
                return []
            }
            spec = sub
            index += 1
        }
        var usedFlags: Set<String> = []
        var positionalCount = 0
        var pendingFlagValue: ArgumentSpec?
        for word in words[index...] {
            if let pending = pendingFlagValue {
                _ = pending
                pendingFlagValue = nil
                continue
            }
            if word.hasPrefix("--"), let flag = spec.flag(String(word.prefix { $0 != "=" })) {
                usedFlags.insert(flag.name)
                if flag.value != nil && !word.contains("=") {
                    pendingFlagValue = flag.value
                }
                continue
            }
            positionalCount += 1
        }
        if let pending = pendingFlagValue {
            return values(of: pending)
        }
        var result: [String] = []
        var requiredPending = false
        var argumentIndex = 0
        var remaining = positionalCount
        while argumentIndex < spec.arguments.count && remaining > 0 && !spec.arguments[argumentIndex].takesRest {
            argumentIndex += 1
            remaining -= 1
        }
        if argumentIndex < spec.arguments.count {
            let argument = spec.arguments[argumentIndex]
            if !argument.takesRest || remaining == 0 {
                result += values(of: argument)
                requiredPending = !argument.isOptional
            }
        }
        if !requiredPending {
            result += spec.flags.map(\.name).filter { !usedFlags.contains($0) }
        }
        return result
    }

    /// The flags of the command path in `words`, if it names one.
    func flags(after words: [String]) -> [String] {
        guard let first = words.first, var spec = table.command(first) else {
            return []
        }
        for word in words.dropFirst() {
            guard let sub = spec.subcommand(word) else {
                break
            }
            spec = sub
        }
        return spec.flags.map(\.name).filter { !words.contains($0) }
    }

    func values(of argument: ArgumentSpec) -> [String] {
        switch argument.domain {
        case .choices(let values):
            return values
        case .testCard:
            return context.testCardNames
        case .command:
            return table.commands.map(\.name)
        case .text, .integer, .positiveNumber:
            return []
        }
    }

    static func filter(_ options: [String], prefix: String) -> [String] {
        let lower = prefix.lowercased()
        var seen: Set<String> = []
        return options.filter { $0.lowercased().hasPrefix(lower) && seen.insert($0).inserted }
    }

    /// The longest prefix every candidate shares (readline puts it in the line).
    public static func commonPrefix(of candidates: [String]) -> String {
        guard var prefix = candidates.first else {
            return ""
        }
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(prefix) {
                prefix.removeLast()
            }
        }
        return prefix
    }
}
