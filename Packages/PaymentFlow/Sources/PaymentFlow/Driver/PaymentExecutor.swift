import CardValidation
import Foundation
import Synchronization

/// One payment in progress: the executor of a ``PaymentLifecycle``.
///
/// Every decision is the value machine's; this class is the switch that performs the effects it returns
/// (HTTP calls, presenter and resolver calls, the step gate, encryption, delivery) and feeds what comes
/// of them back in as events, run by the SDK's one ``LifecycleRunner``: the run's private serial queue
/// (the one confinement mechanism: the mutable fields below are touched only there, checked in debug
/// builds, which is why the class can be `@unchecked Sendable`), its local event queue (the encryption
/// answers at once, behind the current event, without a hop) and its timers on the flow's clock. Host
/// callbacks (presenter, resolver, step gate) may answer on any thread; their answers hop onto the
/// queue. The run keeps itself alive until it delivered, whatever happens to the `PaymentKit` that
/// started it; callbacks hold it weakly.
final class PaymentExecutor: @unchecked Sendable {
    /// What the run needs from the `PaymentKit` and the caller.
    struct Context: Sendable {
        var endpoints: GatewayAPI.Endpoints
        var configuration: Configuration
        /// This payment's observer and step gate.
        var options: PaymentOptions
        var presenter: (any PaymentPresenter)?
        var resolver: (any PaymentStatusResolving)?
        var keyCache: EncryptionKeyCache
        var dependencies: FlowDependencies
        /// Hands the result to the app (completion or weak delegate). Called on the callback queue.
        var deliver: @Sendable (PaymentResult) -> Void
        /// Called on the callback queue just before `deliver` (frees the kit's slot).
        var willDeliver: @Sendable () -> Void
    }

    let context: Context
    private let runner: LifecycleRunner<PaymentLifecycle>
    private var queue: DispatchQueue { runner.queue }
    private let logger: Logger

    // Confined to `queue`.
    private var decisions: [UInt64: @Sendable (NavigationDecision) -> Void] = [:]
    private var transfers: [UInt64: TransferCancellation] = [:]
    private var requests: UInt64 = 0
    /// The ids of pages that are the invisible 3DS Method (removed with `endThreeDSMethod`).
    private var methodPages: Set<UInt64> = []
    private var keepAlive: PaymentExecutor?

    init(context: Context, run: PaymentLifecycle) {
        self.context = context
        self.runner = LifecycleRunner(
            run, queue: DispatchQueue(label: "com.egw.egwpay.payment"),
            schedule: context.dependencies.clock.lifecycleSchedule)
        self.logger = Logger(
            level: context.configuration.logLevel, sink: context.configuration.logSink,
            paymentId: context.endpoints.paymentId, redactor: Redactor(secrets: [context.endpoints.verificationKey]))
        PaymentDiagnostics.runs.add(1, ordering: .relaxed)
        runner.setPerformer { [weak self] effect in self?.perform(effect) }
    }

    deinit {
        PaymentDiagnostics.runs.subtract(1, ordering: .relaxed)
    }

    private var dependencies: FlowDependencies { context.dependencies }

    /// Starts the run. Returns at once; the result is never delivered inside this call.
    func start() {
        queue.async {
            self.keepAlive = self
            var cachedKey: EncryptionKey?
            if self.runner.read({ $0.settings.kind }) == .card, let base = self.context.endpoints.checkoutBaseURL {
                cachedKey = self.context.keyCache.key(for: base, now: self.dependencies.clock.now())
            }
            self.handle(.start(cachedKey: cachedKey))
        }
    }

    /// The host's `cancel()` (ignored once the run ended).
    func cancel(reason: String = "cancelled by the host") {
        queue.async {
            self.logger.info(reason)
            self.handle(.cancel)
        }
    }

    /// Feeds `event` from any thread, unless the run is gone.
    private func post(_ event: PaymentLifecycle.Event) {
        queue.async { [weak self] in self?.handle(event) }
    }

