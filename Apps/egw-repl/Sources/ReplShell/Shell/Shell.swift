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
    /// Whether to keep reading after a command.
    enum Flow {
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
    func handle(line: String) -> Flow {
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

    /// Runs one parsed command.
    func execute(_ command: Command) throws(ReplError) -> Flow {
        switch command {
        case .help(let topic):
            console.out(try HelpText.render(topic: topic))
        case .quit:
            if running != nil {
                throw ReplError(.notAvailable, "a payment is running: cancel it first (cancel or Ctrl-C)")
            }
            return .quit
        case .configShow:
            showConfiguration()
        case .configSet(let key, let value):
            try setConfiguration(key, value)
        case .paymentCreate(let amount, let currency, let orderNumber):
            try createPayment(amount: amount, currency: currency, orderNumber: orderNumber)
        case .paymentUse(let paymentId, let key, let checkoutURL, let returnURL):
            payment = CurrentPayment(
                paymentId: paymentId, verificationKey: key, checkoutURL: checkoutURL.flatMap(URL.init(string:)),
                returnURL: returnURL.flatMap(URL.init(string:)))
            knownKeys[paymentId] = key
            note("Using payment \(paymentId) (verification key \(SecretPolicy.maskedKey(key))).")
        case .paymentShow:
            try showPayment()
        case .buyerHosted(let choice):
            queueBuyer(.hosted(choice))
        case .buyerChallenge(let code):
            queueBuyer(.challenge(code: code))
        case .buyerClose:
            queueBuyer(.close)
        case .buyerShow:
            showBuyer()
        case .buyerClear:
            buyer.clear()
            note("Buyer actions cleared.")
        case .step, .continue, .cancel:
            try drive(command)
        case .cardNumber(let number):
            try setCardNumber(number)
        case .cardName(let name):
            card.cardholderName = name
            note("Cardholder name set.")
        case .cardExpiry(let month, let year):
            card.expiryMonth = month
            card.expiryYear = year
            note("Expiry set: \(month)/\(year)\(stateNote(.expiry)).")
        case .cardSecurityCode(let code):
            try setSecurityCode(code)
        case .cardTest(let name):
            try fillTestCard(named: name)
        case .cardShow:
            showCard()
        case .cardCheck:
            checkCard()
        case .cardClear:
            card.clear()
            note("Card cleared.")
        case .brand(let number):
            try showBrand(number)
        case .luhn(let number):
            try showLuhn(number)
        case .format(let number):
            try showFormat(number)
        case .jweHeader(let token):
            try showJWEHeader(token)
        case .sandboxCards(let numbers):
            showTestCards(numbers: numbers)
        case .sandboxFault(let endpoint, let kind, let argument, let times, let probability):
            try injectFault(endpoint: endpoint, kind: kind, argument: argument, times: times, probability: probability)
        case .sandboxFaults:
            try showFaults()
        case .sandboxFaultsClear:
            try requireSandbox().clearFaults()
            note("Faults cleared.")
        case .sandboxLog:
            try showSandboxLog()
        case .sandboxPages(let value):
            let sandbox = try requireSandbox()
            sandbox.pages = value == "js" ? .js : .html
            note("The sandbox's pages are now built \(value == "js" ? "by JavaScript" : "as plain HTML forms").")
        case .payCard(let step):
            try pay(hosted: false, method: nil, step: step)
        case .payHosted(let method, let step):
            try pay(hosted: true, method: method, step: step)
        case .result(let json):
            try showResult(json: json)
        case .status(let paymentId):
            try lookUpStatus(paymentId)
        case .wallet(let command):
            try runWallet(command)
        }
        return .proceed
    }

    // MARK: config

    func showConfiguration() {
        // With --sandbox-tls: the test CA the SDK trusts, and its SHA-256 fingerprint (read-only rows).
        let trust: [(String, String)] =
            [("browser", options.browser)] + (options.screenshotsPath.map { [("screenshots", $0)] } ?? [])
            + (sandbox.map { [("sandbox-pages", $0.pages.rawValue)] } ?? [])
            // What the embedded sandbox's control endpoints and payment reads over HTTP need (X-Sandbox-Token).
            + (sandbox.map { [("sandbox-control-token", $0.controlToken)] } ?? [])
            + (sandbox?.tlsTrust.map {
                [("sandbox-ca", $0.certificateAuthorityFile), ("sandbox-ca-sha256", $0.certificateAuthoritySHA256)]
            } ?? [])
        if options.json {
            var object: [(String, JSONValue)] = []
            for key in ConfigKey.allCases {
                object.append((key.rawValue, .string(configuration.value(of: key))))
            }
            object += trust.map { ($0.0, .string($0.1)) }
            console.out(JSONValue.members(object).jsonText)
            return
        }
        console.table(ConfigKey.allCases.map { ($0.rawValue, configuration.value(of: $0)) } + trust)
    }

    /// The CA file of the embedded sandbox when it serves HTTPS (`--sandbox-tls`): every transport of the
    /// shell (the SDK's, the buyer's browser, `payment create`, `status`) trusts it.
    var trustedAuthorityFile: String? { sandbox?.tlsTrust?.certificateAuthorityFile }

    func setConfiguration(_ key: ConfigKey, _ value: String) throws(ReplError) {
        try configuration.set(key, value)
        note("\(key.rawValue) = \(configuration.value(of: key))")
    }

    // MARK: payment

    func showPayment() throws(ReplError) {
        guard let payment else {
            throw ReplError(.notAvailable, "no payment yet: payment create, or payment use ID KEY")
        }
        if options.json {
            console.out(
                JSONValue.members([
                    ("paymentId", .string(payment.paymentId)),
                    ("verificationKey", .string(SecretPolicy.maskedKey(payment.verificationKey))),
                    ("checkoutURL", payment.checkoutURL.map { .string($0.absoluteString) } ?? .null),
                    ("returnURL", payment.returnURL.map { .string($0.absoluteString) } ?? .null),
                ]).jsonText)
            return
        }
        var rows = [
            ("payment id", payment.paymentId), ("verification key", SecretPolicy.maskedKey(payment.verificationKey)),
        ]
        if let amount = payment.amount, let currency = payment.currency {
            rows.append(("amount", "\(amount) \(currency) (minor units)"))
        }
        if let order = payment.orderNumber {
            rows.append(("order number", order))
        }
        rows.append(("checkout URL", payment.checkoutURL?.absoluteString ?? "(none: pay hosted needs one)"))
        rows.append(("return URL", payment.returnURL?.absoluteString ?? "(none)"))
        console.table(rows)
    }

    // MARK: buyer

    func queueBuyer(_ step: BuyerStep) {
        buyer.queue(step)
        note("Buyer will: \(step) (\(buyer.queued.count) queued).")
    }

    func showBuyer() {
        if options.json {
            console.out(JSONValue.array(buyer.queued.map { .string($0.description) }).jsonText)
            return
        }
        if buyer.queued.isEmpty {
            let fallback = source.isInteractive ? "the shell will ask you" : "pages will be closed"
            console.out("No buyer actions queued: \(fallback).")
            return
        }
        for (index, step) in buyer.queued.enumerated() {
            console.out("  \(index + 1). \(step)")
        }
    }
}
