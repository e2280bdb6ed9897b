import BuyerVocabulary
import SandboxVocabulary

/// The REPL's vocabulary: every command, sub-command, argument and flag, with
/// its help text. ``CommandParser``, `help` and ``Completer`` all read it.
public struct CommandTable: Sendable {
    /// Top-level commands in the order `help` lists them.
    public var commands: [CommandSpec]

    /// Creates a table.
    public init(commands: [CommandSpec]) {
        self.commands = commands
    }

    /// The command named `word` (case-insensitive).
    public func command(_ word: String) -> CommandSpec? {
        let lower = word.lowercased()
        return commands.first { $0.name == lower }
    }

    /// The spec at a command path (`["card", "number"]`), if it exists.
    public func spec(at path: [String]) -> CommandSpec? {
        guard let first = path.first, var spec = command(first) else {
            return nil
        }
        for word in path.dropFirst() {
            guard let next = spec.subcommand(word) else {
                return nil
            }
            spec = next
        }
        return spec
    }

    /// The log levels `config set log-level` accepts.
    public static let logLevels = ["off", "error", "warning", "info", "debug"]
    /// The environments `config set environment` accepts.
    public static let environments = ["sandbox", "live"]
    /// Payment-page method hints (`pay hosted --method`).
    public static let methodHints = ["card", "bank", "click-to-pay"]
    /// Sandbox endpoints a fault can be injected on: the sandbox's own names (SandboxVocabulary).
    public static let faultEndpoints = SandboxEndpoint.allCases.map(\.rawValue)
    /// Kinds of fault (`latency MS`, `status CODE`, ...): the sandbox's own names (SandboxVocabulary).
    public static let faultKinds = SandboxFaultKindNames.all

