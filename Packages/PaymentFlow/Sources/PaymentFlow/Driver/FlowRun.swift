import Dispatch
import Foundation
import Synchronization

/// One payment in progress: the single driver of both machines.
///
/// It performs the actions the machine returns (HTTP calls, presenter calls,
/// the status resolver, encryption), feeds what comes back in as events, and
/// ends through one terminal funnel (``finish(_:)``):
///
/// 1. the first terminal action wins; every later event, answer or timer is ignored;
/// 2. a page that is shown (or being shown) is dismissed first, and the funnel
///    waits for the presenter's dismissal completion;
/// 3. only then the one result is delivered, asynchronously on the callback
///    queue — never inside `start`, since even a rejected request goes through
///    the queue.
///
/// Everything runs on the run's private serial queue (``queue``); the mutable
/// state sits behind a `Mutex` that is never contended. Each outstanding
/// asynchronous operation carries a token; an answer whose token is not the
/// current one (a late transport completion, a resolver answering twice, a
/// timer that lost the race) is dropped. The run keeps itself alive until it
/// delivered, whatever happens to the `PaymentKit` that started it.
final class FlowRun: Sendable {
    /// What the run needs from the `PaymentKit` and the caller.
    struct Context: Sendable {
        var kind: PaymentFlowKind
        var endpoints: GatewayAPI.Endpoints
        var configuration: Configuration
        var presenter: (any PaymentPresenter)?
        var resolver: (any PaymentStatusResolving)?
        var keyCache: EncryptionKeyCache
        var dependencies: FlowDependencies
        /// Hands the result to the app (completion or weak delegate). Called on the callback queue.
        var deliver: @Sendable (PaymentResult) -> Void
        /// Called on the callback queue just before `deliver` (frees the kit's slot).
        var willDeliver: @Sendable () -> Void
    }

    private enum Phase {
        case idle, running
        case finishing(Terminal)
        case delivered
    }

    private enum Page: Equatable {
        case none
        /// `present` called, its answer pending; `dismissWhenShown`: the machine already asked to dismiss.
        case presenting(id: UInt64, dismissWhenShown: Bool)
        case shown(id: UInt64)
        case dismissing(id: UInt64)

        var id: UInt64? {
            switch self {
            case .none: nil
            case .presenting(let id, _), .shown(let id), .dismissing(let id): id
            }
        }
    }

    private struct State {
        var machine: MachineBox
        var phase = Phase.idle
        var page = Page.none
        var counter: UInt64 = 0
        /// The token of the one outstanding operation (call, resolver, encryption).
        var operation: UInt64?
        var operationTimer: FlowTimer?
        var pageTimer: FlowTimer?
        /// The step gate's pending question and the actions queued behind it.
        var gateToken: UInt64?
        var gated: [FlowAction] = []
        var keepAlive: FlowRun?

        mutating func next() -> UInt64 {
            counter += 1
            return counter
        }
    }

    let context: Context
    let queue: DispatchQueue
    private let state: Mutex<State>
    private let logger: Logger
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    init(context: Context, machine: MachineBox) {
        self.context = context
        self.queue = DispatchQueue(label: "com.egw.egwpay.payment")
        self.state = Mutex(State(machine: machine))
        self.logger = Logger(
            level: context.configuration.logLevel, sink: context.configuration.logSink,
            paymentId: context.endpoints.paymentId,
            redactor: Redactor(secrets: [context.endpoints.verificationKey]))
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
        PaymentDiagnostics.runs.add(1, ordering: .relaxed)
    }

    deinit {
        PaymentDiagnostics.runs.subtract(1, ordering: .relaxed)
    }

    private var paymentId: String { context.endpoints.paymentId }
    private var callbackQueue: DispatchQueue { context.configuration.callbackQueue }
    private var dependencies: FlowDependencies { context.dependencies }

    // MARK: - Entry points (any thread)

    /// Starts the run. Returns at once; everything happens on the run's queue.
    func start() {
        state.withLock { $0.keepAlive = self }
        queue.async { self.begin() }
    }

    /// Ends the run as `.cancelled` through the funnel (ignored once it ended).
    func cancel(reason: String = "cancelled by the host") {
        queue.async { self.cancelNow(reason) }
    }

    // MARK: - Run loop (on `queue`)

