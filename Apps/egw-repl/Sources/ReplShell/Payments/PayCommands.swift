import CardValidation
import Foundation
import HeadlessBrowser
import PaymentFlow
import ReplCore

extension Shell {
    /// `pay card|hosted`, `step`, `continue`, `cancel`, `result`, `status`.
    func runPay(_ command: PayCommand) throws(ReplError) {
        switch command {
        case .card(let step):
            try pay(hosted: false, method: nil, step: step)
        case .hosted(let method, let step):
            try pay(hosted: true, method: method, step: step)
        case .step:
            try advance(toEnd: false)
        case .continue:
            try advance(toEnd: true)
        case .cancel:
            cancel(try runningPayment(), because: "cancel")
        case .result(let json):
            try showResult(json: json)
        case .status(let paymentId):
            try lookUpStatus(paymentId)
        }
    }

    // MARK: starting a payment

    func pay(hosted: Bool, method: String?, step: Bool) throws(ReplError) {
        if running != nil {
            throw ReplError(.notAvailable, "a payment is already running (step, continue or cancel it)")
        }
        guard let payment else {
            throw ReplError(.notAvailable, "no payment yet: payment create (or payment use ID KEY) first")
        }
        let inbox = PaymentInbox(wake: events.wake)
        logRelay.route(to: inbox)  // the kit's log lines belong to this payment until it ends
        defer { logRelay.route(to: nil) }
        let presenter = pagePresenter(for: inbox)
        let flow: PaymentFlowKind = hosted ? .hostedCheckout : .card
        let kit = sessionKit()
        let paymentOptions = PaymentOptions(observer: inbox.observer(), stepGate: step ? inbox.stepGate() : nil)
        let run = PaymentRun(kit: kit, inbox: inbox, flow: flow, stepping: step)
        let hint = step ? " — step mode: step, continue or cancel at each pause" : " (Ctrl-C cancels)"
        if hosted {
            guard let checkout = payment.checkoutURL, let returnURL = payment.returnURL else {
                throw ReplError(
                    .notAvailable,
                    "pay hosted needs the payment's checkout and return URLs (payment use ID KEY URL URL)")
            }
            var request = PaymentRequest(
                paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: checkout,
                returnURL: returnURL)
            request.preferredMethod = method
            info(console.styled("Paying \(payment.paymentId) on the hosted checkout page", .bold) + hint)
            let deliver = inbox.completion()
            let options = paymentOptions
            // The async form: its result comes on the kit's callback queue, the one the shell's event loop
            // runs (a private queue while the main thread sleeps); the completion form's is @MainActor.
            Task.detached { deliver(await kit.startPayment(request, from: presenter, options: options)) }
        } else {
            let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
            let brand = card.brand == .unknown ? "" : " \(card.brand.displayName)"
            let number = card.cardNumber.isEmpty ? "no card number" : CardNumber.masked(card.cardNumber) + brand
            info(console.styled("Paying \(payment.paymentId) by card (\(number))", .bold) + hint)
            if !card.isValid {
                info(
                    console.styled(
                        "  the card does not pass validation: the SDK will refuse it before any request", .dim))
            }
            let deliver = inbox.completion()
            let options = paymentOptions
            let card = card
            Task.detached {
                deliver(await kit.startCardPayment(request, card: card, from: presenter, options: options))
            }
        }
        running = run
        defer { running = nil }
        waitForPayment(run)
        lastResult = run.result
        if let result = run.result {
            show(.outcome(result))
        }
    }

    /// The browser the buyer uses (`--browser`): the headless one, or a WebKitGTK window driven by the
    /// same buyer script (queued `buyer ...` actions, questions on the terminal).
    func pagePresenter(for inbox: PaymentInbox) -> any PaymentPresenter {
        let screenshots = options.screenshotsPath.map { URL(fileURLWithPath: $0) }
        guard options.browser == "webkit", let webKit else {
            var script = inbox.buyerScript()
            if let directory = screenshots, let webKit {
                // What the headless buyer saw, as WebKit renders its HTML, before the buyer acts.
                let buyer = script
                script = BuyerScript { page, respond in
                    webKit.snapshot(page, into: directory) { file in
                        if let file { inbox.post(.screenshot(file)) }
                        buyer.decide(page, respond)
                    }
                }
            }
            return HeadlessBrowserPresenter(
                script: script, transport: buyerTransport(),
                options: .init(pageTimeout: configuration.kit.timeout), onEvent: inbox.browserObserver())
        }
        return webKit.windowPresenter(
            script: inbox.buyerScript(), configuration: pageConfiguration(), screenshots: screenshots,
            saved: { inbox.post(.screenshot($0)) })
    }

