import CardValidation
import Foundation
import HeadlessBrowser
import PaymentFlow
import ReplCore

extension Shell {
    // MARK: starting a payment

    /// The SDK configuration from the shell's settings.
    func sdkConfiguration() throws(ReplError) -> Configuration {
        func url(_ text: String?, _ key: ConfigKey) throws(ReplError) -> URL? {
            guard let text else {
                return nil
            }
            guard let url = URL(string: text) else {
                throw ReplError(.commandFailed, "\(key.rawValue) is not a usable URL")
            }
            return url
        }
        var sdk = Configuration(
            apiBaseURL: try url(configuration.apiBaseURL, .apiBaseURL),
            checkoutAPIBaseURL: try url(configuration.checkoutAPIBaseURL, .checkoutAPIBaseURL),
            checkoutBaseURL: try url(configuration.checkoutBaseURL, .checkoutBaseURL),
            environment: configuration.environment == "live" ? .live : .sandbox)
        sdk.requestTimeout = configuration.timeout
        sdk.challengeTimeout = configuration.challengeTimeout
        sdk.hostedPageTimeout = configuration.hostedTimeout
        sdk.logLevel = LogLevel.allCases.first { $0.description == configuration.logLevel } ?? .warning
        if let authority = trustedAuthorityFile {
            sdk.transportSecurity = .trusting(certificateAuthorityFile: authority)
        }
        return sdk
    }

    func pay(hosted: Bool, method: String?, step: Bool) throws(ReplError) {
        if running != nil {
            throw ReplError(.notAvailable, "a payment is already running (step, continue or cancel it)")
        }
        guard let payment else {
            throw ReplError(.notAvailable, "no payment yet: payment create (or payment use ID KEY) first")
        }
        let inbox = PaymentInbox()
        var sdk = try sdkConfiguration()
        sdk.logSink = inbox.logSink()
        let paymentOptions = PaymentOptions(observer: inbox.observer(), stepGate: step ? inbox.stepGate() : nil)
        let kit = PaymentKit(configuration: sdk)
        // With --sandbox-tls the buyer's browser trusts the sandbox's CA too.
        let presenter = HeadlessBrowserPresenter(
            script: inbox.buyerScript(),
            transport: trustedAuthorityFile != nil ? CurlTransport(configuration: sdk) : CurlTransport(),
            options: .init(pageTimeout: configuration.timeout), onEvent: inbox.browserObserver())
        let run = PaymentRun(kit: kit, inbox: inbox, flow: hosted ? "hosted" : "card", stepping: step)

        if hosted {
            guard let checkout = payment.checkoutURL.flatMap(URL.init(string:)),
                let returnURL = payment.returnURL.flatMap(URL.init(string:))
            else {
                throw ReplError(
                    .notAvailable,
                    "pay hosted needs the payment's checkout and return URLs (payment use ID KEY URL URL)")
            }
            var request = PaymentRequest(
                paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: checkout,
                returnURL: returnURL)
            request.preferredMethod = method
            running = run
            defer { running = nil }
            if !options.json {
                console.out(
                    console.styled("Paying \(payment.paymentId) on the hosted checkout page", .bold) + stepHint(step))
            }
            kit.startPayment(request, from: presenter, options: paymentOptions, completion: inbox.completion())
            waitForPayment(run)
        } else {
            try startCardPayment(
                kit: kit, run: run, payment: payment, presenter: presenter, options: paymentOptions, step: step)
        }
        lastResult = run.result
        if let result = run.result {
            showOutcome(result)
        }
    }

    func stepHint(_ step: Bool) -> String {
        step ? " — step mode: step, continue or cancel at each pause" : " (Ctrl-C cancels)"
    }

    // MARK: waiting