    private func begin() {
        let isRejected = state.withLock { s -> Bool in
            s.phase = .running
            if case .rejected = s.machine { return true }
            return false
        }
        if !isRejected {
            observe(.started(context.kind, paymentId: paymentId))
            logger.info("\(context.kind) payment started")
        }
        var cachedKey: EncryptionKey?
        if context.kind == .card, let base = context.endpoints.checkoutBaseURL {
            cachedKey = context.keyCache.key(for: base, now: dependencies.clock.now())
        }
        apply("start") { $0.start(cachedKey: cachedKey) }
    }

    private var isRunning: Bool {
        state.withLock { s in
            if case .running = s.phase { return true }
            return false
        }
    }

    /// Feeds one event to the machine, reports the transition, and dispatches the action.
    private func apply(_ event: String, _ transition: (inout MachineBox) -> FlowAction) {
        guard isRunning else { return }
        let (from, to, action) = state.withLock { s -> (String, String, FlowAction) in
            let from = s.machine.stateName
            let action = transition(&s.machine)
            return (from, s.machine.stateName, action)
        }
        report(from: from, to: to, event: event, action: action)
        dispatch(action)
    }

    private func report(from: String, to: String, event: String, action: FlowAction) {
        guard from != to || action != .none else { return }
        let transition = PaymentTransition(
            flow: context.kind, paymentId: paymentId, from: from, to: to, event: event, action: action.description)
        logger.debug("\(transition)")
        observe(.transition(transition))
    }

    private func dispatch(_ action: FlowAction) {
        switch action {
        case .none:
            return
        case .finish(let terminal):
            finish(terminal)
        case .present, .dismissPage, .call, .resolveWithResolver, .fetchKey, .encrypt:
            guard context.configuration.stepGate != nil else {
                perform(action)
                return
            }
            let ask = state.withLock { s -> Bool in
                s.gated.append(action)
                return s.gateToken == nil
            }
            if ask { askGate() }
        }
    }

    // MARK: - Step gate

    private func askGate() {
        guard let gate = context.configuration.stepGate else { return }
        let question = state.withLock { s -> (UInt64, FlowAction, String)? in
            guard s.gateToken == nil, let action = s.gated.first else { return nil }
            let token = s.next()
            s.gateToken = token
            return (token, action, s.machine.stateName)
        }
        guard let (token, action, stateName) = question else { return }
        let step = PaymentStep(flow: context.kind, paymentId: paymentId, state: stateName, action: action.description)
        gate(step) { [weak self] decision in
            guard let self else { return }
            self.queue.async { self.gateAnswered(token, decision) }
        }
    }

    private func gateAnswered(_ token: UInt64, _ decision: StepDecision) {
        let action = state.withLock { s -> FlowAction? in
            guard case .running = s.phase, s.gateToken == token, !s.gated.isEmpty else { return nil }
            s.gateToken = nil
            return s.gated.removeFirst()
        }
        guard let action else { return }  // a second answer, or the run ended meanwhile
        switch decision {
        case .proceed:
            perform(action)
            askGate()
        case .cancel:
            cancelNow("cancelled at a step gate")
        }
    }

    private func cancelNow(_ reason: String) {
        guard isRunning else { return }
        logger.info(reason)
        apply(reason) { $0.cancel() }
    }

    // MARK: - Actions

    private func perform(_ action: FlowAction) {
        switch action {
        case .none, .finish:
            dispatch(action)
        case .present(let plan):
            present(plan)
        case .dismissPage:
            dismissForMachine()
        case .call(let call):
            send(call)
        case .fetchKey(let refresh):
            if refresh, let base = context.endpoints.checkoutBaseURL {
                context.keyCache.remove(for: base)
                logger.warning("the gateway no longer knows the card-encryption key; fetching it again")
            }
            send(.keySet)
        case .resolveWithResolver:
            resolve()
        case .encrypt(let key):
            encrypt(with: key)
        }
    }

    /// Starts an operation: a fresh token, and a watchdog timer that feeds `onTimeout` if it expires first.
    private func beginOperation(timeout: TimeInterval?, onTimeout: @escaping @Sendable (UInt64) -> Void) -> UInt64 {
        let token = state.withLock { s -> UInt64 in
            s.operationTimer?.cancel()
            s.operationTimer = nil
            let token = s.next()
            s.operation = token
            return token
        }
        guard let timeout else { return token }
        let timer = dependencies.clock.schedule(timeout) { [weak self] in
            guard let self else { return }
            self.queue.async { onTimeout(token) }
        }
        state.withLock { s in
            if s.operation == token { s.operationTimer = timer } else { timer.cancel() }
        }
        return token
    }

