import Foundation
import Testing

@testable import PaymentFlow

/// What a page sends by itself (`PageEventHandler.page(didSend:)`: a script's fetch, XHR, beacon) and a
/// presenter that lost its page (`pageDidTerminate`), row by row through both machines. Expected
/// endings from CONTRACT.md 4a: a request that may carry the buyer's action counts as the action on its
/// way, exactly as an allowed form POST; a lost page is a presenter failure under the same rules.
@Suite struct PageSentRequestTests {
    typealias Hosted = HostedCheckoutMachineTests
    typealias Card = CardPaymentMachineTests

    static let gatewayAPI = URL(string: "https://api.pay.example.com/checkout/api/egw/v1/x")!

    static func hosted(_ source: HostedCheckoutMachine.StatusSource = .builtIn) -> HostedCheckoutMachine {
        var m = HostedCheckoutMachine(
            .init(
                page: Hosted.page, returnURL: Hosted.returnURL, statusSource: source, nonFinalRepolls: 1,
                gatewayOrigins: [URL(string: "https://api.pay.example.com")!]))
        _ = m.handle(.start(cachedKey: nil))
        _ = m.handle(.presented(shown: true))
        _ = m.handle(.navigation(Hosted.checkout, method: "GET"))
        _ = m.handle(.pageLoaded(Hosted.checkout))
        return m
    }

    /// Runs `ending` and answers every lookup with `status`; the terminal.
    static func end(_ m: inout HostedCheckoutMachine, _ ending: FlowEvent, status: String) -> Terminal? {
        var action = m.handle(ending).action
        if action == .dismissPage { action = m.handle(.pageDismissed).action }
        for _ in 0..<5 {
            switch action {
            case .call(.statusLookup): action = m.handle(Hosted.status(status)).action
            case .wait: action = m.handle(.waitEnded).action
            case .finish(let terminal): return terminal
            default: return nil
            }
        }
        return nil
    }

    static let endings: [FlowEvent] = [.pageClosedByBuyer, .cancel, .pageTimedOut, .presentationTimedOut]

    // MARK: Hosted

    /// Why list: the js checkout's Pay `fetch` in flight at a close, cancel, deadline or silent presenter
    /// ended `.cancelled` (status still INITIALIZED), and the POST then settled the payment.
    @Test(arguments: endings)
    func aScriptPostToTheCheckoutThenAnEndingIsUnresolved(ending: FlowEvent) {
        var m = Self.hosted()
        #expect(m.handle(.pageSentRequest(Hosted.checkout, method: "POST")) == FlowReaction(.none))
        let end = Self.end(&m, ending, status: "INITIALIZED")
        #expect(end?.outcome == .unresolved, "\(ending)")
        #expect(end?.paymentStatus == "INITIALIZED")
    }

    @Test(arguments: endings)
    func withoutAScriptPostTheSameEndingIsNotUnresolved(ending: FlowEvent) {
        var m = Self.hosted()
        let end = Self.end(&m, ending, status: "INITIALIZED")
        #expect([PaymentOutcome.cancelled, .failed].contains(end?.outcome), "\(ending)")
    }

    @Test func aPaidStatusStillWinsAfterAScriptPost() {
        var m = Self.hosted()
        _ = m.handle(.pageSentRequest(Hosted.checkout, method: "POST"))
        #expect(Self.end(&m, .pageClosedByBuyer, status: "SETTLED")?.outcome == .succeeded)
    }

    /// A POST to one of the gateway's other origins counts, as does a method the presenter cannot name.
    @Test(arguments: [(gatewayAPI, "PUT" as String?), (Hosted.checkout, nil)])
    func aGatewayOriginOrAnUnknownMethodCounts(url: URL, method: String?) {
        var m = Self.hosted()
        _ = m.handle(.pageSentRequest(url, method: method))
        #expect(Self.end(&m, .pageClosedByBuyer, status: "INITIALIZED")?.outcome == .unresolved)
    }

    /// Precision: a GET (or HEAD) by script, or a POST to a third party (an analytics beacon), moves no
    /// money at the gateway: the close stays `.cancelled`.
    @Test(arguments: [
        (Hosted.checkout, "GET"), (Hosted.checkout, "head"), (URL(string: "https://stats.example/beacon")!, "POST"),
    ])
    func aGetOrAThirdPartyPostDoesNotCount(url: URL, method: String) {
        var m = Self.hosted()
        _ = m.handle(.pageSentRequest(url, method: method))
        #expect(Self.end(&m, .pageClosedByBuyer, status: "INITIALIZED")?.outcome == .cancelled)
    }

