import CardValidation
import Foundation

/// The lifecycle of one payment as a value: the flow machine it drives, the run's phase, the page
/// (presenting / shown / dismissing), the one pending operation, the timers, the step gate. Events in,
/// effects out; ``PaymentExecutor`` performs the effects and feeds back what comes of them.
///
/// What it guarantees, by construction (and checked over every interleaving by the exploration test):
/// - the first terminal wins; the result is delivered exactly once, and only once no page is shown
///   (a shown page is dismissed first, and the dismissal's completion awaited);
/// - every wait is a timer it owns: the pending operation (a watchdog), the presenter's answers to
///   `present` and to `dismiss` (one timer each), the page's deadline (`challengeTimeout`,
///   `hostedPageTimeout`), a flow's pause, and the step gate's answer (`stepGateTimeout`; only a host
///   that sets it to `nil`, a person stepping in the shell, waits without one). An answer or timer
///   whose token is not the current one is dropped;
/// - the step gate is asked before a transition is applied: a gate that says cancel leaves the flow
///   where it was (so a cancel before a request went out is `.cancelled`), and after any cancel the
///   run follows through without asking again;
/// - an event the flow cannot explain ends the run `.unresolved` + `invalidResponse`, never a trap.
struct PaymentLifecycle: Lifecycle, Sendable, CustomStringConvertible {
    /// The flow being driven.
    enum Flow: Equatable, Sendable {
        case hosted(HostedCheckoutMachine)
        case card(CardPaymentMachine)

        var machine: any FlowMachine {
            switch self {
            case .hosted(let machine): machine
            case .card(let machine): machine
            }
        }

        mutating func handle(_ event: FlowEvent) -> FlowReaction {
            switch self {
            case .hosted(var machine):
                let reaction = machine.handle(event)
                self = .hosted(machine)
                return reaction
            case .card(var machine):
                let reaction = machine.handle(event)
                self = .card(machine)
                return reaction
            }
        }
    }

    /// The run's fixed parameters.
    struct Settings: Equatable, Sendable {
        var kind: PaymentFlowKind
        var paymentId: String
        /// A step gate is configured.
        var gated: Bool
        /// A presenter was given.
        var hasPresenter: Bool = true
        var challengeTimeout: TimeInterval = 600
        var hostedPageTimeout: TimeInterval = 1800
        /// How long the 3DS Method may take to notify (EMV: 10 s); past it the authentication says `N`.
        var methodTimeout: TimeInterval = 10
        /// How long the presenter may take to answer `present` or `dismiss`.
        var presenterTimeout: TimeInterval = 60
        /// The watchdog of one gateway call (`CallWatchdog`: the request timeout, 30 s by default, plus its
        /// grace).
        var callTimeout: TimeInterval = CallWatchdog.deadline(requestTimeout: 30)
        var resolverTimeout: TimeInterval = 30
        /// How long the step gate may take to answer; `nil`: as long as it likes. A gate that does not
        /// answer in time is treated as one that said cancel.
        var stepGateTimeout: TimeInterval? = nil
        /// The environment's rule for pages: `http:` loads only in `.sandbox`.
        var allowsPlainHTTP = true
    }

    /// A timer the run owns.
    enum TimerID: Hashable, Sendable, CustomStringConvertible {
        /// The watchdog of operation `token`.
        case operation(UInt64)
        /// The presenter's answer to `present` of page `id`.
        case presentAnswer(UInt64)
        /// The presenter's answer to `dismiss` of page `id`.
        case dismissAnswer(UInt64)
        /// The step gate's answer to question `token`.
        case gate(UInt64)
        /// The deadline of page `id`.
        case pageDeadline(UInt64)
        /// A flow's `.wait`.
        case pause(UInt64)

        var description: String {
            switch self {
            case .operation(let token): "operation \(token)"
            case .presentAnswer(let id): "presenter's answer to present page \(id)"
            case .dismissAnswer(let id): "presenter's answer to dismiss page \(id)"
            case .gate(let token): "step gate's answer #\(token)"
            case .pageDeadline(let id): "deadline of page \(id)"
            case .pause(let token): "pause \(token)"
            }
        }
    }