    /// Ends the operation `token` if it is the current one; `false` when it is stale.
    private func endOperation(_ token: UInt64) -> Bool {
        let timer = state.withLock { s -> FlowTimer?? in
            guard case .running = s.phase, s.operation == token else { return .none }
            s.operation = nil
            defer { s.operationTimer = nil }
            return .some(s.operationTimer)
        }
        guard let timer else { return false }
        timer?.cancel()
        return true
    }

    // MARK: HTTP

    private func send(_ call: GatewayCall) {
        let requestId = dependencies.uuid()
        let request: HTTPRequest
        switch GatewayAPI.request(call, endpoints: context.endpoints, requestId: requestId) {
        case .success(let built): request = built
        case .failure(let error):
            // Cannot happen after validation; handled as the gateway's failure all the same.
            let token = beginOperation(timeout: nil) { _ in }
            queue.async { self.callFailedToBuild(token, call, error) }
            return
        }
        let started = dependencies.clock.now()
        let timeout = context.endpoints.timeout + dependencies.transportGrace
        let token = beginOperation(timeout: timeout) { [weak self] token in
            self?.callReturned(
                token, call, request, started,
                .failure(
                    TransportError(
                        .timeout, "the transport did not answer within \(Int(timeout)) s")))
        }
        dependencies.transport.send(request) { [weak self] result in
            guard let self else { return }
            self.queue.async { self.callReturned(token, call, request, started, result) }
        }
    }

    private func callFailedToBuild(_ token: UInt64, _ call: GatewayCall, _ error: FlowError) {
        guard endOperation(token) else { return }
        route(call, error: error)
    }

    private func callReturned(
        _ token: UInt64, _ call: GatewayCall, _ request: HTTPRequest, _ started: TimeInterval,
        _ result: Result<HTTPResponse, TransportError>
    ) {
        guard endOperation(token) else {
            logger.debug("ignored a late answer to \(call)")
            return
        }
        observeExchange(call, request, started, result)
        switch call {
        case .statusLookup:
            let decoded = GatewayAPI.decodeStatus(result, paymentId: paymentId)
            apply(eventName(call, decoded.map { $0.paymentStatus ?? "no status" })) { $0.statusResolved(decoded) }
        case .keySet:
            let decoded = GatewayAPI.decodeKeySet(result)
            if case .success(let choice) = decoded, let base = context.endpoints.checkoutBaseURL {
                context.keyCache.store(choice.key, for: base, maxAge: choice.maxAge, now: dependencies.clock.now())
            }
            let keyResult = decoded.map(\.key)
            apply(eventName(call, keyResult.map { "kid \($0.kid ?? "none")" })) { $0.keyFetched(keyResult) }
        case .createSession, .authenticate, .challengeResult, .readSession:
            let reply = GatewayAPI.decodeSession(
                call, result, allowsPlainHTTP: context.configuration.environment.allowsPlainHTTP)
            apply("\(call) -> \(Self.describe(reply))") { $0.sessionReply(call, reply) }
        }
    }

    private func route(_ call: GatewayCall, error: FlowError) {
        switch call {
        case .statusLookup: apply("\(call) failed") { $0.statusResolved(.failure(error)) }
        case .keySet: apply("\(call) failed") { $0.keyFetched(.failure(error)) }
        case .createSession, .authenticate, .challengeResult, .readSession:
            apply("\(call) failed") { $0.sessionReply(call, .rejected(error)) }
        }
    }

    private func eventName<T>(_ call: GatewayCall, _ result: Result<T, FlowError>) -> String {
        switch result {
        case .success(let value): "\(call) -> \(value)"
        case .failure(let error): "\(call) -> \(error.code)"
        }
    }

    private static func describe(_ reply: SessionReply) -> String {
        switch reply {
        case .session(let snapshot):
            let status: String
            switch snapshot.status {
            case .authenticationRequired: status = "AUTHENTICATION_REQUIRED"
            case .challengeRequired: status = "CHALLENGE_REQUIRED"
            case .completed: status = "COMPLETED"
            case .failed(let error): status = "FAILED (\(error.code))"
            }
            return status + (snapshot.transStatus.map { " transStatus \($0)" } ?? "")
        case .unknownKey: return "UNKNOWN_KEY"
        case .rejected(let error): return "rejected (\(error.code))"
        case .unreachable(let error): return "unreachable (\(error.code))"
        case .lost(let error): return "response lost (\(error.code))"
        case .serverFailure(let error): return "server error (\(error.code)), reading the session"
        }
    }

