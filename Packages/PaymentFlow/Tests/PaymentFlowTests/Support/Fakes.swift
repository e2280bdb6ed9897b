import Dispatch
import Foundation
import Synchronization

@testable import PaymentFlow

/// A transport that answers from a closure, asynchronously, and records every request.
final class StubTransport: HTTPTransport {
    typealias Responder = @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportError>?

    private let responder: Responder
    private let log = Mutex<[HTTPRequest]>([])

    /// `responder` returning `nil` means "never answer".
    init(_ responder: @escaping Responder) {
        self.responder = responder
    }

    var requests: [HTTPRequest] { log.withLock { $0 } }

    func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void) {
        log.withLock { $0.append(request) }
        let responder = self.responder
        DispatchQueue.global().async {
            if let result = responder(request) { completion(result) }
        }
    }

    static func json(
        _ status: Int, _ text: String, url: URL, headers: [HTTPHeader] = []
    ) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: status, headers: headers, body: Array(text.utf8), url: url))
    }
}

/// What a scripted page does once shown.
enum StubPageStep: Sendable {
    /// Ask the SDK about a GET navigation, then report the load finished (when allowed).
    case navigate(URL)
    /// Ask the SDK about a form POST (the buyer's action), then report the load finished (when allowed).
    case post(URL)
    /// Report a load failure.
    case fail(URL, String)
    /// The buyer closes the page.
    case close
    /// The page tried something the presenter refused (`page(didRefuse:)`).
    case refuse(PageRefusal)
}

/// A presenter that shows nothing: it answers `present` (or refuses), plays a
/// script of page events, and records the order of everything.
final class StubPresenter: PaymentPresenter {
    struct Record: Sendable {
        var presents = 0
        var dismissCalls = 0
        var dismissCompleted = 0
        var shown = false
        var decisions: [(URL, NavigationDecision)] = []
        var pages: [PageRequest] = []
    }

    private let refuse: Bool
    private let steps: @Sendable (PageRequest) -> [StubPageStep]
    private let record = Mutex(Record())
    private let holdDismissal: Bool
    private let pendingDismissal = Mutex<(@Sendable () -> Void)?>(nil)

    init(refuse: Bool = false, holdDismissal: Bool = false, steps: @escaping @Sendable (PageRequest) -> [StubPageStep])
    {
        self.refuse = refuse
        self.steps = steps
        self.holdDismissal = holdDismissal
    }

    var snapshot: Record { record.withLock { $0 } }

    /// True when no page is on screen: never shown, or dismissed and its completion already called.
    var pageGone: Bool { record.withLock { !$0.shown } }

    func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
        record.withLock {
            $0.presents += 1
            $0.pages.append(page)
        }
        let refuse = self.refuse
        let steps = self.steps(page)
        DispatchQueue.global().async {
            if refuse {
                completion(false)
                return
            }
            self.record.withLock { $0.shown = true }
            completion(true)
            let first: StubPageStep = page.formFields == nil ? .navigate(page.url) : .post(page.url)
            for step in [first] + steps {
                guard self.record.withLock({ $0.shown && $0.dismissCalls == 0 }) else { return }
                switch step {
                case .navigate(let url), .post(let url):
                    let method: String
                    if case .post = step { method = "POST" } else { method = "GET" }
                    let decision = handler.decideAndWait(url, method: method)
                    self.record.withLock { $0.decisions.append((url, decision)) }
                    if decision == .allow { handler.pageDidFinishLoad(url) }
                case .fail(let url, let reason):
                    handler.pageDidFailLoad(url, reason: reason)
                case .close:
                    handler.pageWasClosedByBuyer()
                case .refuse(let refusal):
                    handler.page(didRefuse: refusal)
                }
            }
        }
    }

    func dismiss(completion: @escaping @Sendable () -> Void) {
        record.withLock { $0.dismissCalls += 1 }
        let finish: @Sendable () -> Void = {
            self.record.withLock {
                $0.shown = false
                $0.dismissCompleted += 1
            }
            completion()
        }
        if holdDismissal {
            pendingDismissal.withLock { $0 = finish }
        } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.001, execute: finish)
        }
    }

    /// Completes a held dismissal.
    func releaseDismissal() {
        pendingDismissal.withLock { pending in
            pending?()
            pending = nil
        }
    }
}

