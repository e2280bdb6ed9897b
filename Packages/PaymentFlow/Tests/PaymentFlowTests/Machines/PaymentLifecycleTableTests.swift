import Foundation
import Testing

@testable import PaymentFlow

/// The lifecycle as a table, in the shape of swift-nio's state-machine tests: a state reached by a few
/// events, one more event, and the effects that must come out, so a reader learns what, say, the
/// presenter's `present` answer does while the run is finishing without running the exploration.
///
/// The expected effects are written by hand from the lifecycle's guarantees (the result only once no
/// page is shown; every wait a timer it owns; answers with a stale token dropped) and from CONTRACT.md
/// sections 3 and 4a for the hosted flow. Observations (`.observe`) are left out: they tell, they do not
/// act. Timers: the presenter has 60 s to answer, the hosted page 1800 s, a gateway call 35 s; each is
/// started before the effect that hands control away (present, dismiss, send), so an answer or a clock
/// moved inside that effect always finds its timer running.
@Suite struct PaymentLifecycleTableTests {
    static let checkout = URL(string: "https://pay.example.com/checkout/pay/p_1")!
    static let returnURL = URL(string: "myshop://orders/42/done")!

    static func hostedRun() -> PaymentLifecycle {
        let page = PagePlan(url: checkout, formFields: nil, purpose: .hostedCheckout)
        return PaymentLifecycle(
            settings: .init(
                kind: .hostedCheckout, paymentId: "p_1", gated: false, challengeTimeout: 600, hostedPageTimeout: 1800,
                presenterTimeout: 60, callTimeout: 35),
            flow: .hosted(HostedCheckoutMachine(.init(page: page, returnURL: returnURL, statusSource: .builtIn))))
    }

    /// The gateway's answer to the status lookup, as the transport hands it over (the lifecycle decodes it).
    static func status(_ status: String, token: UInt64) -> PaymentLifecycle.Event {
        let body = #"{"paymentId":"p_1","paymentStatus":"\#(status)","orderNumber":"o-1"}"#
        let response = HTTPResponse(status: 200, body: Array(body.utf8), url: checkout)
        return .responded(token: token, .statusLookup, .success(response))
    }

    /// States, each reached from a new run by its events. Page 1 is the first token the run draws; the
    /// status lookup after it is operation 2.
    enum Given: String, CaseIterable {
        case idle, presenting, failedWhilePresenting, shown, dismissing, resolving, delivered

        var events: [PaymentLifecycle.Event] {
            let start = PaymentLifecycle.Event.start(cachedKey: nil)
            switch self {
            case .idle: return []
            case .presenting: return [start]
            case .failedWhilePresenting:
                return [start, .pageFailed(pageId: 1, PaymentLifecycleTableTests.checkout, reason: "HTTP 502")]
            case .shown: return [start, .presented(pageId: 1, shown: true)]
            case .dismissing: return Given.shown.events + [.pageClosed(pageId: 1)]
            case .resolving: return Given.dismissing.events + [.dismissed(pageId: 1)]
            case .delivered: return Given.resolving.events + [PaymentLifecycleTableTests.status("SETTLED", token: 2)]
            }
        }
    }

    struct Row: CustomStringConvertible, Sendable {
        var given: Given
        var event: PaymentLifecycle.Event
        var effects: [String]
        var description: String { "\(given.rawValue) + \(event)" }
    }

