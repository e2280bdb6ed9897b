import CardValidation
import EGWWire
import Foundation
import GatewaySandbox
import PaymentFlow
import ReplCore

/// The shell: reads lines, parses them with the pure ``Interpreter``, runs the
/// commands, reports errors with their position, and decides the exit status.
///
/// Runs on the main thread. While a payment runs it keeps the main queue
/// turning (the SDK delivers results there) instead of sitting in `readline`.
@MainActor
final class Shell {
    /// Whether to keep reading after a line.
    enum LineOutcome {
        case proceed
        case quit
    }

    static let version = "0.1.0"

    let options: Options
    let source: LineSource
    let console: Console
    let interrupts: Interrupts
    /// Monotonic nanoseconds (the progress line); injected so tests need no wall clock.
    let clock: ShellClock
    /// How the shell sleeps while the SDK works, and where the SDK calls back.
    let events: EventLoop
    /// The embedded sandbox gateway, unless `--no-sandbox` (or it failed to start).
    let sandbox: Sandbox?
    /// WebKitGTK, in `egw-repl-webkit` (`nil` in `egw-repl`, which links no GTK).
    let webKit: (any WebKitSupport)?
    var interpreter = Interpreter()
    var configuration = ShellConfiguration()
    var payment: CurrentPayment?
    /// What the buyer does on the pages the SDK opens.
    var buyer = BuyerDialog()
    /// The card `pay card` pays with; only ever shown masked.
    let card = CardInput()
    /// The payment in progress, while `pay` waits for it.
    var running: PaymentRun?
    /// The last payment's result (`result`).
    var lastResult: PaymentResult?
    /// Verification keys of the payments this session created or was given (for `status ID`).
    var knownKeys: [String: String] = [:]
    /// The session's kit and the settings it was built from (see ``sessionKit()``).
    var builtKit: (settings: ShellConfiguration.KitSettings, kit: PaymentKit)?
    /// The simulated wallet, the sheet being set up or shown, and its last result (`wallet`, `sheet`).
    var wallet = WalletSession()
    /// Routes the kit's log lines to the running payment.
    let logRelay = LogRelay()
    /// Set when any command failed (the exit status of a script).
    private(set) var anyFailed = false

    /// A shell over `source`, on the embedded `sandbox` unless flags name other URLs.
    ///
    /// - Throws: ``ReplError`` when a flag's value is not usable (a URL that does not
    ///   parse, plain http in the live environment).
    init(
        options: Options, source: LineSource, console: Console, interrupts: Interrupts, sandbox: Sandbox?,
        clock: ShellClock = .monotonic, events: EventLoop = .mainRunLoop, webKit: (any WebKitSupport)? = nil
    ) throws(ReplError) {
        self.events = events
        self.webKit = webKit
        self.options = options
        self.interrupts = interrupts
        self.sandbox = sandbox
        self.source = source
        self.console = console
        self.clock = clock
        if let sandbox {
            configuration.kit.apiBaseURL = sandbox.apiBaseURL
            configuration.kit.checkoutAPIBaseURL = sandbox.checkoutAPIBaseURL
            configuration.kit.checkoutBaseURL = sandbox.checkoutBaseURL
            configuration.merchantBaseURL = sandbox.merchantBaseURL
            buyer.challengeHint = "the sandbox passes 1234"
        }
        // Explicit settings win over the embedded sandbox's.
        let given: [(ConfigKey, String?)] = [
            (.apiBaseURL, options.apiBaseURL), (.checkoutAPIBaseURL, options.checkoutAPIBaseURL),
            (.checkoutBaseURL, options.checkoutBaseURL), (.merchantBaseURL, options.merchantBaseURL),
            (.environment, options.environment), (.timeout, options.timeout.map { "\($0)" }),
            (.logLevel, options.logLevel),
        ]
        for case (let key, let value?) in given {
            do {
                try configuration.set(key, value)
            } catch {
                throw ReplError(.usage, "--\(key.rawValue): \(error.message)")
            }
        }
        configuration.verbosity = options.verbosity
    }

    var prompt: String { "egw> " }

    /// Runs until end of input, `quit`, or (with `--bail`) the first failure.
    /// Returns the exit status: 0, or 1 when a command failed in a script.
    func run() -> Int32 {
        if source.isInteractive {
            printBanner()
        }
        while let line = source.readLine(prompt: prompt) {
            source.remember(line)
            if handle(line: line) == .quit {
                break
            }
            if anyFailed && options.bail {
                break
            }
        }
        source.close()
        return anyFailed && !source.isInteractive ? 1 : 0
    }

    /// Parses and runs one line.
    func handle(line: String) -> LineOutcome {
        let step = interpreter.feed(line)
        let lineNumber = interpreter.lineNumber
        switch step {
        case .blank:
            return .proceed
        case .error(let error):
            fail(error, line: line, lineNumber: lineNumber)
            return .proceed
        case .command(let command):
            do {
                return try execute(command)
            } catch {
                fail(error, line: line, lineNumber: lineNumber)
                return .proceed
            }
        }
    }

    /// A short acknowledgement: text, or `{"message": ...}` with `--json`.
    func note(_ text: String) {
        console.out(options.json ? JSONValue.members([("message", .string(text))]).jsonText : text)
    }

    func fail(_ error: ReplError, line: String, lineNumber: Int) {
        anyFailed = true
        console.report(error, line: line, lineNumber: lineNumber)
    }

    func printBanner() {
        console.out(console.styled("egw-repl \(Self.version)", .bold) + " — the EGWPay SDK shell")
        if let sandbox {
            console.out(
                "Embedded sandbox gateway on " + console.styled(sandbox.merchantBaseURL.absoluteString, .cyan)
                    + " (checkout API, pages, 3-D Secure issuer, merchant backend; config shows the URLs).")
            console.out(
                "Get started:  " + console.styled("payment create", .bold) + "  ·  "
                    + console.styled("card test mastercard-challenge", .bold) + "  ·  "
                    + console.styled("pay card --step", .bold))
        } else {
            console.out("No embedded sandbox: config shows where payments go; payment use ID KEY picks one.")
        }
        console.out("Type help for the commands, Tab to complete, Ctrl-D to leave.")
    }

    /// Runs one parsed command: `help` and `quit` here, every other family by its own runner
    /// (`runConfig`, `runPayment`, `runCard`, `runBuyer`, `runPay`, `runTool`, `runSandbox`, `runWallet`).
    func execute(_ command: Command) throws(ReplError) -> LineOutcome {
        switch command {
        case .help(let topic):
            console.out(try HelpText.render(topic: topic))
        case .quit:
            if running != nil {
                throw ReplError(.notAvailable, "a payment is running: cancel it first (cancel or Ctrl-C)")
            }
            return .quit
        case .config(let command):
            try runConfig(command)
        case .payment(let command):
            try runPayment(command)
        case .card(let command):
            try runCard(command)
        case .buyer(let command):
            runBuyer(command)
        case .pay(let command):
            try runPay(command)
        case .tool(let command):
            try runTool(command)
        case .sandbox(let command):
            try runSandbox(command)
        case .wallet(let command):
            try runWallet(command)
        }
        return .proceed
    }
}