/// A clock tests move by hand: scheduled work runs only when `advance(by:)` passes its deadline.
final class StubClock: Sendable {
    private struct Entry {
        var id: Int
        var deadline: TimeInterval
        var work: @Sendable () -> Void
    }

    private let state = Mutex<(now: TimeInterval, next: Int, entries: [Entry])>((0, 0, []))
    private let onSchedule: (@Sendable (TimeInterval) -> Void)?

    /// `onSchedule` hears the delay of each piece of work scheduled, once it is scheduled: a test moves
    /// time on after the timer it means to fire exists, not after a guess.
    init(onSchedule: (@Sendable (TimeInterval) -> Void)? = nil) {
        self.onSchedule = onSchedule
    }

    var flowClock: FlowClock {
        FlowClock(
            now: { self.state.withLock { $0.now } },
            schedule: { delay, work in
                let id = self.state.withLock { s -> Int in
                    s.next += 1
                    s.entries.append(Entry(id: s.next, deadline: s.now + delay, work: work))
                    return s.next
                }
                self.onSchedule?(delay)
                return FlowTimer(cancel: { self.state.withLock { $0.entries.removeAll { $0.id == id } } })
            })
    }

    var pending: Int { state.withLock { $0.entries.count } }

    func advance(by seconds: TimeInterval) {
        let due = state.withLock { s -> [Entry] in
            s.now += seconds
            let due = s.entries.filter { $0.deadline <= s.now }
            s.entries.removeAll { $0.deadline <= s.now }
            return due
        }
        due.forEach { $0.work() }
    }
}

/// A resolver with a scripted behaviour.
final class StubResolver: PaymentStatusResolving {
    enum Behaviour: Sendable {
        case answer(String?, String?)
        case fail(NSError)
        case answerTwice(String, String)
        case never
    }

    let behaviour: Behaviour
    private let calls = Mutex(0)
    private let held = Mutex<[@Sendable (String?, String?, NSError?) -> Void]>([])

    init(_ behaviour: Behaviour) { self.behaviour = behaviour }

    var callCount: Int { calls.withLock { $0 } }

    func resolveStatus(
        paymentId: String, verificationKey: String,
        completion: @escaping @Sendable (String?, String?, NSError?) -> Void
    ) {
        calls.withLock { $0 += 1 }
        switch behaviour {
        case .answer(let status, let order): DispatchQueue.global().async { completion(status, order, nil) }
        case .fail(let error): DispatchQueue.global().async { completion(nil, nil, error) }
        case .answerTwice(let first, let second):
            DispatchQueue.global().async {
                completion(first, nil, nil)
                completion(second, nil, nil)
            }
        case .never: held.withLock { $0.append(completion) }  // kept, never called
        }
    }
}

/// A delegate that records what it receives.
final class StubDelegate: PaymentDelegate {
    let results = Mutex<[PaymentResult]>([])
    let onResult: @Sendable (PaymentResult) -> Void

    init(onResult: @escaping @Sendable (PaymentResult) -> Void = { _ in }) { self.onResult = onResult }

    func paymentDidFinish(_ result: PaymentResult) {
        results.withLock { $0.append(result) }
        onResult(result)
    }
}

extension PageEventHandler {
    /// Asks the SDK about `url` and waits (at most 10 s) for its asynchronous answer; `.cancel` when
    /// none comes. For test presenters on a background queue only, never on the SDK's own queue.
    func decideAndWait(_ url: URL, method: String? = "GET") -> NavigationDecision {
        let answer = Mutex<NavigationDecision?>(nil)
        let done = DispatchSemaphore(value: 0)
        page(decidePolicyFor: PageNavigation(url: url, method: method)) { decision in
            answer.withLock { $0 = decision }
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else { return .cancel }
        return answer.withLock { $0 } ?? .cancel
    }
}

/// Keeps test delegates alive past the test body.
let objc_keep = Mutex<[StubDelegate]>([])