    /// What the run asks its executor to do.
    enum Effect: Sendable, CustomStringConvertible {
        /// Send `call`; answer with `.responded(token, call, result)`: the transport's answer as it came.
        case send(token: UInt64, GatewayCall)
        /// Stop the transfer of call `token`: the run no longer waits for it (it ended, or its watchdog fired).
        case abandon(token: UInt64)
        /// Keep `key` in the kit's card-encryption key cache for `maxAge` seconds (the machine's decision).
        case storeKey(EncryptionKey, maxAge: TimeInterval)
        /// Forget the kit's cached card-encryption key: the gateway refused it (the machine's decision).
        case dropCachedKey
        /// Ask the host's status resolver; answer with `.answered(token, .statusResolved(...))`.
        case askResolver(token: UInt64)
        /// Ask the presenter's browser data; answer with `.answered(token, .browserReported(...))`.
        case askBrowser(token: UInt64)
        /// Encrypt; answer with `.answered(token, .encrypted(...))`.
        case encrypt(token: UInt64, card: CardInput.Snapshot, key: EncryptionKey)
        /// Show a page; answer with `.presented(id, shown)`, report its events with its id.
        case present(pageId: UInt64, PagePlan)
        /// Remove page `id`; answer with `.dismissed(id)`.
        case dismiss(pageId: UInt64)
        /// Answer the presenter's navigation question `request`.
        case answerNavigation(request: UInt64, NavigationDecision)
        /// Ask the step gate; answer with `.gateAnswered(token, decision)`.
        case askGate(token: UInt64, PaymentStep)
        /// Start a timer; when it fires, feed `.timerFired(id)`.
        case startTimer(TimerID, after: TimeInterval)
        case cancelTimer(TimerID)
        /// Tell the observer (and the debug log).
        case observe(PaymentEvent)
        /// Hand the one result over. The last effect the run ever returns.
        case deliver(Terminal)

        var description: String {
            switch self {
            case .send(let token, let call): "send \(call) #\(token)"
            case .abandon(let token): "abandon #\(token)"
            case .storeKey(let key, let maxAge): "store key \(key.kid ?? "without kid") (\(maxAge) s)"
            case .dropCachedKey: "drop cached key"
            case .askResolver(let token): "ask resolver #\(token)"
            case .askBrowser(let token): "ask browser data #\(token)"
            case .encrypt(let token, _, _): "encrypt #\(token)"
            case .present(let id, let plan):
                plan.threeDSMethod ? "load the 3DS Method as page \(id)" : "present \(plan.purpose) page \(id)"
            case .dismiss(let id): "dismiss page \(id)"
            case .answerNavigation(let request, let decision): "answer navigation \(request): \(decision)"
            case .askGate(let token, let step): "ask gate #\(token) (\(step.action))"
            case .startTimer(let id, let after): "start timer \(id) (\(after) s)"
            case .cancelTimer(let id): "cancel timer \(id)"
            case .observe(let event): "observe \(event)"
            case .deliver(let terminal): "deliver \(terminal)"
            }
        }
    }

    /// What happens to the run.
    enum Event: Sendable, CustomStringConvertible {
        case start(cachedKey: EncryptionKey?)
        /// The host's `cancel()`.
        case cancel
        case gateAnswered(token: UInt64, StepDecision)
        /// Operation `token` (a call, the resolver, the encryption) produced this flow event.
        case answered(token: UInt64, FlowEvent)
        /// The transport's answer to gateway call `token`, as it came: the lifecycle decodes it
        /// (`GatewayAPI.event`) in its own step, then handles it as `.answered`.
        case responded(token: UInt64, GatewayCall, Result<HTTPResponse, TransportError>)
        case presented(pageId: UInt64, shown: Bool)
        case dismissed(pageId: UInt64)
        /// The presenter asks (question `request`) whether page `id` may load `url` with `method`
        /// (`nil`: the presenter cannot tell).
        case navigation(pageId: UInt64, URL, request: UInt64, method: String? = nil)
        case pageLoaded(pageId: UInt64, URL)
        case pageFailed(pageId: UInt64, URL, reason: String)
        case pageClosed(pageId: UInt64)
        /// Page `id` sent a request by itself (`PageSentRequest`: a script's fetch, XHR, beacon).
        case pageSentRequest(pageId: UInt64, URL, method: String?)
        /// The presenter can no longer show page `id` (its browser's process ended).
        case pageTerminated(pageId: UInt64, reason: String)
        case timerFired(TimerID)