    /// Keeps the main queue running (the SDK delivers the result there) until the
    /// payment's result arrives, printing what happens and answering its questions.
    func waitForPayment(_ run: PaymentRun) {
        interrupts.isBusy = true
        defer { interrupts.isBusy = false }
        var seenInterrupts = interrupts.received
        var inputClosed = false
        let started = Platform.monotonicNanoseconds()
        var lastActivity = started
        while true {
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.02))
            let items = run.inbox.drain()
            for item in items {
                handle(item, of: run)
            }
            if !items.isEmpty {
                promptIfWaiting(run)  // output may have erased the prompt
            }
            if run.result != nil {
                break
            }
            let now = Platform.monotonicNanoseconds()
            if !items.isEmpty {
                lastActivity = now
            } else if source.isInteractive && !run.awaitsInput && now - lastActivity > 700_000_000 {
                // Progress while the SDK waits on the network: elapsed time, and how to stop.
                let seconds = Double((now - started) / 100_000_000) / 10
                console.transient(
                    console.styled("  … \(run.flow) payment running, \(seconds) s (Ctrl-C cancels)", .dim))
            }
            if interrupts.received != seenInterrupts {
                seenInterrupts = interrupts.received
                console.out("")
                cancel(run, because: "Ctrl-C")
            }
            guard run.awaitsInput, !inputClosed else {
                continue
            }
            switch source.pollLine(milliseconds: 0) {
            case .line(let line):
                let answeringChallenge = run.pendingQuestion?.page.kind == .challenge
                if SecretPolicy.shouldRecordInHistory(line, answeringChallenge: answeringChallenge) {
                    source.remember(line)
                }
                handleDuringPayment(line, run: run)
                if anyFailed && options.bail && !run.cancelRequested {
                    cancel(run, because: "--bail")
                }
            case .endOfInput:
                inputClosed = true
                if let pending = run.pendingStep {
                    report(.object([("event", .string("endOfInput")), ("then", .string("continue"))])) {
                        console.out("(end of input: continuing the payment)")
                    }
                    run.stepping = false
                    run.pendingStep = nil
                    pending.answer(.proceed)
                }
                if let question = run.pendingQuestion {
                    run.pendingQuestion = nil
                    report(.object([("event", .string("endOfInput")), ("then", .string("close"))])) {
                        console.out("(end of input: closing the page)")
                    }
                    question.respond(.close)
                }
            case .nothing:
                break
            }
        }
    }

    func cancel(_ run: PaymentRun, because reason: String) {
        guard !run.cancelRequested else {
            return
        }
        run.cancelRequested = true
        report(.object([("event", .string("cancelling")), ("reason", .string(reason))])) {
            console.out(console.styled("Cancelling the payment (\(reason))…", .yellow))
        }
        run.kit.cancel()
        if let pending = run.pendingStep {
            run.pendingStep = nil
            pending.answer(.cancel)
        }
        run.pendingQuestion = nil
    }

    /// A line typed (or read from the script) while a payment runs.
    func handleDuringPayment(_ line: String, run: PaymentRun) {
        if let question = run.pendingQuestion, let action = Self.buyerAnswer(line, page: question.page) {
            _ = interpreter.feed(line)  // keep line numbers in step with the input
            run.pendingQuestion = nil
            showBuyer(action, scripted: false)
            question.respond(action)
            return
        }
        _ = handle(line: line)
        // A `buyer ...` command may have queued what a waiting page needs.
        if let question = run.pendingQuestion, let action = takeBuyerAction(for: question.page) {
            run.pendingQuestion = nil
            showBuyer(action, scripted: false)
            question.respond(action)
        }
        promptIfWaiting(run)
    }

    /// `step`, `continue`, `cancel`.
    func drive(_ command: Command) throws(ReplError) {
        guard let run = running else {
            throw ReplError(.notAvailable, "no payment is running (start one with pay card --step)")
        }
        switch command {
        case .cancel:
            cancel(run, because: "cancel")
        case .step, .continue:
            if command == .continue {
                run.stepping = false
            }
            guard let pending = run.pendingStep else {
                if command == .continue {
                    return
                }
                throw ReplError(.notAvailable, "the payment is not paused at a step")
            }
            run.pendingStep = nil
            pending.answer(.proceed)
        default:
            break
        }
    }

    // MARK: reports

    func handle(_ item: PaymentInbox.Item, of run: PaymentRun) {
        switch item {
        case .sdk(let event):
            showEvent(event)
        case .browser(let event):
            showBrowserEvent(event)
        case .log(let record):
            report(
                .object([
                    ("event", .string("log")), ("level", .string(record.level.description)),
                    ("message", .string(redact(record.message))),
                ])
            ) {
                console.out(console.styled("  [\(record.level)] \(redact(record.message))", .dim))
            }
        case .step(let step, let answer):
            run.stepCount += 1
            guard run.stepping, !run.cancelRequested else {
                answer(run.cancelRequested ? .cancel : .proceed)
                return
            }
            run.pendingStep = (step, answer)
            if options.json {
                console.out(
                    JSONValue.object([
                        ("event", .string("step")), ("number", .number(run.stepCount)), ("state", .string(step.state)),
                        ("action", .string(redact(step.action))),
                    ]).text)
                promptIfWaiting(run)
                return
            }
            console.out(
                console.styled("⏸ step \(run.stepCount)", .magenta) + " \(step.state): "
                    + console.styled(step.action, .bold)
                    + console.styled("   (step, continue, cancel)", .dim))
            promptIfWaiting(run)
        case .buyerQuestion(let page, let respond):
            answerBuyer(page: page, respond: respond, run: run)
        case .finished(let result):
            run.result = result
        }
    }

    /// Shows `buyer> ` or `step> ` on a terminal when the run waits for a line; the
    /// prompt is redrawn in place, so events arriving meanwhile print above it.
    func promptIfWaiting(_ run: PaymentRun) {
        guard source.isInteractive else {
            return
        }
        if run.pendingQuestion != nil {
            console.transient("buyer> ")
        } else if run.pendingStep != nil {
            console.transient("step> ")
        }
    }

    /// One payment report: a JSON line with `--json`, else the text `human` builds.
    func report(_ json: @autoclosure () -> JSONValue, _ human: () -> Void) {
        if options.json {
            console.out(json().text)
        } else {
            human()
        }
    }

    func showEvent(_ event: PaymentEvent) {
        if options.json {
            showEventJSON(event)
            return
        }
        switch event {
        case .started(let flow, let paymentId):
            console.out(console.styled("▸ \(flow) payment \(paymentId) started", .cyan))
        case .transition(let transition):
            let next = transition.action == "none" ? "" : console.styled("  → \(transition.action)", .dim)
            console.out(
                "  ↳ " + console.styled("\(transition.from) → \(transition.to)", .blue)
                    + " on \(redact(transition.event))"
                    + next)
        case .http(let exchange):
            showExchange(exchange)
        case .page(let page):
            switch page {
            case .loaded:
                break  // the browser's own report names the page
            default:
                console.out(console.styled("  ▢ \(redact(page.description))", .dim))
            }
        case .cardEncrypted(let kid, let duration):
            console.out(
                "  🔒 card encrypted to kid \(kid ?? "(none)") in \(Int((duration * 1_000_000).rounded())) µs "
                    + console.styled("(JWE RSA-OAEP-256 + A256GCM; the plaintext buffer is wiped)", .dim))
        case .finished:
            break  // shown from the completion itself
        }
    }

    func showEventJSON(_ event: PaymentEvent) {
        func string(_ value: String?) -> JSONValue { value.map { .string(redact($0)) } ?? .null }
        switch event {
        case .started(let flow, let paymentId):
            console.out(
                JSONValue.object([
                    ("event", .string("started")), ("flow", .string(flow.description)),
                    ("paymentId", .string(paymentId)),
                ]).text)
        case .transition(let transition):
            console.out(
                JSONValue.object([
                    ("event", .string("transition")), ("from", .string(transition.from)),
                    ("to", .string(transition.to)),
                    ("on", string(transition.event)), ("next", string(transition.action)),
                ]).text)
        case .http(let exchange):
            console.out(
                JSONValue.object([
                    ("event", .string("http")), ("method", .string(exchange.method)),
                    ("url", .string(exchange.url.absoluteString)),
                    ("status", exchange.status.map { .number($0) } ?? .null),
                    ("milliseconds", .number(Int((exchange.duration * 1000).rounded()))),
                    ("request", string(exchange.requestBody)), ("jweHeader", string(exchange.encryptedCardHeader)),
                    ("response", string(exchange.responseBody)), ("failure", string(exchange.failure)),
                ]).text)
        case .page(let page):
            console.out(JSONValue.object([("event", .string("page")), ("what", string(page.description))]).text)
        case .cardEncrypted(let kid, let duration):
            console.out(
                JSONValue.object([
                    ("event", .string("cardEncrypted")), ("kid", string(kid)),
                    ("microseconds", .number(Int((duration * 1_000_000).rounded()))),
                ]).text)
        case .finished:
            break
        }
    }

    func showExchange(_ exchange: HTTPExchange) {
        let status: String
        if let code = exchange.status {
            status = console.styled("\(code)", code < 400 ? .green : .red)
        } else {
            status = console.styled("no response (\(exchange.failure ?? "?"))", .red)
        }
        let milliseconds = Int((exchange.duration * 1000).rounded())
        console.out("  ⇄ \(exchange.method) \(exchange.url.absoluteString) → \(status) in \(milliseconds) ms")
        if let body = exchange.requestBody, !body.isEmpty {
            console.out(console.styled("      request   \(shorten(redact(body)))", .dim))
        }
        if let header = exchange.encryptedCardHeader {
            console.out(console.styled("      JWE header \(redact(header))", .dim))
        }
        if let body = exchange.responseBody, !body.isEmpty {
            console.out(console.styled("      response  \(shorten(redact(body)))", .dim))
        }
    }

    func showBrowserEvent(_ event: BrowserEvent) {
        if options.json {
            let what: String?
            switch event {
            case .redirect(let status, _, let to): what = "redirect \(status) to \(to.absoluteString)"
            case .loaded(let page): what = "loaded \(page.kind) (\(page.status))"
            case .autoSubmitted(let url, _): what = "auto-submitted \(url.absoluteString)"
            case .buyerAction(let action, _): what = action == .wait ? nil : "buyer did: \(Self.describe(action))"
            case .navigation, .failed, .closedByBuyer, .dismissed: what = nil
            }
            if let what {
                console.out(JSONValue.object([("event", .string("browser")), ("what", .string(redact(what)))]).text)
            }
            return
        }
        switch event {
        case .redirect(let status, _, let to):
            console.out(console.styled("  ↪ \(status) to \(redact(to.absoluteString))", .dim))
        case .loaded(let page):
            let title = page.title.map { " “\($0)”" } ?? ""
            console.out(console.styled("  ▢ page loaded: \(page.kind)\(title) (\(page.status))", .dim))
        case .autoSubmitted(_, let formID):
            console.out(console.styled("  ▢ the page submitted itself\(formID.map { " (\($0))" } ?? "")", .dim))
        case .buyerAction(let action, _):
            if action != .wait {
                console.out(console.styled("  ▢ buyer did: \(Self.describe(action))", .dim))
            }
        case .navigation, .failed, .closedByBuyer, .dismissed:
            break  // the SDK's page events report these
        }
    }

    func showOutcome(_ result: PaymentResult) {
        if options.json {
            console.out(resultJSON(result).text)
            return
        }
        let style: Console.Style
        switch result.outcome {
        case .succeeded: style = .green
        case .failed: style = .red
        case .cancelled: style = .yellow
        case .unresolved: style = .magenta
        }
        var parts = ["paymentId \(result.paymentId)"]
        if let status = result.paymentStatus {
            parts.append("paymentStatus \(status)")
        }
        if let order = result.orderNumber {
            parts.append("orderNumber \(order)")
        }
        if let session = result.sessionId {
            parts.append("sessionId \(session)")
        }
        console.out(console.styled("● \(result.outcome)", style) + "  " + parts.joined(separator: ", "))
        if let error = result.error {
            let name = PaymentError.code(of: error).map { " \($0)" } ?? ""
            console.out(
                console.styled(
                    "  error \(error.domain) \(error.code)\(name): \(redact(error.localizedDescription))", style))
        }
    }

    // MARK: the buyer

    func answerBuyer(page: LoadedPage, respond: @escaping @Sendable (BuyerAction) -> Void, run: PaymentRun) {
        if page.kind == .notification {
            respond(.wait)  // the issuer is sending the buyer back: the SDK ends the challenge
            return
        }
        if let action = takeBuyerAction(for: page) {
            showBuyer(action, scripted: true)
            respond(action)
            return
        }
        guard source.isInteractive, !run.cancelRequested else {
            report(.object([("event", .string("buyer")), ("action", .string("close")), ("scripted", .bool(false))])) {
                console.out("  buyer: close (no buyer action scripted: use buyer hosted ... or buyer challenge CODE)")
            }
            respond(.close)
            return
        }
        run.pendingQuestion = (page, respond)
        if page.kind != .hostedCheckout && page.kind != .challenge {
            let why = page.needsJavaScript ? LoadedPage.javaScriptNotice : "the page has nothing the buyer can do"
            console.out(console.styled("? A page the buyer cannot use is open", .bold) + " (\(why)). Type close.")
        } else if page.kind == .hostedCheckout {
            console.out(
                console.styled("? The hosted checkout page is open.", .bold)
                    + " What does the buyer do: pay, decline, cancel, abandon, pending or close?")
        } else {
            console.out(
                console.styled("? The issuer's 3-D Secure challenge page is open.", .bold)
                    + " Type the code the buyer enters (\(challengeHint)), or close.")
        }
        promptIfWaiting(run)
    }

    func showBuyer(_ action: BuyerAction, scripted: Bool) {
        report(
            .object([
                ("event", .string("buyer")), ("action", .string(Self.describe(action))), ("scripted", .bool(scripted)),
            ])
        ) {
            console.out("  buyer: \(Self.describe(action))\(scripted ? " (scripted)" : "")")
        }
    }

    var challengeHint: String { sandbox == nil ? "from the issuer" : "the sandbox passes 1234" }

    /// The first queued buyer action that fits the page, removed from the queue.
    func takeBuyerAction(for page: LoadedPage) -> BuyerAction? {
        guard
            let index = buyerSteps.firstIndex(where: { step in
                switch step {
                case .close: true
                case .hosted: page.kind == .hostedCheckout
                case .challenge: page.kind == .challenge
                }
            })
        else {
            return nil
        }
        let step = buyerSteps.remove(at: index)
        switch step {
        case .close: return .close
        case .hosted(let choice): return .hosted(choice)
        case .challenge(let code): return .challenge(code: code)
        }
    }

    /// A bare answer typed at the buyer question (`pay`, `close`, `1234`).
    static func buyerAnswer(_ line: String, page: LoadedPage) -> BuyerAction? {
        let word = line.trimmingCharacters(in: .whitespaces).lowercased()
        if word == "close" {
            return .close
        }
        if page.kind == .hostedCheckout, let choice = HostedChoice(rawValue: word) {
            return .hosted(choice)
        }
        if page.kind == .challenge, !word.isEmpty, word.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
            word.count <= 12, word != "step", word != "continue", word != "cancel", word != "help"
        {
            return .challenge(code: line.trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    static func describe(_ action: BuyerAction) -> String {
        switch action {
        case .hosted(let choice): "hosted \(choice.rawValue)"
        case .challenge: "challenge code ••••"
        case .close: "close the page"
        case .submit(let index, _): "submit form \(index)"
        case .press(let label): "press \(label)"
        case .wait: "wait"
        }
    }

    // MARK: redaction

    /// Defence in depth for everything shown from the SDK: card-number-like digit
    /// runs masked, and the current verification key replaced by a placeholder.
    func redact(_ text: String) -> String {
        var text = SecretPolicy.maskCardNumbers(in: text, sparingIdentifiers: true)
        if let key = payment?.verificationKey, key.count >= 6 {
            text = text.replacingOccurrences(of: key, with: "vk#••••")
        }
        return text
    }

    func shorten(_ text: String, limit: Int = 240) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }
}
