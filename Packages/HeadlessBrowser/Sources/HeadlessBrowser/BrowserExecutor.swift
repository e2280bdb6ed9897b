import Dispatch
import Foundation
import PaymentFlow
import Synchronization

/// The executor of a ``BrowserSession``: performs the effects it returns (handler calls, loads, the
/// buyer script, observer events, timers, completions) on one private serial queue, in order, and
/// feeds what comes of them back in as events. Every decision is the session's.
///
/// The session value lives under one lock so that `present`, `dismiss` and the accessors take effect
/// at once from any thread: an answer that hops onto the queue after a `dismiss` finds the session
/// dismissed, and the effects an event already produced are let through one at a time by
/// ``BrowserSession/admits(_:)``, so a dismissal between two of them silences the rest. Nothing is
/// called while the lock is held. The timers are touched only on the queue (checked in debug builds),
/// which is why the class can be `@unchecked Sendable`.
final class BrowserExecutor: @unchecked Sendable {
    private struct Locked {
        var session: BrowserSession
        /// The presented page's handler, held until `dismiss`.
        var handler: (any PageEventHandler)?
        /// Every URL the handler was asked about in the current (or last) presentation.
        var navigations: [URL] = []
        /// The pages the buyer script was asked about in the current (or last) presentation.
        var askedAbout: [URL] = []
    }

    private let script: BuyerScript
    private let transport: any HTTPTransport
    private let onEvent: (@Sendable (BrowserEvent) -> Void)?
    private let queue = DispatchQueue(label: "egw.headless-browser")
    private let state: Mutex<Locked>
    // Confined to `queue`.
    private var timers: [UInt64: @Sendable () -> Void] = [:]
    private let schedule: Schedule

    /// Runs `work` on `queue` after `seconds` unless the returned cancel is called first.
    typealias Schedule =
        @Sendable (_ seconds: TimeInterval, _ queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) ->
        @Sendable () -> Void

    /// The watchdog's clock: the boot clock (a load that spans a suspend times out on resume).
    static let bootClock: Schedule = { seconds, queue, work in
        let timer = SuspendAwareClock.schedule(after: seconds, on: queue, execute: work)
        return { timer.cancel() }
    }

    /// `schedule` is the watchdog's clock, ``bootClock`` unless a test steps its own.
    init(
        session: BrowserSession, script: BuyerScript, transport: any HTTPTransport,
        onEvent: (@Sendable (BrowserEvent) -> Void)?, schedule: @escaping Schedule = BrowserExecutor.bootClock
    ) {
        self.state = Mutex(Locked(session: session))
        self.script = script
        self.transport = transport
        self.onEvent = onEvent
        self.schedule = schedule
    }

    var navigations: [URL] { state.withLock { $0.navigations } }
    var askedAbout: [URL] { state.withLock { $0.askedAbout } }
    var lastPage: LoadedPage? { state.withLock { $0.session.lastPage } }
    var isPresenting: Bool { state.withLock { $0.session.isPresenting } }

    /// `present`: decided at once, performed on the queue.
    func present(_ page: PageRequest, handler: any PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
        let effects = state.withLock { locked in
            let before = locked.session.session
            let effects = locked.session.handle(.present(page))
            if locked.session.session != before {
                locked.handler = handler
                locked.navigations = []
                locked.askedAbout = []
            }
            return effects
        }
        queue.async { self.perform(effects, present: completion) }
    }

    /// `dismiss`: decided at once (nothing the handler or the observer hears after this call returns,
    /// but a call under way), performed on the queue after everything queued before it.
    func dismiss(completion: @escaping @Sendable () -> Void) {
        let effects = state.withLock { locked in
            let effects = locked.session.handle(.dismiss)
            if !locked.session.isPresenting { locked.handler = nil }
            return effects
        }
        queue.async { self.perform(effects, dismiss: completion) }
    }

    /// Feeds `event` from any thread.
    private func post(_ event: BrowserSession.Event) {
        queue.async { self.handle(event) }
    }

    private func handle(_ event: BrowserSession.Event) {
        dispatchPrecondition(condition: .onQueue(queue))
        let effects = state.withLock { $0.session.handle(event) }
        perform(effects)
    }

    // MARK: - Effects

    private func perform(
        _ effects: [BrowserSession.Effect], present: (@Sendable (Bool) -> Void)? = nil,
        dismiss: (@Sendable () -> Void)? = nil
    ) {
        dispatchPrecondition(condition: .onQueue(queue))
        for effect in effects {
            // Admitted (and recorded) under the lock, performed outside it.
            let admitted = state.withLock { locked -> (any PageEventHandler)?? in
                guard locked.session.admits(effect) else { return .none }
                switch effect {
                case .askHandler(_, _, let navigation): locked.navigations.append(navigation.url)
                case .askBuyer(_, _, let page): locked.askedAbout.append(page.url)
                case .answerPresent, .load, .startTimer, .cancelTimer, .reportFinished, .reportFailed, .reportClosed,
                    .observe, .completeDismiss:
                    break
                }
                return .some(locked.handler)
            }
            guard case .some(let handler) = admitted else { continue }
            perform(effect, handler: handler, present: present, dismiss: dismiss)
        }
    }

    private func perform(
        _ effect: BrowserSession.Effect, handler: (any PageEventHandler)?, present: (@Sendable (Bool) -> Void)?,
        dismiss: (@Sendable () -> Void)?
    ) {
        switch effect {
        case .answerPresent(let shown):
            present?(shown)
        case .askHandler(_, let token, let navigation):
            // The SDK answers later, on any thread; the browser goes on from its own queue.
            handler?.page(decidePolicyFor: navigation) { decision in
                self.post(.decided(token: token, decision))
            }
        case .load(_, let token, let request):
            transport.send(request) { result in self.post(.loaded(token: token, result)) }
        case .startTimer(_, let token, let delay):
            timers.removeValue(forKey: token)?()
            // On the boot clock (a load that spans a suspend times out on resume); a cancel made on the
            // queue before the work starts wins, as it did for a cancelled `DispatchWorkItem`.
            timers[token] = schedule(delay, queue) { [weak self] in
                guard let self else { return }
                self.timers[token] = nil
                self.handle(.loadTimedOut(token: token))
            }
        case .cancelTimer(let token):
            timers.removeValue(forKey: token)?()
        case .reportFinished(_, let url):
            handler?.pageDidFinishLoad(url)
        case .reportFailed(_, let url, let reason):
            handler?.pageDidFailLoad(url, reason: reason)
        case .reportClosed:
            handler?.pageWasClosedByBuyer()
        case .observe(_, let event):
            onEvent?(event)
        case .askBuyer(_, let token, let page):
            let script = script
            DispatchQueue.global().async {
                script.decide(page) { action in self.post(.buyerAnswered(token: token, action)) }
            }
        case .completeDismiss(let wasPresented):
            if wasPresented { onEvent?(.dismissed) }
            dismiss?()
        }
    }
}
