import Foundation
import PaymentFlow
import Synchronization
import Testing

@testable import HeadlessBrowser

/// An append-only log that tests can await conditions on (no sleeping:
/// a waiter resumes when an append makes its condition true).
final class EventLog<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var waiters:
            [(id: Int, predicate: @Sendable ([Element]) -> Bool, continuation: CheckedContinuation<Bool, Never>)] = []
        var lastWaiterID = 0
    }
    private let state = Mutex(State())

    var items: [Element] { state.withLock { $0.items } }

    func append(_ item: Element) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.items.append(item)
            var ready: [CheckedContinuation<Bool, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(state.items) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        ready.forEach { $0.resume(returning: true) }
    }

    /// Returns once `predicate` holds for the log. A safety net, not a speed check: after
    /// `limit` seconds without it the wait ends with a recorded issue, so a broken browser
    /// fails its test instead of hanging the whole run.
    func wait(
        until predicate: @escaping @Sendable ([Element]) -> Bool, limit: TimeInterval = 120,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let held = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = state.withLock { state -> Int? in
                if predicate(state.items) { return nil }
                state.lastWaiterID += 1
                state.waiters.append((state.lastWaiterID, predicate, continuation))
                return state.lastWaiterID
            }
            guard let id else {
                continuation.resume(returning: true)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) { [self] in
                let expired = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                expired?.resume(returning: false)
            }
        }
        if !held {
            Issue.record("the awaited condition did not hold within \(Int(limit)) s", sourceLocation: sourceLocation)
        }
    }
}

/// What a `RecordingHandler` heard.
enum HandlerEvent: Equatable, Sendable {
    case decide(String)
    case finished(String)
    case failed(String, String)
    case closed
}

/// A `PageEventHandler` that records every call and answers navigations with `decide`.
final class RecordingHandler: PageEventHandler {
    let log = EventLog<HandlerEvent>()
    private let decide: @Sendable (URL) -> NavigationDecision

    init(decide: @escaping @Sendable (URL) -> NavigationDecision = { _ in .allow }) {
        self.decide = decide
    }

    /// Cancels navigations whose path starts with `prefix` (the "return URL").
    convenience init(cancelPathPrefix prefix: String) {
        self.init { $0.path.hasPrefix(prefix) ? .cancel : .allow }
    }

    func page(decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void) {
        log.append(.decide(url.absoluteString))
        let decision = decide(url)
        // Answered later, from another thread, as the SDK does.
        DispatchQueue.global().async { decisionHandler(decision) }
    }
    func pageDidFinishLoad(_ url: URL) { log.append(.finished(url.absoluteString)) }
    func pageDidFailLoad(_ url: URL, reason: String) { log.append(.failed(url.absoluteString, reason)) }
    func pageWasClosedByBuyer() { log.append(.closed) }

    var events: [HandlerEvent] { log.items }

    /// Waits for the first event that ends a presentation from the SDK's
    /// point of view: a cancelled navigation, a failure, or a close.
    func waitForEnd() async {
        await log.wait { events in
            events.contains { event in
                switch event {
                case .failed, .closed: return true
                case .decide, .finished: return false
                }
            }
        }
    }
}

/// A transport that answers from a routing closure, asynchronously, or holds
/// a request until the test releases it.
final class FakeTransport: HTTPTransport {
    enum Reply: Sendable {
        case response(Int, [HTTPHeader], String)
        case failure(TransportError.Kind)
        case hold
    }

    private let route: @Sendable (HTTPRequest) -> Reply
    let sent = EventLog<HTTPRequest>()
    private let held = Mutex<[@Sendable (Result<HTTPResponse, TransportError>) -> Void]>([])

    init(route: @escaping @Sendable (HTTPRequest) -> Reply) {
        self.route = route
    }

    var requests: [HTTPRequest] { sent.items }

    func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void) {
        sent.append(request)
        switch route(request) {
        case .response(let status, let headers, let body):
            let response = HTTPResponse(status: status, headers: headers, body: Array(body.utf8), url: request.url)
            DispatchQueue.global().async { completion(.success(response)) }
        case .failure(let kind):
            DispatchQueue.global().async { completion(.failure(TransportError(kind, "fake \(kind)"))) }
        case .hold:
            held.withLock { $0.append(completion) }
        }
    }

    /// Completes every held request with `result`, synchronously on this thread.
    func releaseHeld(with result: Result<HTTPResponse, TransportError>) {
        let completions = held.withLock { held in
            defer { held.removeAll() }
            return held
        }
        completions.forEach { $0(result) }
    }
}

extension HTTPRequest {
    var bodyText: String { String(decoding: body ?? [], as: UTF8.self) }
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

extension PaymentPresenter {
    /// `present`, awaited.
    func present(_ page: PageRequest, handler: PageEventHandler) async -> Bool {
        await withCheckedContinuation { continuation in
            present(page, handler: handler) { continuation.resume(returning: $0) }
        }
    }

    /// `dismiss`, awaited.
    func dismiss() async {
        await withCheckedContinuation { continuation in
            dismiss { continuation.resume() }
        }
    }
}

/// Builds small pages for the browser tests.
enum TestPages {
    static func hosted(action: String, extra: String = "") -> String {
        """
        <!DOCTYPE html>
        <html><head><meta name="egw-page" content="hosted-checkout"><title>Checkout</title></head>
        <body><form method="post" action="\(action)" id="checkout-form">
        <input type="hidden" name="token" value="t-1">
        \(extra)
        <button type="submit" name="choice" value="pay">Pay</button>
        <button type="submit" name="choice" value="decline">Decline</button>
        <button type="submit" name="choice" value="cancel">Cancel</button>
        <button type="submit" name="choice" value="abandon">Abandon</button>
        <button type="submit" name="choice" value="pending">Leave pending</button>
        </form></body></html>
        """
    }

    static func challenge(action: String) -> String {
        """
        <html><head><meta name="egw-page" content="acs-challenge"><title>Verify</title></head>
        <body><form method="post" action="\(action)">
        <input type="hidden" name="transaction" value="tx-9">
        <label>Code <input type="text" name="code" autocomplete="one-time-code"></label>
        <button type="submit">Verify</button>
        </form></body></html>
        """
    }

    static func complete(notification: String, cres: String) -> String {
        """
        <html><head><meta name="egw-page" content="acs-complete"></head>
        <body><form id="cres-form" method="post" action="\(notification)">
        <input type="hidden" name="cres" value="\(cres)">
        <noscript><button type="submit">Continue</button></noscript>
        </form></body></html>
        """
    }

    static let plain = "<html><head><title>Plain</title></head><body><p>Nothing to do.</p></body></html>"
}
