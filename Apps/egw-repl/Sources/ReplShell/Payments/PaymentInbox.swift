import Dispatch
import Foundation
import HeadlessBrowser
import PaymentFlow
import Synchronization

/// Where everything the SDK, the browser and the buyer script report while a
/// payment runs is posted, from whatever queue they run on, to be handled in
/// order on the main thread by the shell's wait.
///
/// Each post wakes the shell's event loop, so the wait sleeps until something happens
/// (no polling). The hooks are built here, outside any actor, so the SDK may
/// call them from its own queues.
final class PaymentInbox: Sendable {
    /// One report.
    enum Item: Sendable {
        /// A transition, HTTP exchange, page event or encryption from the SDK's observer.
        case sdk(PaymentEvent)
        /// What the headless browser did.
        case browser(BrowserEvent)
        /// The WebKit browser saved a screenshot of a page the buyer saw (`--screenshots`).
        case screenshot(URL)
        /// An SDK log line.
        case log(LogRecord)
        /// The step gate asks before an action.
        case step(PaymentStep, @Sendable (StepDecision) -> Void)
        /// The buyer script asks what to do on a page.
        case buyerQuestion(LoadedPage, @Sendable (BuyerAction) -> Void)
        /// The payment's one result (delivered by the SDK on the main queue).
        case finished(PaymentResult)
    }

    private let items = Mutex<[Item]>([])
    private let wake: @Sendable () -> Void

    /// An inbox that calls `wake` after each post (``EventLoop/wake``).
    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// Adds a report (any thread) and wakes the shell's wait.
    func post(_ item: Item) {
        items.withLock { $0.append(item) }
        wake()
    }

    /// Takes every report posted so far, oldest first.
    func drain() -> [Item] {
        items.withLock { items in
            let taken = items
            items.removeAll()
            return taken
        }
    }

    /// The SDK observer.
    func observer() -> PaymentObserver {
        { [self] event in post(.sdk(event)) }
    }

    /// The SDK step gate.
    func stepGate() -> PaymentStepGate {
        { [self] step, answer in post(.step(step, answer)) }
    }

    /// The SDK log sink.
    func logSink() -> PaymentLogSink {
        { [self] record in post(.log(record)) }
    }

    /// The browser's event observer.
    func browserObserver() -> @Sendable (BrowserEvent) -> Void {
        { [self] event in post(.browser(event)) }
    }

    /// A buyer that asks the shell (which answers from `buyer ...` actions, a
    /// person at the terminal, or by closing the page in a script).
    func buyerScript() -> BuyerScript {
        BuyerScript { [self] page, respond in post(.buyerQuestion(page, respond)) }
    }

    /// The payment's completion.
    func completion() -> @Sendable (PaymentResult) -> Void {
        { [self] result in post(.finished(result)) }
    }
}