    /// Feeds `event` on the queue (behind the event being handled, if any).
    private func handle(_ event: PaymentLifecycle.Event) { runner.feed(event) }

    // MARK: - Effects

    private func perform(_ effect: PaymentLifecycle.Effect) {
        switch effect {
        case .send(let token, let call): send(call, token: token)
        case .abandon(let token):
            transfers.removeValue(forKey: token)?.cancel()
        case .storeKey(let key, let maxAge):
            if let base = context.endpoints.checkoutBaseURL {
                context.keyCache.store(key, for: base, until: dependencies.clock.now() + maxAge)
            }
        case .dropCachedKey:
            if let base = context.endpoints.checkoutBaseURL { context.keyCache.remove(for: base) }
            logger.warning("the gateway no longer knows the card-encryption key; it is dropped from the cache")
        case .askResolver(let token): askResolver(token)
        case .askBrowser(let token): askBrowser(token)
        case .encrypt(let token, let card, let key):
            // Its answer is fed at once: the runner handles it after this event's other effects.
            encrypt(card, key, token: token)
        case .present(let id, let plan):
            guard let presenter = context.presenter else { return }
            let handler = PageHandler(run: self, pageId: id)
            if plan.threeDSMethod {
                methodPages.insert(id)
                logger.info("loading the 3DS Method (\(plan.url.host ?? "?"))")
                context.configuration.callbackQueue.async {
                    presenter.loadThreeDSMethod(plan.methodRequest, handler: handler) { [weak self] started in
                        self?.post(.presented(pageId: id, shown: started))
                    }
                }
                return
            }
            context.configuration.callbackQueue.async {
                presenter.present(plan.pageRequest, handler: handler) { [weak self] shown in
                    self?.post(.presented(pageId: id, shown: shown))
                }
            }
        case .dismiss(let id):
            guard let presenter = context.presenter else { return }
            if methodPages.remove(id) != nil {
                context.configuration.callbackQueue.async {
                    presenter.endThreeDSMethod { [weak self] in self?.post(.dismissed(pageId: id)) }
                }
                return
            }
            context.configuration.callbackQueue.async {
                presenter.dismiss { [weak self] in self?.post(.dismissed(pageId: id)) }
            }
        case .answerNavigation(let request, let decision):
            decisions.removeValue(forKey: request)?(decision)
        case .askGate(let token, let step):
            context.options.stepGate?(step) { [weak self] decision in
                self?.post(.gateAnswered(token: token, decision))
            }
        case .startTimer(let id, let delay):
            runner.startTimer(id, after: delay, feeding: .timerFired(id))
        case .cancelTimer(let id):
            runner.cancelTimer(id)
        case .observe(let event):
            if case .transition = event { logger.debug("\(event)") }
            if case .started(let kind, _) = event { logger.info("\(kind) payment started") }
            context.options.observer?(event)
        case .deliver(let terminal):
            deliver(terminal)
        }
    }

    private func send(_ call: GatewayCall, token: UInt64) {
        if call == .keySet { prepareCardSessionConnection() }
        let built = GatewayAPI.request(call, endpoints: context.endpoints, requestId: dependencies.uuid())
        guard case .success(let request) = built else {
            // Cannot happen after validation; answered as a request that never left.
            let reason = built.failure?.reason ?? "the request cannot be built"
            let refused = TransportError(.invalidURL, reason, delivery: .neverSent)
            post(.responded(token: token, call, .failure(refused)))
            return
        }
        let started = dependencies.clock.now()
        let completion: @Sendable (Result<HTTPResponse, TransportError>) -> Void = { [weak self] result in
            guard let self else { return }
            self.queue.async {
                self.transfers[token] = nil
                // Observed and logged as the exchange it was; what it means is the lifecycle's to decode.
                if self.runner.read({ $0.operation?.token }) == token {
                    self.observeExchange(call, request, started, result)
                } else {
                    self.logger.debug("a late answer to \(call)")
                }
                self.handle(.responded(token: token, call, result))
            }
        }
        if let cancellable = dependencies.transport as? any CancellableTransport {
            let cancellation = TransferCancellation()
            transfers[token] = cancellation
            cancellable.send(request, cancellation: cancellation, completion: completion)
        } else {
            dependencies.transport.send(request, completion: completion)
        }
    }