        var description: String {
            switch self {
            case .start: "start"
            case .cancel: "cancel"
            case .gateAnswered(let token, let decision): "gate #\(token): \(decision)"
            case .answered(let token, let event): "#\(token): \(event)"
            case .responded(let token, let call, _): "#\(token): the transport answered \(call)"
            case .presented(let id, let shown): "page \(id) \(shown ? "shown" : "not shown")"
            case .dismissed(let id): "page \(id) dismissed"
            case .navigation(let id, let url, _, let method):
                "page \(id) navigation to \(url.absoluteString)" + (method.map { " (\($0))" } ?? "")
            case .pageLoaded(let id, _): "page \(id) loaded"
            case .pageFailed(let id, _, _): "page \(id) failed"
            case .pageClosed(let id): "page \(id) closed"
            case .pageSentRequest(let id, let url, let method):
                "page \(id) sent \(method ?? "a request of unknown method") to \(url.absoluteString)"
            case .pageTerminated(let id, _): "page \(id) lost by its presenter"
            case .timerFired(let id): "timer \(id) fired"
            }
        }
    }

    enum Phase: Equatable, Sendable {
        case idle, running
        case finishing(Terminal)
        case delivered
    }

    enum Page: Equatable, Sendable {
        case none
        /// `present` asked, its answer pending; `dismissWhenShown`: the flow already ended the page.
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

    /// The one outstanding operation.
    enum Operation: Equatable, Sendable {
        case call(GatewayCall)
        case resolver
        case encryption
        /// The presenter's browser data.
        case browser
    }

    /// A transition waiting for the step gate: the flow as it would be, and the action to perform.
    struct PendingGate: Equatable, Sendable {
        var token: UInt64
        var flow: Flow
        var action: FlowAction
        var event: String
        /// The flow event that led to the transition: a cancel at the gate hands it to the cancelled
        /// flow again, so an answer already received from the gateway is kept, not thrown away.
        var cause: FlowEvent?
        /// Events that arrived meanwhile, replayed once the gate answered.
        var deferred: [DeferredEvent] = []
    }

    /// An event held while the gate is asked.
    enum DeferredEvent: Equatable, Sendable {
        case flow(FlowEvent)
        case navigation(URL, request: UInt64, method: String?)
    }

    let settings: Settings
    private(set) var flow: Flow?
    private let rejection: Terminal?
    private(set) var phase = Phase.idle
    private(set) var page = Page.none
    private(set) var operation: (token: UInt64, Operation)?
    private(set) var pauseToken: UInt64?
    private(set) var gate: PendingGate?
    /// A cancel happened: from now on the run follows through without asking the gate.
    private(set) var cancelling = false
    /// The current page is the invisible 3DS Method: nothing of it is reported as a page to observers.
    private(set) var pageIsMethod = false
    private var counter: UInt64 = 0

    init(settings: Settings, flow: Flow) {
        self.settings = settings
        self.flow = flow
        self.rejection = nil
    }

    /// A run refused before any flow ran (validation, a payment already running): it delivers `terminal`.
    init(settings: Settings, rejection: Terminal) {
        self.settings = settings
        self.flow = nil
        self.rejection = rejection
    }

    var description: String {
        let op = operation.map { "\($0.token):\($0.1)" } ?? "-"
        let gateText = gate.map { "gate \($0.token) \($0.action) +\($0.deferred.count)" } ?? "-"
        return "\(phase) \(page) op \(op) pause \(pauseToken.map(String.init) ?? "-") \(gateText) "
            + "cancelling \(cancelling) flow \(String(describing: flow))"
    }

    /// The flow's state name (`rejected` / `finished` without one).
    var stateName: String { flow?.machine.stateName ?? (phase == .idle ? "rejected" : "finished") }