    private func observeExchange(
        _ call: GatewayCall, _ request: HTTPRequest, _ started: TimeInterval,
        _ result: Result<HTTPResponse, TransportError>
    ) {
        let duration = max(0, dependencies.clock.now() - started)
        let requestId = request.headers.first { $0.name == "X-Request-Id" }?.value ?? ""
        let (body, jweHeader) = GatewayAPI.redactedRequestBody(call, request.body)
        var exchange = HTTPExchange(
            requestId: requestId, method: request.method, url: request.url, status: nil, duration: duration,
            requestHeaders: GatewayAPI.redactedHeaders(request.headers), requestBody: body,
            encryptedCardHeader: jweHeader, responseBody: nil, failure: nil)
        switch result {
        case .success(let response):
            exchange.status = response.status
            exchange.responseBody = GatewayAPI.redactedResponseBody(response.body)
        case .failure(let error):
            exchange.failure = "\(error.kind): \(error.message)"
        }
        logger.debug("\(exchange)")
        observe(.http(exchange))
    }

    // MARK: Resolver

    private func resolve() {
        guard let resolver = context.resolver else {
            apply("no resolver") { $0.statusResolved(.success(.init())) }
            return
        }
        let timeout = context.configuration.statusResolverTimeout
        let token = beginOperation(timeout: timeout) { [weak self] token in
            self?.resolverAnswered(
                token,
                .failure(
                    FlowError(
                        .statusLookupFailed, "the status resolver did not answer within \(timeout) s",
                        source: "status resolver")))
        }
        let paymentId = self.paymentId
        let verificationKey = context.endpoints.verificationKey
        let redactor = Redactor(secrets: [verificationKey])
        callbackQueue.async {
            resolver.resolveStatus(paymentId: paymentId, verificationKey: verificationKey) {
                [weak self] status, orderNumber, error in
                guard let self else { return }
                let result: Result<HostedCheckoutMachine.StatusReport, FlowError>
                if let error {
                    let message = redactor.scrubForeign(error.localizedDescription)
                    result = .failure(
                        FlowError(
                            .statusLookupFailed, "the status resolver reported an error: \(message)",
                            source: "status resolver",
                            underlying: .foreign(domain: error.domain, code: error.code, message: message)))
                } else {
                    result = .success(.init(paymentStatus: status, orderNumber: orderNumber))
                }
                self.queue.async { self.resolverAnswered(token, result) }
            }
        }
    }

    private func resolverAnswered(_ token: UInt64, _ result: Result<HostedCheckoutMachine.StatusReport, FlowError>) {
        guard endOperation(token) else {
            logger.warning("ignored a status resolver answer: it came after the first one, or too late")
            return
        }
        apply(eventName(.statusLookup, result.map { $0.paymentStatus ?? "no status" })) { $0.statusResolved(result) }
    }

    // MARK: Encryption

    private func encrypt(with key: EncryptionKey) {
        let token = beginOperation(timeout: nil) { _ in }
        queue.async {
            // The run may have moved on (a cancel) between the action and this block.
            let card = self.state.withLock { s -> CardSnapshot? in
                guard case .running = s.phase, s.operation == token else { return nil }
                return s.machine.card
            }
            guard let card else { return }
            let started = self.dependencies.clock.now()
            let result: Result<String, FlowError>
            do {
                let compact = try CardPlaintext.with(card) { try self.dependencies.encrypt(key, $0) }
                result = .success(compact)
            } catch {
                result = .failure(FlowError(.encryptionFailed, "JWE encryption failed", source: "encryption"))
            }
            guard self.endOperation(token) else { return }
            if case .success = result {
                self.observe(.cardEncrypted(kid: key.kid, duration: max(0, self.dependencies.clock.now() - started)))
            }
            self.apply(result.isSuccess ? "card encrypted" : "encryption failed") { $0.encryptionFinished(result) }
        }
    }

    // MARK: Presenter

    private func present(_ plan: PagePlan) {
        guard let presenter = context.presenter else {
            apply("no presenter") { $0.presentFinished(shown: false) }
            return
        }
        let id = state.withLock { s -> UInt64 in
            let id = s.next()
            s.page = .presenting(id: id, dismissWhenShown: false)
            return id
        }
        schedulePageTimer(id)
        observe(.page(.presentRequested(plan.url, plan.purpose)))
        let handler = PageHandler(run: self, pageId: id)
        let request = plan.pageRequest
        callbackQueue.async {
            presenter.present(request, handler: handler) { [weak self] shown in
                guard let self else { return }
                self.queue.async { self.presentCompleted(id, shown: shown) }
            }
        }
    }