    /// While the key is fetched from the checkout host, the card-session host's connection is opened
    /// too, so its TCP and TLS round trips overlap the fetch (issue 19). A transport hint: the run
    /// neither waits for it nor learns of it; one host for both is already one connection.
    private func prepareCardSessionConnection() {
        guard let sessions = context.endpoints.checkoutAPIBaseURL, let keys = context.endpoints.checkoutBaseURL,
            !URLMatch.sameOrigin(sessions, keys),
            let transport = dependencies.transport as? any ConnectionPreparingTransport
        else { return }
        transport.prepareConnection(to: sessions)
    }

    private func askResolver(_ token: UInt64) {
        guard let resolver = context.resolver else {
            post(.answered(token: token, .statusResolved(.success(.init()))))
            return
        }
        let paymentId = context.endpoints.paymentId
        let verificationKey = context.endpoints.verificationKey
        let redactor = logger.redactor
        let answered = AnswerFlag()
        context.configuration.callbackQueue.async {
            resolver.resolveStatus(paymentId: paymentId, verificationKey: verificationKey) {
                [weak self] status, orderNumber, error in
                guard answered.claim() else {
                    self?.logger.warning("ignored a second status resolver answer")
                    return
                }
                let result: Result<HostedCheckoutMachine.StatusReport, FlowError>
                if let error {
                    let message = redactor.scrub(error.localizedDescription)
                    result = .failure(
                        FlowError(
                            .statusLookupFailed, "the status resolver reported an error: \(message)",
                            source: "status resolver",
                            underlying: .foreign(domain: error.domain, code: error.code, message: message)))
                } else {
                    result = .success(.init(paymentStatus: status, orderNumber: orderNumber))
                }
                self?.post(.answered(token: token, .statusResolved(result)))
            }
        }
    }

    private func askBrowser(_ token: UInt64) {
        guard let presenter = context.presenter else {
            post(.answered(token: token, .browserReported(nil)))
            return
        }
        let answered = AnswerFlag()
        context.configuration.callbackQueue.async {
            presenter.reportBrowserData { [weak self] report in
                guard answered.claim() else { return }
                self?.post(.answered(token: token, .browserReported(report)))
            }
        }
    }

    private func encrypt(_ card: CardInput.Snapshot, _ key: EncryptionKey, token: UInt64) {
        guard runner.read({ $0.operation?.token }) == token else { return }  // the run moved on (a cancel)
        let started = dependencies.clock.now()
        let result: Result<String, FlowError>
        do {
            let compact = try CardPlaintext.with(card) { try self.dependencies.encrypt(key, $0) }
            result = .success(compact)
            context.options.observer?(
                .cardEncrypted(kid: key.kid, duration: max(0, dependencies.clock.now() - started)))
        } catch {
            result = .failure(FlowError(.encryptionFailed, "JWE encryption failed", source: "encryption"))
        }
        handle(.answered(token: token, .encrypted(result)))
    }

    private func observeExchange(
        _ call: GatewayCall, _ request: HTTPRequest, _ started: TimeInterval,
        _ result: Result<HTTPResponse, TransportError>
    ) {
        // Redacting an exchange (and decoding its JWE header) costs: only when someone looks.
        let observer = context.options.observer
        guard observer != nil || logger.logsDebug else { return }
        let duration = max(0, dependencies.clock.now() - started)
        let exchange = GatewayAPI.exchange(call, request, duration: duration, result)
        logger.debug("\(exchange)")
        observer?(.http(exchange))
    }

    // MARK: - Page events (from the handler; any thread)

    fileprivate func navigate(
        pageId: UInt64, url: URL, method: String?, answer: @escaping @Sendable (NavigationDecision) -> Void
    ) {
        queue.async {
            self.requests += 1
            self.decisions[self.requests] = answer
            self.handle(.navigation(pageId: pageId, url, request: self.requests, method: method))
        }
    }

