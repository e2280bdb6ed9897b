import HeadlessBrowser

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
    /// Sandbox endpoints a fault can be injected on.
    /// (The GatewaySandbox endpoint names.)
    public static let faultEndpoints = [
        "status", "jwks", "card-session-create", "card-session-get", "authentication", "challenge-result",
        "hosted-page", "hosted-choice", "acs-challenge", "acs-submit", "notification", "merchant-payments", "any",
    ]
    /// Kinds of fault (`latency MS`, `status CODE`, ...), as GatewaySandbox names them.
    public static let faultKinds = [
        "latency", "status", "status-no-body", "malformed", "truncated", "drop", "rotate-key",
    ]

    /// The table of the egw-repl shell.
    public static let standard = CommandTable(commands: [
        CommandSpec(
            "help", "Show the commands, or the details of one (help card, help card cvc)",
            arguments: [ArgumentSpec("COMMAND", .command, optional: true, rest: true)]),
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
                    arguments: [
                        ArgumentSpec("KEY", .choices(ConfigKey.allCases.map(\.rawValue))),
                        ArgumentSpec("VALUE"),
                    ])
            ],
            runsAlone: true),
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
                    arguments: [
                        ArgumentSpec("AMOUNT", .integer(1...99_999_999_999), optional: true),
                        ArgumentSpec("CURRENCY", optional: true),
                    ],
                    flags: [FlagSpec("--order", "The merchant's order number", value: ArgumentSpec("N"))]),
                CommandSpec(
                    "use", "Use a payment your own backend created",
                    details: """
                        The checkout URL and return URL are needed for `pay hosted` only. The verification \
                        key is never shown again and this line is never written to the history file.
                        """,
                    arguments: [
                        ArgumentSpec("ID"), ArgumentSpec("VERIFICATION_KEY", secret: true),
                        ArgumentSpec("CHECKOUT_URL", optional: true), ArgumentSpec("RETURN_URL", optional: true),
                    ]),
                CommandSpec("show", "Show the current payment (the verification key masked)"),
            ]),
        CommandSpec(
            "card", "Enter the card to pay with (shown masked)",
            details: "Card data stays in memory: it is never printed in full, logged or written to history.",
            subcommands: [
                CommandSpec(
                    "number", "Set the card number; with no number, type it with live formatting",
                    arguments: [ArgumentSpec("N", optional: true, rest: true, secret: true)]),
                CommandSpec("name", "Set the cardholder name", arguments: [ArgumentSpec("NAME", rest: true)]),
                CommandSpec("expiry", "Set the expiry date", arguments: [ArgumentSpec("MM/YY")]),
                CommandSpec(
                    "cvc", "Set the security code; with no code, type it masked (never echoed)",
                    arguments: [ArgumentSpec("CODE", optional: true, secret: true)]),
                CommandSpec(
                    "test", "Fill in a sandbox test card by name (see: sandbox cards)",
                    details: "Sets the number, a future expiry, a name and a security code of the right length.",
                    arguments: [ArgumentSpec("NAME", .testCard)]),
                CommandSpec("show", "Show the card, masked"),
                CommandSpec("check", "Validate each field and show its state (valid, incomplete, invalid)"),
                CommandSpec("clear", "Forget the card"),
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
                    arguments: [ArgumentSpec("CHOICE", .choices(HostedChoice.allCases.map(\.rawValue)))]),
                CommandSpec(
                    "challenge", "On the 3-D Secure challenge page: enter this code (1234 passes)",
                    arguments: [ArgumentSpec("CODE", secret: true)]),
                CommandSpec("close", "Close whichever page appears next"),
                CommandSpec("show", "Show the queued buyer actions"),
                CommandSpec("clear", "Forget the queued buyer actions"),
            ]),
        CommandSpec(
            "pay", "Run a payment and show every step",
            details: """
                Shows every state transition and HTTP exchange (method, URL, status, time, redacted body, \
                the JWE protected header). Ctrl-C cancels the payment. With --step the flow pauses before \
                each transition: `step` runs one, `continue` runs to the end, `cancel` cancels.
                """,
            subcommands: [
                CommandSpec(
                    "card", "Pay the current payment with the card (native card form)",
                    flags: [FlagSpec("--step", "Pause at each state transition")]),
                CommandSpec(
                    "hosted", "Pay the current payment on the hosted checkout page",
                    flags: [
                        FlagSpec(
                            "--method", "Open the page on one method",
                            value: ArgumentSpec("METHOD", .choices(methodHints))),
                        FlagSpec("--step", "Pause at each state transition"),
                    ]),
            ]),
        CommandSpec("step", "Step mode: perform the next transition"),
        CommandSpec("continue", "Step mode: run the payment to its end"),
        CommandSpec("cancel", "Cancel the running payment (Ctrl-C does too)"),
        CommandSpec(
            "result", "Show the last payment result",
            details: """
                JSON fields: outcome, paymentId, paymentStatus, orderNumber, sessionId, \
                error.domain, error.code, error.message.
                """,
            flags: [FlagSpec("--json", "Print it as one JSON object")]),
        CommandSpec(
            "status", "Look up a payment's status (the current payment by default)",
            arguments: [ArgumentSpec("PAYMENT_ID", optional: true)]),
        CommandSpec(
            "brand", "Detect a card number's brand", arguments: [ArgumentSpec("N", rest: true, secret: true)]),
        CommandSpec(
            "luhn", "Check a card number's Luhn digit", arguments: [ArgumentSpec("N", rest: true, secret: true)]),
        CommandSpec(
            "format", "Show how a card number is grouped (digits masked)",
            arguments: [ArgumentSpec("N", rest: true, secret: true)]),
        CommandSpec(
            "jwe", "Inspect compact JWE tokens",
            subcommands: [
                CommandSpec(
                    "header", "Decode a token's protected header (no decryption)",
                    arguments: [ArgumentSpec("TOKEN")])
            ]),
        CommandSpec(
            "sandbox", "Inspect and misbehave the embedded sandbox gateway",
            subcommands: [
                CommandSpec(
                    "cards", "List the sandbox test cards and what each does (card test NAME uses one)",
                    flags: [FlagSpec("--numbers", "Show the published test numbers in full")]),
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
                    arguments: [
                        ArgumentSpec("ENDPOINT", .choices(faultEndpoints)),
                        ArgumentSpec("KIND", .choices(faultKinds)),
                        ArgumentSpec("ARG", optional: true),
                    ],
                    flags: [
                        FlagSpec(
                            "--times", "How many requests it applies to", value: ArgumentSpec("N", .integer(1...1000))),
                        FlagSpec(
                            "--probability", "The chance (0 to 1) on every request, until cleared",
                            value: ArgumentSpec("P", .positiveNumber)),
                    ]),
                CommandSpec(
                    "faults", "List the injected faults, or clear them",
                    arguments: [ArgumentSpec("clear", .choices(["clear"]), optional: true)]),
                CommandSpec("log", "Show the sandbox's request log (no card data in it)"),
            ]),
        CommandSpec("quit", "Leave the shell (exit and Ctrl-D too)"),
        CommandSpec("exit", "Leave the shell"),
    ])
}