    // MARK: waiting

    /// Handles what the payment reports until its result arrives, sleeping in the main
    /// run loop in between: the SDK delivers on the main queue, the inbox wakes it on
    /// each post, the input's read source wakes it when a line may be there (only
    /// while the run waits for one), and Ctrl-C's signal source wakes it too. A timer
    /// bounds each sleep (the progress line on a terminal; a watchdog otherwise).
    /// `settled` ends the wait too (a wallet sheet's own condition; checked after each batch of reports).
    func waitForPayment(_ run: PaymentRun, until settled: (() -> Bool)? = nil) {
        interrupts.isBusy = true
        defer {
            interrupts.isBusy = false
            source.watchInput(false)
        }
        var seenInterrupts = interrupts.received
        let started = clock.now()
        var lastActivity = started
        while true {
            let items = run.inbox.drain()
            for item in items {
                handle(item, of: run)
            }
            if run.result != nil || settled?() == true {
                return
            }
            if interrupts.received != seenInterrupts {
                seenInterrupts = interrupts.received
                console.out("")
                cancel(run, because: "Ctrl-C")
                continue
            }
            if run.awaitsInput && !run.inputClosed {
                switch source.pollLine() {
                case .line(let line):
                    takeLine(line, during: run)
                    lastActivity = clock.now()
                    continue
                case .endOfInput:
                    endOfInput(during: run)
                    continue
                case .nothing:
                    break
                }
            }
            source.watchInput(run.awaitsInput && !run.inputClosed)
            let now = clock.now()
            if !items.isEmpty {
                lastActivity = now
                promptIfWaiting(run)  // output may have erased the prompt
            } else if source.isInteractive && !run.awaitsInput && now - lastActivity > 700_000_000 {
                // Progress while the SDK waits on the network: elapsed time, and how to stop.
                let tenths = Double((now - started) / 100_000_000) / 10
                let flow = run.flow == .card ? "card" : "hosted"
                console.transient(console.styled("  … \(flow) payment running, \(tenths) s (Ctrl-C cancels)", .dim))
            }
            waitForEvents(source.isInteractive ? 0.5 : 5)
        }
    }

    /// A line typed (or read from the script) while the payment waits for one.
    func takeLine(_ line: String, during run: PaymentRun) {
        let answeringChallenge = run.pendingQuestion?.page.kind == .challenge
        if SecretPolicy.shouldRecordInHistory(line, answeringChallenge: answeringChallenge) {
            source.remember(line)
        }
        if let question = run.pendingQuestion, let action = BuyerDialog.answer(line, on: question.page) {
            _ = interpreter.feed(line)  // keep line numbers in step with the input
            run.pendingQuestion = nil
            show(.buyer(action, scripted: false))
            question.respond(action)
            return
        }
        _ = handle(line: line)
        // A `buyer ...` command may have queued what a waiting page needs.
        if let question = run.pendingQuestion, let action = buyer.takeQueued(for: question.page) {
            run.pendingQuestion = nil
            show(.buyer(action, scripted: false))
            question.respond(action)
        }
        if anyFailed && options.bail && !run.cancelRequested {
            cancel(run, because: "--bail")
        }
        promptIfWaiting(run)
    }

    /// The input ended while the run waits: a paused payment goes on, a page is closed.
    func endOfInput(during run: PaymentRun) {
        run.inputClosed = true
        if let pending = run.pendingStep {
            show(.endOfInput(then: "continue"))
            run.stepping = false
            run.pendingStep = nil
            pending.answer(.proceed)
        }
        if let question = run.pendingQuestion {
            run.pendingQuestion = nil
            show(.endOfInput(then: "close"))
            question.respond(.close)
        }
    }