    /// The report may reach the SDK after the close (the presenter's thread, the run's queue): while the
    /// page is dismissed or its status looked up it is as true.
    @Test func aReportDuringTheDismissalOrTheLookupStillCounts() {
        var dismissing = Self.hosted()
        #expect(dismissing.handle(.pageClosedByBuyer).action == .dismissPage)
        #expect(dismissing.handle(.pageSentRequest(Hosted.checkout, method: "POST")) == FlowReaction(.none))
        _ = dismissing.handle(.pageDismissed)
        #expect(
            Self.end(
                &dismissing, .statusResolved(.success(.init(paymentStatus: "INITIALIZED"))), status: "INITIALIZED")?
                .outcome == .unresolved)

        var resolving = Self.hosted()
        _ = resolving.handle(.pageClosedByBuyer)
        #expect(resolving.handle(.pageDismissed).action == .call(.statusLookup))
        _ = resolving.handle(.pageSentRequest(Hosted.checkout, method: "POST"))
        #expect(
            Self.end(&resolving, .statusResolved(.success(.init(paymentStatus: "INITIALIZED"))), status: "INITIALIZED")?
                .outcome == .unresolved)
    }

    @Test func withoutALookupAScriptPostThenACloseIsUnresolved() {
        var m = Self.hosted(.none)
        _ = m.handle(.pageSentRequest(Hosted.checkout, method: "POST"))
        #expect(Self.end(&m, .pageClosedByBuyer, status: "-") == Terminal(outcome: .unresolved))
        var untouched = Self.hosted(.none)
        #expect(Self.end(&untouched, .pageClosedByBuyer, status: "-")?.outcome == .cancelled)
    }

    /// The web process died: dismissed, then asked; nothing paid and nothing sent is a presenter failure.
    @Test func aLostPageIsAPresenterFailureUnderTheSameRules() {
        var plain = Self.hosted()
        let failed = Self.end(&plain, .pageTerminated(reason: "the web process crashed"), status: "INITIALIZED")
        #expect(failed?.outcome == .failed)
        #expect(failed?.error?.code == .presentationFailed)
        #expect(failed?.error?.reason.contains("the web process crashed") == true)

        var paid = Self.hosted()
        #expect(Self.end(&paid, .pageTerminated(reason: "killed"), status: "SETTLED")?.outcome == .succeeded)

        var inDoubt = Self.hosted()
        _ = inDoubt.handle(.pageSentRequest(Hosted.checkout, method: "POST"))
        #expect(Self.end(&inDoubt, .pageTerminated(reason: "killed"), status: "INITIALIZED")?.outcome == .unresolved)

        var noLookup = Self.hosted(.none)
        let unlooked = Self.end(&noLookup, .pageTerminated(reason: "killed"), status: "-")
        #expect(unlooked?.outcome == .failed)
        #expect(unlooked?.error?.code == .presentationFailed)
    }

    // MARK: Card (the issuer's challenge: any origin)

    static func challenging() -> CardPaymentMachine {
        var m = Card.reach(.challenging)
        // The page's own first load: the form POST of creq.
        _ = m.handle(.navigation(Card.challenge.acsURL, method: "POST"))
        return m
    }

    /// The terminal after `ending` and a `challenge-result` answered CHALLENGE_NOT_COMPLETED.
    static func notCompleted(_ m: inout CardPaymentMachine, after ending: FlowEvent) -> Terminal? {
        #expect(m.handle(ending).action == .dismissPage)
        #expect(m.handle(.pageDismissed).action == .call(Card.challengeResult))
        return Card.terminal(m.handle(.sessionAnswered(Card.challengeResult, .challengeNotCompleted)).action)
    }

    /// CONTRACT.md section 4, step 4, and GATEWAY.md step 4: the buyer's answer reaching the issuer moves
    /// no money, only `challenge-result` does, and once the gateway said CHALLENGE_NOT_COMPLETED the SDK
    /// sends no other. So a script POST on the issuer's page changes nothing: close, cancel and deadline
    /// are `.cancelled`, a silent presenter `.failed` + `presentationFailed` (the independent gateway in
    /// Tests/Interop, `test_foreign_keepalive`, holds the buyer's code at its ACS and expects the same).
    @Test(arguments: [
        (FlowEvent.pageClosedByBuyer, PaymentOutcome.cancelled), (.cancel, .cancelled), (.pageTimedOut, .cancelled),
        (.presentationTimedOut, .failed),
    ])
    func aScriptPostOnTheChallengeLeavesTheGatewaysWordFinal(ending: FlowEvent, outcome: PaymentOutcome) {
        var m = Self.challenging()
        #expect(
            m.handle(.pageSentRequest(URL(string: "https://other-acs.example/check")!, method: "POST"))
                == FlowReaction(.none))
        let end = Self.notCompleted(&m, after: ending)
        #expect(end?.outcome == outcome, "\(ending)")
        #expect(end?.sessionId == "s_1")
    }

    /// The same for the buyer's form POST on the issuer's page, and a navigation of unknown method.
    @Test func theBuyersFormPostOnTheChallengeLeavesTheGatewaysWordFinal() {
        var own = Self.challenging()
        #expect(Self.notCompleted(&own, after: .pageClosedByBuyer)?.outcome == .cancelled)

        var posted = Self.challenging()
        _ = posted.handle(.navigation(URL(string: "https://acs.example/challenge/submit")!, method: "POST"))
        #expect(Self.notCompleted(&posted, after: .pageClosedByBuyer)?.outcome == .cancelled)

        var unknown = Self.challenging()
        _ = unknown.handle(.navigation(URL(string: "https://acs.example/challenge/next")!, method: nil))
        #expect(Self.notCompleted(&unknown, after: .pageClosedByBuyer)?.outcome == .cancelled)
    }

    /// The issuer's answer still wins after a script POST.
    @Test func theIssuersAnswerWinsAfterAScriptPost() {
        var m = Self.challenging()
        _ = m.handle(.pageSentRequest(Card.challenge.acsURL, method: "POST"))
        _ = m.handle(.pageClosedByBuyer)
        _ = m.handle(.pageDismissed)
        let end = Card.terminal(
            m.handle(.sessionAnswered(Card.challengeResult, Card.session(.completed, trans: "Y"))).action)
        #expect(end?.outcome == .succeeded)
    }

    /// A lost web process ends the challenge at once as a presenter failure; the gateway's answer decides.
    @Test func aLostChallengeIsAPresenterFailure() {
        var plain = Self.challenging()
        let failed = Self.notCompleted(&plain, after: .pageTerminated(reason: "the web process was killed"))
        #expect(failed?.outcome == .failed)
        #expect(failed?.error?.code == .presentationFailed)

        var posted = Self.challenging()
        _ = posted.handle(.pageSentRequest(Card.challenge.acsURL, method: "POST"))
        _ = posted.handle(.pageTerminated(reason: "killed"))
        _ = posted.handle(.pageDismissed)
        let end = Card.terminal(
            posted.handle(.sessionAnswered(Card.challengeResult, Card.session(.completed, trans: "Y"))).action)
        #expect(end?.outcome == .succeeded)
    }

    /// A report with no page to come from is an event the machine cannot explain (never a trap).
    @Test func aReportWithoutAPageIsUnexplained() {
        var card = Card.reach(.creatingSession)
        #expect(Card.terminal(card.handle(.pageSentRequest(Card.base, method: "POST")).action)?.outcome == .unresolved)
        var hosted = Hosted.machine()
        guard case .finish(let end) = hosted.handle(.pageSentRequest(Hosted.checkout, method: "POST")).action else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.error?.code == .invalidResponse)
    }

    // MARK: The lifecycle

    typealias Table = PaymentLifecycleTableTests

    /// Events after the table's `given`, and the effects of the last one (observations left out).
    static let lifecycleRows: [(given: Table.Given, events: [PaymentLifecycle.Event], effects: [String])] = [
        // A report is recorded: nothing to do, nothing to answer; another page's is dropped.
        (.shown, [.pageSentRequest(pageId: 1, Table.checkout, method: "POST")], []),
        (.shown, [.pageSentRequest(pageId: 7, Table.checkout, method: "POST")], []),
        // After it, an INITIALIZED status at the close is asked again (then .unresolved), not .cancelled.
        (
            .shown,
            [
                .pageSentRequest(pageId: 1, Table.checkout, method: "POST"), .pageClosed(pageId: 1),
                .dismissed(pageId: 1), Table.status("INITIALIZED", token: 2),
            ], ["cancel operation(2)", "start pause(3) 1s"]
        ),
        (
            .shown, [.pageClosed(pageId: 1), .dismissed(pageId: 1), Table.status("INITIALIZED", token: 2)],
            ["cancel operation(2)", "deliver cancelled INITIALIZED"]
        ),
        // "Not shown" after the page sent a request: it may be on screen, so the gateway is asked.
        (
            .presenting,
            [.pageSentRequest(pageId: 1, Table.checkout, method: "POST"), .presented(pageId: 1, shown: false)],
            ["cancel presentAnswer(1)", "cancel pageDeadline(1)", "start operation(2) 35s", "send #2 GET status"]
        ),
        // The presenter lost the page: dismissed at once, like any other ending; a stale page's loss is dropped.
        (
            .shown, [.pageTerminated(pageId: 1, reason: "web process crashed")],
            ["cancel pageDeadline(1)", "start dismissAnswer(1) 60s", "dismiss page 1"]
        ),
        (.shown, [.pageTerminated(pageId: 7, reason: "web process crashed")], []),
    ]

    @Test(arguments: lifecycleRows.indices)
    func theLifecycleFeedsTheReports(row index: Int) {
        let row = Self.lifecycleRows[index]
        var run = Table.hostedRun()
        for event in row.given.events { _ = run.handle(event) }
        var effects: [String] = []
        for event in row.events { effects = run.handle(event).compactMap(Table.brief) }
        #expect(effects == row.effects, "\(row.given) + \(row.events)")
    }
}