    static let rows: [Row] = [
        // Starting shows the page, with a timer on the presenter's answer and the page's deadline.
        Row(
            given: .idle, event: .start(cachedKey: nil),
            effects: ["start presentAnswer(1) 60s", "start pageDeadline(1) 1800s", "present page 1"]),
        // The presenter's answer to `present`.
        Row(given: .presenting, event: .presented(pageId: 1, shown: true), effects: ["cancel presentAnswer(1)"]),
        Row(
            given: .presenting, event: .presented(pageId: 1, shown: false),
            effects: ["cancel presentAnswer(1)", "cancel pageDeadline(1)", "deliver failed [presentationFailed]"]),
        Row(given: .presenting, event: .presented(pageId: 7, shown: true), effects: []),
        // A presenter silent past its timer: the page may be on screen, so it is dismissed, then the gateway asked.
        Row(
            given: .presenting, event: .timerFired(.presentAnswer(1)),
            effects: [
                "cancel presentAnswer(1)", "cancel pageDeadline(1)", "start dismissAnswer(1) 60s", "dismiss page 1",
            ]),
        // The page's own load is allowed; a question about another page is refused.
        Row(
            given: .presenting, event: .navigation(pageId: 1, checkout, request: 5, method: "GET"),
            effects: ["answer navigation 5: allow"]),
        Row(
            given: .presenting, event: .navigation(pageId: 7, checkout, request: 5, method: "GET"),
            effects: ["answer navigation 5: cancel"]),
        // Its own first load failing ends the flow at once, but the result waits for the presenter's answer.
        Row(
            given: .presenting, event: .pageFailed(pageId: 1, checkout, reason: "HTTP 502"),
            effects: ["cancel pageDeadline(1)"]),
        // `present` answered while finishing: a page that appeared is dismissed first, then the result
        // goes out; one that did not appear lets the result go at once.
        Row(
            given: .failedWhilePresenting, event: .presented(pageId: 1, shown: true),
            effects: [
                "cancel presentAnswer(1)", "cancel pageDeadline(1)", "start dismissAnswer(1) 60s", "dismiss page 1",
            ]),
        Row(
            given: .failedWhilePresenting, event: .presented(pageId: 1, shown: false),
            effects: ["cancel presentAnswer(1)", "cancel pageDeadline(1)", "deliver failed [pageLoadFailed]"]),
        Row(given: .failedWhilePresenting, event: .cancel, effects: []),
        // The page ends in any of its ways: it is dismissed (the return URL is not loaded).
        Row(
            given: .shown, event: .navigation(pageId: 1, returnURL, request: 6, method: "GET"),
            effects: [
                "answer navigation 6: cancel", "cancel pageDeadline(1)", "start dismissAnswer(1) 60s",
                "dismiss page 1",
            ]),
        Row(
            given: .shown, event: .pageClosed(pageId: 1),
            effects: ["cancel pageDeadline(1)", "start dismissAnswer(1) 60s", "dismiss page 1"]),
        Row(
            given: .shown, event: .timerFired(.pageDeadline(1)),
            effects: ["cancel pageDeadline(1)", "start dismissAnswer(1) 60s", "dismiss page 1"]),
        Row(
            given: .shown, event: .cancel,
            effects: ["cancel pageDeadline(1)", "start dismissAnswer(1) 60s", "dismiss page 1"]),
        // Once dismissed (or the presenter silent past its timer), the gateway is asked, with a watchdog.
        Row(
            given: .dismissing, event: .dismissed(pageId: 1),
            effects: ["cancel dismissAnswer(1)", "start operation(2) 35s", "send #2 GET status"]),
        Row(
            given: .dismissing, event: .timerFired(.dismissAnswer(1)),
            effects: ["cancel dismissAnswer(1)", "start operation(2) 35s", "send #2 GET status"]),
        Row(
            given: .dismissing, event: .navigation(pageId: 1, checkout, request: 8, method: "POST"),
            effects: ["answer navigation 8: cancel"]),
        // The gateway's answer ends the run; a stale one is dropped; a watchdog stops the transfer.
        Row(
            given: .resolving, event: status("SETTLED", token: 2),
            effects: ["cancel operation(2)", "deliver succeeded SETTLED"]),
        Row(given: .resolving, event: status("SETTLED", token: 3), effects: []),
        Row(
            given: .resolving, event: .timerFired(.operation(2)),
            effects: ["abandon #2", "deliver unresolved [statusLookupFailed]"]),
        // After the result nothing happens any more.
        Row(given: .delivered, event: .cancel, effects: []),
        Row(given: .delivered, event: .start(cachedKey: nil), effects: []),
        Row(given: .delivered, event: .timerFired(.operation(2)), effects: []),
    ]

    @Test(arguments: rows)
    func theEventGivesTheseEffects(_ row: Row) {
        var run = Self.hostedRun()
        for event in row.given.events { _ = run.handle(event) }
        let effects = run.handle(row.event).compactMap(Self.brief)
        #expect(effects == row.effects)
    }

    /// Every state of the table is reached as named (so a row's "given" is the state it says).
    @Test func eachGivenIsTheStateItNames() {
        let expected: [Given: (phase: String, page: String, flow: String)] = [
            .idle: ("idle", "none", "idle"), .presenting: ("running", "presenting", "presenting"),
            .failedWhilePresenting: ("finishing", "presenting", "finished"),
            .shown: ("running", "shown", "watching"), .dismissing: ("running", "dismissing", "dismissing"),
            .resolving: ("running", "none", "resolving"), .delivered: ("delivered", "none", "finished"),
        ]
        for given in Given.allCases {
            var run = Self.hostedRun()
            for event in given.events { _ = run.handle(event) }
            let phase: String =
                switch run.phase {
                case .idle: "idle"
                case .running: "running"
                case .finishing: "finishing"
                case .delivered: "delivered"
                }
            let page: String =
                switch run.page {
                case .none: "none"
                case .presenting: "presenting"
                case .shown: "shown"
                case .dismissing: "dismissing"
                }
            #expect(phase == expected[given]?.phase, "\(given)")
            #expect(page == expected[given]?.page, "\(given)")
            #expect(run.stateName == expected[given]?.flow, "\(given)")
        }
    }

    /// An effect in the table's words; `nil` for observations.
    static func brief(_ effect: PaymentLifecycle.Effect) -> String? {
        switch effect {
        case .send(let token, let call): "send #\(token) \(call)"
        case .abandon(let token): "abandon #\(token)"
        case .dropCachedKey: "drop cached key"
        case .storeKey: "store key"
        case .askResolver(let token): "ask resolver #\(token)"
        case .askBrowser(let token): "ask browser #\(token)"
        case .encrypt(let token, _, _): "encrypt #\(token)"
        case .present(let id, _): "present page \(id)"
        case .dismiss(let id): "dismiss page \(id)"
        case .answerNavigation(let request, let decision): "answer navigation \(request): \(decision)"
        case .askGate(let token, _): "ask gate #\(token)"
        case .startTimer(let id, let after): "start \(timer(id)) \(Int(after))s"
        case .cancelTimer(let id): "cancel \(timer(id))"
        case .observe: nil
        case .deliver(let terminal): "deliver \(terminal)"
        }
    }

    static func timer(_ id: PaymentLifecycle.TimerID) -> String {
        switch id {
        case .operation(let token): "operation(\(token))"
        case .presentAnswer(let id): "presentAnswer(\(id))"
        case .dismissAnswer(let id): "dismissAnswer(\(id))"
        case .gate(let token): "gate(\(token))"
        case .pageDeadline(let id): "pageDeadline(\(id))"
        case .pause(let token): "pause(\(token))"
        }
    }
}