    private func schedulePageTimer(_ id: UInt64) {
        let timeout = dependencies.presenterTimeout
        let timer = dependencies.clock.schedule(timeout) { [weak self] in
            guard let self else { return }
            self.queue.async { self.pageTimedOut(id) }
        }
        state.withLock { s in
            s.pageTimer?.cancel()
            s.pageTimer = timer
        }
    }

    private func cancelPageTimer() {
        let timer = state.withLock { s -> FlowTimer? in
            defer { s.pageTimer = nil }
            return s.pageTimer
        }
        timer?.cancel()
    }

    private func pageTimedOut(_ id: UInt64) {
        let page = state.withLock { $0.page }
        switch page {
        case .presenting(id, _):
            logger.error("the presenter did not answer present within \(Int(dependencies.presenterTimeout)) s")
            presentCompleted(id, shown: false, timedOut: true)
        case .dismissing(id):
            logger.error("the presenter did not complete dismiss within \(Int(dependencies.presenterTimeout)) s")
            dismissCompleted(id)
        case .none, .presenting, .shown, .dismissing:
            return
        }
    }

    private func presentCompleted(_ id: UInt64, shown: Bool, timedOut: Bool = false) {
        let (valid, dismissWhenShown, finishing) = state.withLock { s -> (Bool, Bool, Bool) in
            guard case .presenting(id, let dismissWhenShown) = s.page else { return (false, false, false) }
            // After a timeout the page may yet appear: treat it as shown so it is dismissed.
            s.page = shown || timedOut ? .shown(id: id) : .none
            if case .finishing = s.phase { return (true, dismissWhenShown, true) }
            return (true, dismissWhenShown, false)
        }
        guard valid else { return }
        cancelPageTimer()
        observe(.page(.presented(shown)))
        if finishing {
            if shown || timedOut { startDismiss() } else { deliverNow() }
            return
        }
        apply(shown ? "page shown" : "page could not be shown") { $0.presentFinished(shown: shown) }
        guard dismissWhenShown, isRunning else { return }
        if shown || timedOut { startDismiss() } else { apply("page dismissed") { $0.pageDismissed() } }
    }

    /// The machine asked for the page to go.
    private func dismissForMachine() {
        let page = state.withLock { s -> Page in
            if case .presenting(let id, _) = s.page { s.page = .presenting(id: id, dismissWhenShown: true) }
            return s.page
        }
        switch page {
        case .presenting, .dismissing: return  // dismissed once the presenter answers / completes
        case .shown: startDismiss()
        case .none: queue.async { self.apply("page dismissed") { $0.pageDismissed() } }
        }
    }

    private func startDismiss() {
        guard let presenter = context.presenter else { return }
        let id = state.withLock { s -> UInt64? in
            guard case .shown(let id) = s.page else { return nil }
            s.page = .dismissing(id: id)
            return id
        }
        guard let id else { return }
        schedulePageTimer(id)
        observe(.page(.dismissRequested))
        callbackQueue.async {
            presenter.dismiss { [weak self] in
                guard let self else { return }
                self.queue.async { self.dismissCompleted(id) }
            }
        }
    }

    private func dismissCompleted(_ id: UInt64) {
        let (valid, finishing) = state.withLock { s -> (Bool, Bool) in
            guard case .dismissing(id) = s.page else { return (false, false) }
            s.page = .none
            if case .finishing = s.phase { return (true, true) }
            return (true, false)
        }
        guard valid else { return }
        cancelPageTimer()
        observe(.page(.dismissed))
        if finishing { deliverNow() } else { apply("page dismissed") { $0.pageDismissed() } }
    }

    // Page events (from the handler; any thread)

    fileprivate func decidePolicy(
        pageId: UInt64, url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void
    ) {
        queue.async { decisionHandler(self.navigation(pageId: pageId, url: url)) }
    }

    private func navigation(pageId: UInt64, url: URL) -> NavigationDecision {
        guard isRunning, state.withLock({ $0.page.id }) == pageId else { return .cancel }
        var decision = NavigationDecision.cancel
        apply("navigation to \(url.absoluteString)") { machine in
            let (d, action) = machine.navigation(to: url)
            decision = d
            return action
        }
        observe(.page(.navigation(url, decision)))
        return decision
    }

