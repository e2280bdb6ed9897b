import Dispatch
import Foundation
@_spi(LifecycleRuntime) import PaymentFlow

/// The executor of a ``BrowserSession``: the switch that performs the effects it returns (handler calls,
/// loads, the buyer script, observer events, timers, completions). The session is run the SDK's one
/// way, by PaymentFlow's lifecycle runner in its deciding form (`LockedLifecycleRunner`): `present` and
/// `dismiss` are decided at once from any thread (after `dismiss` returns, neither the handler nor the
/// observer hears anything but a call under way, even when it was called from inside one of their
/// calls), the effects are performed on one private serial queue in the order decided, each admitted
/// just before (``BrowserSession/admits(_:)``), and every answer is fed back as an event. Every
/// decision is the session's.
final class BrowserExecutor: Sendable {
    /// What the runner holds under its lock: the session, and what the executor keeps beside it.
    struct Presentations: AdmittingLifecycle {
        typealias TimerID = UInt64
        typealias Effect = BrowserSession.Effect

        enum Event: Sendable {
            case present(PageRequest, handler: any PageEventHandler, completion: @Sendable (Bool) -> Void)
            case dismiss(completion: @Sendable () -> Void)
            case session(BrowserSession.Event)
        }

        /// What performing an admitted effect needs.
        struct Admission {
            var handler: (any PageEventHandler)?
            var presented: (@Sendable (Bool) -> Void)?
            var dismissed: (@Sendable () -> Void)?
        }

        var session: BrowserSession
        /// The presented page's handler, held until `dismiss`.
        var handler: (any PageEventHandler)?
        /// Every URL the handler was asked about in the current (or last) presentation.
        var navigations: [URL] = []
        /// The pages the buyer script was asked about in the current (or last) presentation.
        var askedAbout: [URL] = []
        /// `present`'s and `dismiss`'s completions, in call order: each call's session event answers with
        /// exactly one `.answerPresent` or `.completeDismiss`, performed in the order decided.
        var presentCompletions: [@Sendable (Bool) -> Void] = []
        var dismissCompletions: [@Sendable () -> Void] = []

        mutating func handle(_ event: Event) -> [Effect] {
            switch event {
            case .present(let page, let handler, let completion):
                let before = session.session
                let effects = session.handle(.present(page))
                if session.session != before {
                    self.handler = handler
                    navigations = []
                    askedAbout = []
                }
                presentCompletions.append(completion)
                return effects
            case .dismiss(let completion):
                let effects = session.handle(.dismiss)
                if !session.isPresenting { handler = nil }
                dismissCompletions.append(completion)
                return effects
            case .session(let event):
                return session.handle(event)
            }
        }

        mutating func admit(_ effect: Effect) -> Admission? {
            guard session.admits(effect) else { return nil }
            var admission = Admission(handler: handler)
            switch effect {
            case .askHandler(_, _, let navigation): navigations.append(navigation.url)
            case .askBuyer(_, _, let page): askedAbout.append(page.url)
            case .answerPresent:
                admission.presented = presentCompletions.isEmpty ? nil : presentCompletions.removeFirst()
            case .completeDismiss:
                admission.dismissed = dismissCompletions.isEmpty ? nil : dismissCompletions.removeFirst()
            case .load, .startTimer, .cancelTimer, .reportFinished, .reportFailed, .reportClosed, .observe:
                break
            }
            return admission
        }
    }

    private let runner: LockedLifecycleRunner<Presentations>

    /// `schedule` is the watchdog's clock: the boot clock of every lifecycle runner (a load that spans a
    /// suspend times out on resume) unless a test steps its own.
    init(
        session: BrowserSession, script: BuyerScript, transport: any HTTPTransport,
        onEvent: (@Sendable (BrowserEvent) -> Void)?, schedule: @escaping LifecycleSchedule = liveLifecycleSchedule
    ) {
        runner = LockedLifecycleRunner(
            Presentations(session: session), queue: DispatchQueue(label: "egw.headless-browser"), schedule: schedule)
        runner.setPerformer { runner, effect, admission in
            Self.perform(effect, admission, runner: runner, script: script, transport: transport, onEvent: onEvent)
        }
    }

    var navigations: [URL] { runner.read { $0.navigations } }
    var askedAbout: [URL] { runner.read { $0.askedAbout } }
    var lastPage: LoadedPage? { runner.read { $0.session.lastPage } }
    var isPresenting: Bool { runner.read { $0.session.isPresenting } }

    /// `present`: decided at once, performed on the queue.
    func present(_ page: PageRequest, handler: any PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
        runner.decideNow(.present(page, handler: handler, completion: completion))
    }

    /// `dismiss`: decided at once (nothing the handler or the observer hears after this call returns,
    /// but a call under way), performed on the queue after everything decided before it.
    func dismiss(completion: @escaping @Sendable () -> Void) {
        runner.decideNow(.dismiss(completion: completion))
    }

    // MARK: - Effects

    private static func perform(
        _ effect: BrowserSession.Effect, _ admission: Presentations.Admission,
        runner: LockedLifecycleRunner<Presentations>, script: BuyerScript, transport: any HTTPTransport,
        onEvent: (@Sendable (BrowserEvent) -> Void)?
    ) {
        let handler = admission.handler
        switch effect {
        case .answerPresent(let shown):
            admission.presented?(shown)
        case .askHandler(_, let token, let navigation):
            // The SDK answers later, on any thread; the browser goes on from its own queue.
            handler?.page(decidePolicyFor: navigation) { decision in
                runner.post(.session(.decided(token: token, decision)))
            }
        case .load(_, let token, let request):
            transport.send(request) { result in runner.post(.session(.loaded(token: token, result))) }
        case .startTimer(_, let token, let delay):
            runner.startTimer(token, after: delay, feeding: .session(.loadTimedOut(token: token)))
        case .cancelTimer(let token):
            runner.cancelTimer(token)
        case .reportFinished(_, let url):
            handler?.pageDidFinishLoad(url)
        case .reportFailed(_, let url, let reason):
            handler?.pageDidFailLoad(url, reason: reason)
        case .reportClosed:
            handler?.pageWasClosedByBuyer()
        case .observe(_, let event):
            onEvent?(event)
        case .askBuyer(_, let token, let page):
            DispatchQueue.global().async {
                script.decide(page) { action in runner.post(.session(.buyerAnswered(token: token, action))) }
            }
        case .completeDismiss(let wasPresented):
            if wasPresented { onEvent?(.dismissed) }
            admission.dismissed?()
        }
    }
}