    func cancel(_ run: PaymentRun, because reason: String) {
        guard !run.cancelRequested else {
            return
        }
        run.cancelRequested = true
        show(.cancelling(reason: reason))
        run.kit.cancel()
        if let pending = run.pendingStep {
            run.pendingStep = nil
            pending.answer(.cancel)
        }
        run.pendingQuestion = nil
    }

    /// The payment `step`, `continue` and `cancel` act on.
    func runningPayment() throws(ReplError) -> PaymentRun {
        guard let run = running else {
            throw ReplError(.notAvailable, "no payment is running (start one with pay card --step)")
        }
        return run
    }

    /// `step` (`toEnd: false`) or `continue` (`toEnd: true`): go on from the paused step.
    func advance(toEnd: Bool) throws(ReplError) {
        let run = try runningPayment()
        if toEnd {
            run.stepping = false
        }
        guard let pending = run.pendingStep else {
            if toEnd {
                return
            }
            throw ReplError(.notAvailable, "the payment is not paused at a step")
        }
        run.pendingStep = nil
        pending.answer(.proceed)
    }

    // MARK: reports

    func handle(_ item: PaymentInbox.Item, of run: PaymentRun) {
        switch item {
        case .sdk(let event):
            switch event {
            case .started(let flow, let paymentId): show(.started(flow, paymentId: paymentId))
            case .transition(let transition): show(.transition(transition))
            case .http(let exchange): show(.http(exchange))
            case .page(let page): show(.page(page))
            case .cardEncrypted(let kid, let duration): show(.cardEncrypted(kid: kid, duration: duration))
            case .finished: break  // shown from the completion itself
            }
        case .browser(let event):
            show(.browser(event))
        case .screenshot(let file):
            show(.screenshot(file))
        case .log(let record):
            show(.log(record))
        case .step(let step, let answer):
            run.stepCount += 1
            guard run.stepping, !run.cancelRequested else {
                answer(run.cancelRequested ? .cancel : .proceed)
                return
            }
            run.pendingStep = (step, answer)
            show(.step(number: run.stepCount, step))
        case .buyerQuestion(let page, let respond):
            switch buyer.decide(on: page, canAsk: source.isInteractive && !run.cancelRequested) {
            case .respond(let action, let scripted):
                if let scripted {
                    show(.buyer(action, scripted: scripted))
                }
                respond(action)
            case .closeUnanswered:
                show(.buyerUnscripted)
                respond(.close)
            case .ask(let question):
                run.pendingQuestion = (page, respond)
                show(.question(question))
            }
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

    /// The renderer at the session's current settings.
    var renderer: ReportRenderer {
        ReportRenderer(
            verbosity: configuration.verbosity, json: options.json, style: { [console] in console.styled($0, $1) },
            mask: { [weak self] in self?.redact($0) ?? SecretPolicy.maskCardNumbers(in: $0) })
    }

    /// Prints one report as the session's verbosity and format want it.
    func show(_ report: PaymentReport) {
        if let text = renderer.render(report) {
            console.out(text)
        }
    }

    /// A line of commentary (not a result): hidden with `-q` and `--json`.
    func info(_ text: String) {
        if configuration.verbosity > .quiet && !options.json {
            console.out(text)
        }
    }

    // MARK: redaction

    /// The shell's last line of defence over everything shown from the SDK: card numbers by
    /// CardValidation's one rule, and the current verification key replaced by a placeholder.
    func redact(_ text: String) -> String {
        var text = SecretPolicy.maskCardNumbers(in: text)
        if let key = payment?.verificationKey, key.count >= 6 {
            text = text.replacingOccurrences(of: key, with: "vk#••••")
        }
        return text
    }

    /// Third-party text for the terminal: ``redact(_:)``, then ``TerminalText``'s escape (text output; JSON
    /// output is escaped by its writer).
    func shown(_ text: String) -> String {
        TerminalText.escaped(redact(text))
    }
}