    /// The table of the egw-repl shell: each command's words, help and construction together.
    public static let standard: CommandTable = {
        // Arguments and flags are declared once and read back through the same values by the
        // builders, so a misspelt name does not compile.
        let helpTopic = ArgumentSpec("COMMAND", .command, optional: true, rest: true)
        let configKey = ArgumentSpec("KEY", .choices(ConfigKey.allCases.map(\.rawValue)))
        let configValue = ArgumentSpec("VALUE")
        let amount = ArgumentSpec("AMOUNT", .integer(1...99_999_999_999), optional: true)
        let currency = ArgumentSpec("CURRENCY", optional: true)
        let order = FlagSpec("--order", "The merchant's order number", value: ArgumentSpec("N"))
        let paymentId = ArgumentSpec("ID")
        let verificationKey = ArgumentSpec("VERIFICATION_KEY", secret: true)
        let checkoutURL = ArgumentSpec("CHECKOUT_URL", optional: true)
        let returnURL = ArgumentSpec("RETURN_URL", optional: true)
        let cardNumber = ArgumentSpec("N", optional: true, rest: true, secret: true)
        let holderName = ArgumentSpec("NAME", rest: true)
        let expiry = ArgumentSpec("MM/YY")
        let securityCode = ArgumentSpec("CODE", optional: true, secret: true)
        let testCard = ArgumentSpec("NAME", .testCard)
        let hostedChoice = ArgumentSpec("CHOICE", .choices(HostedChoice.allCases.map(\.rawValue)))
        let challengeCode = ArgumentSpec("CODE", secret: true)
        let step = FlagSpec("--step", "Pause at each state transition")
        let method = FlagSpec(
            "--method", "Open the page on one method", value: ArgumentSpec("METHOD", .choices(methodHints)))
        let json = FlagSpec("--json", "Print it as one JSON object")
        let statusId = ArgumentSpec("PAYMENT_ID", optional: true)
        let number = ArgumentSpec("N", rest: true, secret: true)
        let token = ArgumentSpec("TOKEN")
        let numbers = FlagSpec("--numbers", "Show the published test numbers in full")
        let endpoint = ArgumentSpec("ENDPOINT", .choices(faultEndpoints))
        let kind = ArgumentSpec("KIND", .choices(faultKinds))
        let faultArgument = ArgumentSpec("ARG", optional: true)
        let times = FlagSpec("--times", "How many requests it applies to", value: ArgumentSpec("N", .integer(1...1000)))
        let probability = FlagSpec(
            "--probability", "The chance (0 to 1) on every request, until cleared",
            value: ArgumentSpec("P", .positiveNumber))
        let clear = ArgumentSpec("clear", .choices(["clear"]), optional: true)
        let dialect = ArgumentSpec("DIALECT", .choices(["js", "html"]))

        let table = CommandTable(commands: [
            CommandSpec(
                "help", "Show the commands, or the details of one (help card, help card cvc)",
                arguments: [helpTopic]
            ) { .help(topic: ($0.text(helpTopic) ?? "").split(separator: " ").map { $0.lowercased() }) },
            CommandSpec(
                "config", "Show the configuration, or change one setting",
                details: """
                    With no sub-command, shows the three gateway URLs, the merchant backend used by \
                    `payment create`, the environment, the network timeout and the log level.
                    Keys: \(ConfigKey.allCases.map(\.rawValue).joined(separator: ", ")).
                    """,
                subcommands: [
                    CommandSpec(
                        "set", "Change one setting (config set timeout 10)",
                        details: """
                            URLs must be http or https; in the live environment every URL must be https. \
                            timeout is in seconds (each network call). challenge-timeout (default 600) and \
                            hosted-timeout (default 1800) are how long a 3-D Secure challenge or the hosted \
                            page may stay open before the SDK closes it and asks the gateway. log-level is one of \
                            \(logLevels.joined(separator: ", ")). verbose on shows the redacted bodies and JWE \
                            headers of each exchange (as -v); off, one line per exchange.
                            """,
                        arguments: [configKey, configValue]
                    ) { invocation throws(ReplError) in
                        guard let key = invocation.text(configKey).flatMap(ConfigKey.init(rawValue:)),
                            let value = invocation.token(configValue)
                        else {
                            throw ReplError(
                                .missingArgument, "'config set' needs KEY VALUE", column: invocation.endColumn)
                        }
                        try CommandParser.validateConfigValue(key: key, token: value)
                        return .config(.set(key: key, value: value.text))
                    }
                ]
            ) { _ in .config(.show) },
            CommandSpec(
                "payment", "Create or choose the payment to pay",
                subcommands: [
                    CommandSpec(
                        "create", "Create a payment on the merchant backend (amount in minor units: 1250 = 12.50)",
                        details: """
                            Creates it on the sandbox's merchant backend, POST {merchant-base-url}/sandbox/payments \
                            (the embedded sandbox by default, or an egw-sandbox elsewhere), and makes it the current \
                            payment. AMOUNT defaults to 1250, CURRENCY to EUR.
                            """,
                        arguments: [amount, currency], flags: [order]
                    ) { invocation throws(ReplError) in
                        var code: String?
                        if let given = invocation.token(currency) {
                            let upper = given.text.uppercased()
                            guard upper.count == 3, upper.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                                throw ReplError(
                                    .invalidValue, "CURRENCY must be a three-letter code such as EUR",
                                    column: given.column, length: given.length)
                            }
                            code = upper
                        }
                        return .payment(
                            .create(
                                amount: invocation.text(amount).flatMap { Int($0) }, currency: code,
                                orderNumber: invocation.token(order)?.text))
                    },
                    CommandSpec(
                        "use", "Use a payment your own backend created",
                        details: """
                            The checkout URL and return URL are needed for `pay hosted` only. The verification \
                            key is never shown again and this line is never written to the history file.
                            """,
                        arguments: [paymentId, verificationKey, checkoutURL, returnURL]
                    ) { invocation throws(ReplError) in
                        let checkout = invocation.token(checkoutURL)
                        let back = invocation.token(returnURL)
                        if checkout != nil, back == nil {
                            throw ReplError(
                                .missingArgument, "a CHECKOUT_URL needs its RETURN_URL too",
                                column: invocation.endColumn)
                        }
                        for url in [checkout, back].compactMap({ $0 }) {
                            try CommandParser.requireHTTPURL(url, name: "URL")
                        }
                        return .payment(
                            .use(
                                paymentId: invocation.text(paymentId) ?? "",
                                verificationKey: invocation.text(verificationKey) ?? "", checkoutURL: checkout?.text,
                                returnURL: back?.text))
                    },
                    CommandSpec("show", "Show the current payment (the verification key masked)") { _ in .payment(.show)
                    },
                ]),
            CommandSpec(
                "card", "Enter the card to pay with (shown masked)",
                details: "Card data stays in memory: it is never printed in full, logged or written to history.",
                subcommands: [
                    CommandSpec(
                        "number", "Set the card number; with no number, type it with live formatting",
                        arguments: [cardNumber]
                    ) { .card(.number($0.text(cardNumber))) },
                    CommandSpec("name", "Set the cardholder name", arguments: [holderName]) {
                        .card(.name($0.text(holderName) ?? ""))
                    },
                    CommandSpec("expiry", "Set the expiry date", arguments: [expiry]) { invocation throws(ReplError) in
                        let given = invocation.token(expiry)
                        guard let given, let (month, year) = CommandParser.parseExpiry(given.text) else {
                            throw ReplError(
                                .invalidValue, "expiry must be MM/YY, e.g. 12/30",
                                column: given?.column ?? invocation.endColumn, length: given?.length ?? 1)
                        }
                        return .card(.expiry(month: month, year: year))
                    },
                    CommandSpec(
                        "cvc", "Set the security code; with no code, type it masked (never echoed)",
                        arguments: [securityCode]
                    ) { invocation throws(ReplError) in
                        if let given = invocation.token(securityCode) {
                            guard (3...4).contains(given.text.count),
                                given.text.allSatisfy({ $0.isASCII && $0.isNumber })
                            else {
                                throw ReplError(
                                    .invalidValue, "the security code is 3 or 4 digits", column: given.column,
                                    length: given.length)
                            }
                        }
                        return .card(.securityCode(invocation.text(securityCode)))
                    },
                    CommandSpec(
                        "test", "Fill in a sandbox test card by name (see: sandbox cards)",
                        details: "Sets the number, a future expiry, a name and a security code of the right length.",
                        arguments: [testCard]
                    ) { .card(.test(name: ($0.text(testCard) ?? "").lowercased())) },
                    CommandSpec("show", "Show the card, masked") { _ in .card(.show) },
                    CommandSpec("check", "Validate each field and show its state (valid, incomplete, invalid)") { _ in
                        .card(.check)
                    },
                    CommandSpec("clear", "Forget the card") { _ in .card(.clear) },
                ]),
            CommandSpec(
                "buyer", "Script what the buyer does on the next page",
                details: """
                    Actions queue up and each page takes the first one that fits it. Without one, on a \
                    terminal the shell asks when the page appears; in a script the page is closed.
                    """,
                subcommands: [
                    CommandSpec(
                        "hosted", "On the hosted checkout page: pay, decline, cancel, abandon or leave pending",
                        arguments: [hostedChoice]
                    ) { invocation throws(ReplError) in
                        guard let choice = invocation.text(hostedChoice).flatMap(HostedChoice.init(rawValue:)) else {
                            throw ReplError(
                                .missingArgument, "'buyer hosted' needs a choice", column: invocation.endColumn)
                        }
                        return .buyer(.hosted(choice))
                    },
                    CommandSpec(
                        "challenge", "On the 3-D Secure challenge page: enter this code (1234 passes)",
                        arguments: [challengeCode]
                    ) { .buyer(.challenge(code: $0.text(challengeCode) ?? "")) },
                    CommandSpec("close", "Close whichever page appears next") { _ in .buyer(.close) },
                    CommandSpec("show", "Show the queued buyer actions") { _ in .buyer(.show) },
                    CommandSpec("clear", "Forget the queued buyer actions") { _ in .buyer(.clear) },
                ]),
            CommandSpec(
                "pay", "Run a payment and show every step",
                details: """
                    Shows every state transition and one line per HTTP exchange (method, path, status, time); \
                    with -v or config set verbose on, the redacted bodies and the JWE protected header too. \
                    Ctrl-C cancels the payment. With --step the flow pauses before each transition: `step` \
                    runs one, `continue` runs to the end, `cancel` cancels.
                    """,
                subcommands: [
                    CommandSpec("card", "Pay the current payment with the card (native card form)", flags: [step]) {
                        .pay(.card(step: $0.has(step)))
                    },
                    CommandSpec(
                        "hosted", "Pay the current payment on the hosted checkout page", flags: [method, step]
                    ) { .pay(.hosted(method: $0.token(method)?.text, step: $0.has(step))) },
                ]),
            CommandSpec("step", "Step mode: perform the next transition") { _ in .pay(.step) },
            CommandSpec("continue", "Step mode: run the payment to its end") { _ in .pay(.continue) },
            CommandSpec("cancel", "Cancel the running payment (Ctrl-C does too)") { _ in .pay(.cancel) },
            CommandSpec(
                "result", "Show the last payment result",
                details: """
                    JSON fields: outcome, paymentId, paymentStatus, orderNumber, sessionId, \
                    error.domain, error.code, error.message.
                    """,
                flags: [json]
            ) { .pay(.result(json: $0.has(json))) },
            CommandSpec(
                "status", "Look up a payment's status (the current payment by default)", arguments: [statusId]
            ) { .pay(.status(paymentId: $0.text(statusId))) },
            CommandSpec("brand", "Detect a card number's brand", arguments: [number]) {
                .tool(.brand($0.text(number) ?? ""))
            },
            CommandSpec("luhn", "Check a card number's Luhn digit", arguments: [number]) {
                .tool(.luhn($0.text(number) ?? ""))
            },
            CommandSpec("format", "Show how a card number is grouped (digits masked)", arguments: [number]) {
                .tool(.format($0.text(number) ?? ""))
            },
            CommandSpec(
                "jwe", "Inspect compact JWE tokens",
                subcommands: [
                    CommandSpec("header", "Decode a token's protected header (no decryption)", arguments: [token]) {
                        .tool(.jweHeader($0.text(token) ?? ""))
                    }
                ]),
            CommandSpec(
                "sandbox", "Inspect and misbehave the embedded sandbox gateway",
                subcommands: [
                    CommandSpec(
                        "cards", "List the sandbox test cards and what each does (card test NAME uses one)",
                        flags: [numbers]
                    ) { .sandbox(.cards(numbers: $0.has(numbers))) },
                    CommandSpec(
                        "fault", "Inject a fault on an endpoint (sandbox fault card-session-create status 503)",
                        details: """
                            Endpoints: \(faultEndpoints.joined(separator: ", ")).
                            Kinds: latency MS, status CODE (with the gateway's JSON error body), status-no-body CODE, \
                            malformed (a body that is not JSON), truncated (the connection closes mid-body), drop \
                            (closed without a response), rotate-key (the next session with the old kid gets \
                            422 UNKNOWN_KEY).
                            A fault applies to the next matching request; --times N for more, --probability P for \
                            a seeded chance on every request until `sandbox faults clear`.
                            """,
                        arguments: [endpoint, kind, faultArgument], flags: [times, probability]
                    ) { invocation throws(ReplError) in
                        try CommandParser.fault(
                            endpoint: invocation.text(endpoint) ?? "", kind: invocation.text(kind) ?? "",
                            argument: invocation.token(faultArgument), times: invocation.token(times),
                            probability: invocation.token(probability), endColumn: invocation.endColumn)
                    },
                    CommandSpec("faults", "List the injected faults, or clear them", arguments: [clear]) {
                        $0.token(clear) == nil ? .sandbox(.faults) : .sandbox(.faultsClear)
                    },
                    CommandSpec("log", "Show the sandbox's request log (no card data in it)") { _ in .sandbox(.log) },
                    CommandSpec(
                        "pages",
                        "Build the issuer's and checkout's pages with JavaScript (js) or as plain forms (html)",
                        details: """
                            js: the challenge's input and button are made by script, the code is checked with fetch and \
                            the cres form is submitted by script; the checkout's buttons post with fetch. The headless \
                            browser cannot run them (it closes such a page); --browser webkit can.
                            """,
                        arguments: [dialect]
                    ) { invocation throws(ReplError) in
                        guard let value = invocation.text(dialect)?.lowercased(), ["js", "html"].contains(value) else {
                            throw ReplError(
                                .missingArgument, "'sandbox pages' needs js or html", column: invocation.endColumn)
                        }
                        return .sandbox(.pages(value))
                    },
                ]),
            CommandSpec("quit", "Leave the shell (exit and Ctrl-D too)") { _ in .quit },
            CommandSpec("exit", "Leave the shell") { _ in .quit },
        ])
        return CommandTable(commands: insertingWalletCommands(table.commands))
    }()
}