    fileprivate func pageFailed(pageId: UInt64, url: URL, reason: String) {
        post(.pageFailed(pageId: pageId, url, reason: logger.redactor.scrub(reason)))
    }

    fileprivate func pageTerminated(pageId: UInt64, reason: String) {
        post(.pageTerminated(pageId: pageId, reason: logger.redactor.scrub(reason)))
    }

    fileprivate func pageEvent(_ event: PaymentLifecycle.Event) { post(event) }

    /// What page `pageId` tried and its presenter refused: a log line (no page text; URLs without query
    /// or fragment, which may carry what the buyer typed). It changes nothing in the run.
    fileprivate func pageRefused(pageId: UInt64, _ refusal: PageRefusal) {
        let line = "page \(pageId): \(refusal.withoutQueries)"
        queue.async { self.logger.info(line) }
    }

    // MARK: - Delivery

    private func deliver(_ terminal: Terminal) {
        runner.cancelAllTimers()
        decisions.values.forEach { $0(.cancel) }
        decisions.removeAll()
        transfers.values.forEach { $0.cancel() }  // no request of a finished payment keeps running
        transfers.removeAll()
        let result = PaymentResult(
            outcome: terminal.outcome, paymentId: context.endpoints.paymentId, paymentStatus: terminal.paymentStatus,
            orderNumber: terminal.orderNumber, sessionId: terminal.sessionId,
            error: terminal.error.map { logger.redactor.scrubbed($0).nsError })
        logger.info("payment finished: \(result)" + (terminal.error.map { " — \($0.reason)" } ?? ""))
        let deliver = context.deliver
        let willDeliver = context.willDeliver
        context.configuration.callbackQueue.async {
            willDeliver()
            deliver(result)
        }
        context.options.observer?(.finished(result))  // after the hand-over was queued
        // Released once the runner has performed this event's remaining effects.
        queue.async { self.keepAlive = nil }
    }
}

/// The `PageEventHandler` given to the presenter for one page: forwards the page's events to its run,
/// tagged with the page's id so a stale page's events are ignored. It holds the run weakly (the run
/// holds itself until it delivered), so a presenter that keeps handlers keeps no finished payment.
final class PageHandler: PageEventHandler {
    weak let run: PaymentExecutor?
    let pageId: UInt64

    init(run: PaymentExecutor, pageId: UInt64) {
        self.run = run
        self.pageId = pageId
    }

    func page(decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void) {
        guard let run else { return decisionHandler(.cancel) }
        run.navigate(pageId: pageId, url: url, method: nil, answer: decisionHandler)
    }
    func page(
        decidePolicyFor navigation: PageNavigation,
        decisionHandler: @escaping @Sendable (NavigationDecision) -> Void
    ) {
        guard let run else { return decisionHandler(.cancel) }
        run.navigate(
            pageId: pageId, url: navigation.url, method: navigation.method?.uppercased(), answer: decisionHandler)
    }
    func pageDidFinishLoad(_ url: URL) { run?.pageEvent(.pageLoaded(pageId: pageId, url)) }
    func pageDidFailLoad(_ url: URL, reason: String) { run?.pageFailed(pageId: pageId, url: url, reason: reason) }
    func pageWasClosedByBuyer() { run?.pageEvent(.pageClosed(pageId: pageId)) }
    func page(didSend request: PageSentRequest) {
        run?.pageEvent(.pageSentRequest(pageId: pageId, request.url, method: request.method?.uppercased()))
    }
    func pageDidTerminate(reason: String) { run?.pageTerminated(pageId: pageId, reason: reason) }
    func page(didRefuse refusal: PageRefusal) { run?.pageRefused(pageId: pageId, refusal) }
}

/// Lets exactly one of several callers through (a host callback's first answer).
final class AnswerFlag: Sendable {
    private let claimed = Atomic(false)

    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