    /// Whether the run is waiting with nothing that can wake it: a bug the exploration looks for.
    var isStuck: Bool {
        switch phase {
        case .idle, .delivered: return false
        case .running, .finishing:
            if operation != nil || pauseToken != nil || gate != nil { return false }
            switch page {
            case .presenting, .dismissing: return false  // the presenter timer
            case .shown: return phase != .running  // the page deadline and the buyer
            case .none: return true
            }
        }
    }

    // MARK: - Events

    mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .start(let cachedKey):
            guard phase == .idle else { return [] }
            phase = .running
            if let rejection { return finishRun(rejection) }
            return [.observe(.started(settings.kind, paymentId: settings.paymentId))]
                + feed(.start(cachedKey: cachedKey), label: "start")
        case .cancel:
            guard phase == .running else { return [] }
            cancelling = true
            guard let pending = gate else { return feed(.cancel, label: "cancel") }
            gate = nil
            let timer: [Effect] = settings.stepGateTimeout == nil ? [] : [.cancelTimer(.gate(pending.token))]
            return timer + cancelInstead(of: pending, label: "cancel") + replay(pending.deferred)
        case .gateAnswered(let token, let decision):
            guard phase == .running, let pending = gate, pending.token == token else { return [] }
            gate = nil
            if settings.stepGateTimeout != nil {
                return [.cancelTimer(.gate(token))] + gateAnswered(pending, decision)
            }
            return gateAnswered(pending, decision)
        case .responded(let token, let call, let result):
            guard phase == .running, operation?.token == token else { return [] }  // nothing to decode for
            let flowEvent = GatewayAPI.event(
                for: call, result, paymentId: settings.paymentId, allowsPlainHTTP: settings.allowsPlainHTTP)
            return handle(.answered(token: token, flowEvent))
        case .answered(let token, let flowEvent):
            guard phase == .running, let current = operation, current.token == token else { return [] }
            operation = nil
            return [.cancelTimer(.operation(token))] + feed(flowEvent, label: flowEvent.description)
        case .presented(let id, let shown):
            return presented(id, shown: shown)
        case .dismissed(let id):
            return dismissed(id)
        case .navigation(let id, let url, let request, let method):
            guard phase == .running, page.id == id else { return [.answerNavigation(request: request, .cancel)] }
            return navigation(url, request: request, method: method)
        case .pageLoaded(let id, let url):
            return pageEvent(id, .loaded(url), .pageLoaded(url))
        case .pageFailed(let id, let url, let reason):
            return pageEvent(id, .failedToLoad(url, reason: reason), .pageFailed(url, reason: reason))
        case .pageClosed(let id):
            return pageEvent(id, .closedByBuyer, .pageClosedByBuyer)
        case .pageSentRequest(let id, let url, let method):
            return pageEvent(id, nil, .pageSentRequest(url, method: method))
        case .pageTerminated(let id, let reason):
            return pageEvent(id, nil, .pageTerminated(reason: reason))
        case .timerFired(let timer):
            return timerFired(timer)
        }
    }

    private mutating func gateAnswered(_ pending: PendingGate, _ decision: StepDecision) -> [Effect] {
        switch decision {
        case .proceed:
            return commit(pending.flow, pending.action, event: pending.event) + replay(pending.deferred)
        case .cancel:
            cancelling = true
            return cancelInstead(of: pending, label: "cancelled at a step gate") + replay(pending.deferred)
        }
    }

    // MARK: - Feeding the flow

    /// Feeds `event` to the flow, through the gate when the action it leads to is gated.
    private mutating func feed(_ event: FlowEvent, label: String) -> [Effect] {
        guard phase == .running, var next = flow else { return [] }
        if gate != nil {
            gate?.deferred.append(.flow(event))
            return []
        }
        let reaction = next.handle(event)
        return Self.keyCacheEffects(reaction) + route(next, reaction.action, label: label, cause: event)
    }

    /// The flow's decision about the kit's key cache, performed at once: it records what the gateway
    /// said, whatever a step gate then decides about the action.
    private static func keyCacheEffects(_ reaction: FlowReaction) -> [Effect] {
        switch reaction.keyCache {
        case nil: []
        case .store(let key, let maxAge): [.storeKey(key, maxAge: maxAge)]
        case .drop: [.dropCachedKey]
        }
    }

    /// A cancel that arrives while `pending` waits for the gate: the gated transition is not applied and
    /// the flow, as it was before it, is cancelled. A flow already on its way out (it ignores the cancel)
    /// goes on with the pending transition instead, so a run is never left with nothing to wait for.
    private mutating func cancelInstead(of pending: PendingGate, label: String) -> [Effect] {
        guard var cancelled = flow else { return [] }
        let reaction = cancelled.handle(.cancel)
        if reaction.action == .none && cancelled == flow {
            return commit(pending.flow, pending.action, event: pending.event)
        }
        if reaction.action == .none, let cause = pending.cause {
            // The cancelled flow now waits for what the gated transition had already heard (a gateway
            // answer, a wait's end): it hears it again, so a received answer is never thrown away.
            let heard = cancelled.handle(cause)
            return Self.keyCacheEffects(heard) + commit(cancelled, heard.action, event: label)
        }
        return commit(cancelled, reaction.action, event: label)
    }

    private mutating func route(_ next: Flow, _ action: FlowAction, label: String, cause: FlowEvent?) -> [Effect] {
        guard settings.gated, !cancelling, action.isGated else { return commit(next, action, event: label) }
        let token = nextToken()
        gate = PendingGate(token: token, flow: next, action: action, event: label, cause: cause)
        let step = PaymentStep(
            flow: settings.kind, paymentId: settings.paymentId, state: stateName, action: action.description)
        guard let limit = settings.stepGateTimeout else { return [.askGate(token: token, step)] }
        return [.startTimer(.gate(token), after: limit), .askGate(token: token, step)]
    }

    private mutating func navigation(_ url: URL, request: UInt64, method: String?) -> [Effect] {
        guard gate == nil else {
            gate?.deferred.append(.navigation(url, request: request, method: method))
            return []
        }
        guard var next = flow else { return [.answerNavigation(request: request, .cancel)] }
        let reaction = next.handle(.navigation(url, method: method))
        let decision = reaction.navigation ?? .cancel
        if decision == .allow, let refusal = NavigationRule.refusal(url, allowsPlainHTTP: settings.allowsPlainHTTP) {
            // The flow would load it, the environment does not: the page cannot go on, as if it had
            // failed to load there (the flow then asks the gateway as for any failed page).
            return [.answerNavigation(request: request, .cancel)] + observePage(.navigation(url, .cancel))
                + feed(.pageFailed(url, reason: refusal), label: "navigation refused")
        }
        // A navigation's answer is given before the gate is asked; the gate never sees it again.
        return [.answerNavigation(request: request, decision)] + observePage(.navigation(url, decision))
            + route(next, reaction.action, label: "navigation to \(url.absoluteString)", cause: nil)
    }

    private mutating func replay(_ events: [DeferredEvent]) -> [Effect] {
        var effects: [Effect] = []
        for (index, event) in events.enumerated() {
            if gate != nil {
                gate?.deferred.append(contentsOf: events[index...])
                break
            }
            switch event {
            case .flow(let flowEvent): effects += feed(flowEvent, label: flowEvent.description)
            case .navigation(let url, let request, let method):
                effects +=
                    phase == .running
                    ? navigation(url, request: request, method: method)
                    : [.answerNavigation(request: request, .cancel)]
            }
        }
        return effects
    }

    /// Applies a transition and performs its action.
    private mutating func commit(_ next: Flow, _ action: FlowAction, event: String) -> [Effect] {
        let from = stateName
        flow = next
        var effects: [Effect] = []
        if from != stateName || action != .none {
            effects.append(
                .observe(
                    .transition(
                        PaymentTransition(
                            flow: settings.kind, paymentId: settings.paymentId, from: from, to: stateName,
                            event: event, action: action.description))))
        }
        return effects + perform(action)
    }

    private mutating func perform(_ action: FlowAction) -> [Effect] {
        switch action {
        case .none:
            return []
        case .present(let plan):
            guard settings.hasPresenter else { return feed(.presented(shown: false), label: "no presenter") }
            let id = nextToken()
            page = .presenting(id: id, dismissWhenShown: false)
            pageIsMethod = plan.threeDSMethod
            let deadline =
                plan.threeDSMethod
                ? settings.methodTimeout
                : plan.purpose == .challenge ? settings.challengeTimeout : settings.hostedPageTimeout
            return observePage(.presentRequested(plan.url, plan.purpose)) + [
                .startTimer(.presentAnswer(id), after: settings.presenterTimeout),
                .startTimer(.pageDeadline(id), after: deadline), .present(pageId: id, plan),
            ]
        case .dismissPage:
            switch page {
            case .presenting(let id, _):
                page = .presenting(id: id, dismissWhenShown: true)
                return []
            case .shown(let id): return startDismiss(id)
            case .dismissing: return []
            case .none: return feed(.pageDismissed, label: "page dismissed")
            }
        case .call(let call):
            return begin(.call(call), timeout: settings.callTimeout) { .send(token: $0, call) }
        case .fetchKey:
            return begin(.call(.keySet), timeout: settings.callTimeout) { .send(token: $0, .keySet) }
        case .resolveWithResolver:
            return begin(.resolver, timeout: settings.resolverTimeout) { .askResolver(token: $0) }
        case .reportBrowser:
            guard settings.hasPresenter else { return feed(.browserReported(nil), label: "no presenter") }
            return begin(.browser, timeout: settings.presenterTimeout) { .askBrowser(token: $0) }
        case .encrypt(let card, let key):
            return begin(.encryption, timeout: nil) { .encrypt(token: $0, card: card, key: key) }
        case .wait(let seconds):
            let token = nextToken()
            pauseToken = token
            return [.startTimer(.pause(token), after: seconds)]
        case .finish(let terminal):
            return finishRun(terminal)
        }
    }

    private mutating func begin(
        _ kind: Operation, timeout: TimeInterval?, _ effect: (UInt64) -> Effect
    ) -> [Effect] {
        let token = nextToken()
        operation = (token, kind)
        guard let timeout else { return [effect(token)] }
        return [.startTimer(.operation(token), after: timeout), effect(token)]
    }

    // MARK: - The page

    private mutating func presented(_ id: UInt64, shown: Bool, timedOut: Bool = false) -> [Effect] {
        guard case .presenting(id, let dismissWhenShown) = page else { return [] }
        // After a timeout the page may yet appear: it is treated as shown, so it is dismissed.
        let onScreen = shown || timedOut
        page = onScreen ? .shown(id: id) : .none
        var effects: [Effect] = [.cancelTimer(.presentAnswer(id))] + observePage(.presented(shown))
        if !onScreen { effects.append(.cancelTimer(.pageDeadline(id))) }
        switch phase {
        case .finishing:
            return effects + (onScreen ? startDismiss(id) : deliver())
        case .running:
            // A presenter that never answered is not one that said "not shown": the page may be on screen
            // and its navigations were allowed, so the flow ends it and asks the gateway.
            effects +=
                timedOut
                ? feed(.presentationTimedOut, label: "the presenter did not answer present")
                : feed(.presented(shown: shown), label: shown ? "page shown" : "page could not be shown")
            guard dismissWhenShown, phase == .running else { return effects }
            return effects + (onScreen ? startDismiss(id) : feed(.pageDismissed, label: "page dismissed"))
        case .idle, .delivered:
            return effects
        }
    }

    /// An observation of the page, unless it is the invisible 3DS Method (its transitions say it ran).
    private func observePage(_ event: PaymentPageEvent) -> [Effect] {
        pageIsMethod ? [] : [.observe(.page(event))]
    }

    private mutating func startDismiss(_ id: UInt64) -> [Effect] {
        guard case .shown(id) = page else { return [] }
        page = .dismissing(id: id)
        return [
            .cancelTimer(.pageDeadline(id))
        ] + observePage(.dismissRequested) + [
            .startTimer(.dismissAnswer(id), after: settings.presenterTimeout), .dismiss(pageId: id),
        ]
    }

    private mutating func dismissed(_ id: UInt64) -> [Effect] {
        guard case .dismissing(id) = page else { return [] }
        page = .none
        let effects: [Effect] = [.cancelTimer(.dismissAnswer(id))] + observePage(.dismissed)
        switch phase {
        case .finishing: return effects + deliver()
        case .running: return effects + feed(.pageDismissed, label: "page dismissed")
        case .idle, .delivered: return effects
        }
    }

    private mutating func pageEvent(_ id: UInt64, _ observed: PaymentPageEvent?, _ event: FlowEvent) -> [Effect] {
        guard phase == .running, page.id == id else { return [] }
        let observation: [Effect] = observed.map { observePage($0) } ?? []
        return observation + feed(event, label: event.description)
    }

    private mutating func timerFired(_ timer: TimerID) -> [Effect] {
        switch timer {
        case .operation(let token):
            guard phase == .running, let current = operation, current.token == token else { return [] }
            operation = nil
            let abandon: [Effect] = if case .call = current.1 { [.abandon(token: token)] } else { [] }
            return abandon + feed(Self.timeoutEvent(current.1, settings: settings), label: "\(current.1) timed out")
        case .presentAnswer(let id):
            guard case .presenting(id, _) = page else { return [] }
            return presented(id, shown: false, timedOut: true)
        case .dismissAnswer(let id):
            guard case .dismissing(id) = page else { return [] }
            return dismissed(id)
        case .gate(let token):
            // The gate did not answer in time: as if it had said cancel.
            guard phase == .running, let pending = gate, pending.token == token else { return [] }
            gate = nil
            return gateAnswered(pending, .cancel)
        case .pageDeadline(let id):
            guard phase == .running, page.id == id else { return [] }
            return feed(.pageTimedOut, label: "page deadline passed")
        case .pause(let token):
            guard phase == .running, pauseToken == token else { return [] }
            pauseToken = nil
            return feed(.waitEnded, label: "wait ended")
        }
    }

    /// What the flow hears when an operation's watchdog fires first.
    static func timeoutEvent(_ operation: Operation, settings: Settings) -> FlowEvent {
        switch operation {
        case .call(let call):
            let error = TransportError(.timeout, "no answer within \(Int(settings.callTimeout)) s")
            return GatewayAPI.event(for: call, .failure(error), paymentId: settings.paymentId)
        case .resolver:
            return .statusResolved(
                .failure(
                    FlowError(
                        .statusLookupFailed, "the status resolver did not answer within \(settings.resolverTimeout) s",
                        source: "status resolver")))
        case .encryption:
            return .encrypted(.failure(FlowError(.encryptionFailed, "encryption did not finish", source: "encryption")))
        case .browser:
            return .browserReported(nil)  // a presenter that does not answer does not know
        }
    }

    // MARK: - The terminal funnel

    private mutating func finishRun(_ terminal: Terminal) -> [Effect] {
        guard phase == .running else { return [] }
        phase = .finishing(terminal)
        var effects: [Effect] = []
        if let current = operation {
            effects.append(.cancelTimer(.operation(current.token)))
            if case .call = current.1 { effects.append(.abandon(token: current.token)) }
        }
        if let pauseToken { effects.append(.cancelTimer(.pause(pauseToken))) }
        if let gate, settings.stepGateTimeout != nil { effects.append(.cancelTimer(.gate(gate.token))) }
        operation = nil
        pauseToken = nil
        gate = nil
        switch page {
        case .none: return effects + deliver()
        case .presenting(let id, _): return effects + [.cancelTimer(.pageDeadline(id))]  // dismissed once shown
        case .shown(let id): return effects + startDismiss(id)
        case .dismissing: return effects  // delivered once dismissed
        }
    }

    private mutating func deliver() -> [Effect] {
        guard case .finishing(let terminal) = phase else { return [] }
        phase = .delivered
        return [.deliver(terminal)]
    }

    private mutating func nextToken() -> UInt64 {
        counter += 1
        return counter
    }
}