    fileprivate func pageEvent(pageId: UInt64, _ event: PaymentPageEvent) {
        queue.async {
            guard self.isRunning, self.state.withLock({ $0.page.id }) == pageId else { return }
            self.observe(.page(event))
            switch event {
            case .loaded(let url):
                self.apply("page loaded \(url.absoluteString)") { $0.pageLoaded(url) }
            case .failedToLoad(let url, let reason):
                let safe = self.logger.redactor.scrubForeign(reason)
                self.apply("page failed to load") { $0.pageFailed(url, reason: safe) }
            case .closedByBuyer:
                self.apply("buyer closed the page") { $0.buyerClosedPage() }
            case .presentRequested, .presented, .navigation, .dismissRequested, .dismissed:
                return
            }
        }
    }

    // MARK: - The terminal funnel

    private func finish(_ terminal: Terminal) {
        let (accepted, page, timers) = state.withLock { s -> (Bool, Page, [FlowTimer]) in
            guard case .running = s.phase else { return (false, s.page, []) }
            s.phase = .finishing(terminal)
            s.operation = nil
            s.gateToken = nil
            s.gated.removeAll()
            let timers = [s.operationTimer].compactMap { $0 }
            s.operationTimer = nil
            return (true, s.page, timers)
        }
        guard accepted else { return }
        timers.forEach { $0.cancel() }
        switch page {
        case .none: deliverNow()
        case .presenting: return  // presentCompleted dismisses (or delivers) once the presenter answers
        case .shown: startDismiss()
        case .dismissing: return  // dismissCompleted delivers
        }
    }

    private func deliverNow() {
        let outcome = state.withLock { s -> (Terminal, FlowRun?)? in
            guard case .finishing(let terminal) = s.phase else { return nil }
            s.phase = .delivered
            let keep = s.keepAlive
            s.keepAlive = nil
            return (terminal, keep)
        }
        guard let (terminal, keepAlive) = outcome else { return }
        cancelPageTimer()
        let result = PaymentResult(
            outcome: terminal.outcome, paymentId: paymentId, paymentStatus: terminal.paymentStatus,
            orderNumber: terminal.orderNumber, sessionId: terminal.sessionId,
            error: terminal.error.map { logger.redactor.scrubbed($0).nsError })
        if let error = terminal.error {
            logger.info("payment finished: \(result) — \(error.reason)")
        } else {
            logger.info("payment finished: \(result)")
        }
        let deliver = context.deliver
        let willDeliver = context.willDeliver
        callbackQueue.async {
            willDeliver()
            deliver(result)
        }
        observe(.finished(result))  // after the hand-over, so an observer sees the delivery queued
        withExtendedLifetime(keepAlive) {}
    }

    // MARK: - Observation

    private func observe(_ event: PaymentEvent) {
        context.configuration.observer?(event)
    }
}

/// The `PageEventHandler` given to the presenter for one page: forwards the
/// page's events to its run, tagged with the page's id so a stale page's
/// events are ignored. It holds the run weakly (the run holds itself until it
/// delivered), so a presenter that keeps handlers keeps no finished payment.
final class PageHandler: PageEventHandler {
    weak let run: FlowRun?
    let pageId: UInt64

    init(run: FlowRun, pageId: UInt64) {
        self.run = run
        self.pageId = pageId
    }

    func page(decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void) {
        guard let run else { return decisionHandler(.cancel) }
        run.decidePolicy(pageId: pageId, url: url, decisionHandler: decisionHandler)
    }
    func pageDidFinishLoad(_ url: URL) { run?.pageEvent(pageId: pageId, .loaded(url)) }
    func pageDidFailLoad(_ url: URL, reason: String) {
        run?.pageEvent(pageId: pageId, .failedToLoad(url, reason: reason))
    }
    func pageWasClosedByBuyer() { run?.pageEvent(pageId: pageId, .closedByBuyer) }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

extension Redactor {
    /// The error with its reason scrubbed (the verification key and PAN-like digit runs removed).
    func scrubbed(_ error: FlowError) -> FlowError {
        var copy = error
        copy.reason = scrub(error.reason)
        if case .flow(let box) = error.underlying { copy.underlying = .flow(FlowError.Box(scrubbed(box.error))) }
        if case .foreign(let domain, let code, let message) = error.underlying {
            copy.underlying = .foreign(domain: domain, code: code, message: scrubForeign(message))
        }
        return copy
    }
}
