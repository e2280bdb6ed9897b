import Foundation
import Testing

@testable import PaymentFlow

/// The hosted-checkout machine, event by event, without a network. Expected actions and outcomes are
/// read off CONTRACT.md sections 3 and 4a.
@Suite struct HostedCheckoutMachineTests {
    static let checkout = URL(string: "https://pay.example.com/checkout/pay/p_1")!
    static let returnURL = URL(string: "myshop://orders/42/done?x=1")!
    static let page = PagePlan(url: checkout, formFields: nil, purpose: .hostedCheckout)

    static func machine(_ source: HostedCheckoutMachine.StatusSource = .builtIn) -> HostedCheckoutMachine {
        HostedCheckoutMachine(.init(page: page, returnURL: returnURL, statusSource: source))
    }

    /// Each reachable state, by the shortest event sequence.
    enum Reach: CaseIterable {
        case idle, presenting, watching, loaded, dismissing, resolving
    }

    static func reach(_ target: Reach, _ source: HostedCheckoutMachine.StatusSource = .builtIn) -> HostedCheckoutMachine
    {
        var m = machine(source)
        let steps: [(Reach, FlowEvent)] = [
            (.presenting, .start(cachedKey: nil)), (.watching, .presented(shown: true)),
            (.loaded, .pageLoaded(checkout)),
            (.dismissing, .navigation(returnURL)), (.resolving, .pageDismissed),
        ]
        if target == .idle { return m }
        for (reached, event) in steps {
            _ = m.handle(event)
            if reached == target { return m }
        }
        return m
    }

    static func action(_ m: inout HostedCheckoutMachine, _ event: FlowEvent) -> FlowAction { m.handle(event).action }

    static func status(_ status: String?) -> FlowEvent {
        .statusResolved(.success(.init(paymentStatus: status, orderNumber: "o-1")))
    }

    @Test func startPresentsTheCheckoutPage() {
        var m = Self.machine()
        #expect(Self.action(&m, .start(cachedKey: nil)) == .present(Self.page))
    }

    @Test func theReturnURLIsCancelledAndEndsThePage() {
        var m = Self.reach(.loaded)
        let elsewhere = m.handle(.navigation(URL(string: "https://pay.example.com/checkout/pay/p_1/card")!))
        #expect(elsewhere == FlowReaction(.none, navigation: .allow))
        // Query and fragment are ignored.
        let back = m.handle(.navigation(URL(string: "myshop://orders/42/done?status=x#y")!))
        #expect(back == FlowReaction(.dismissPage, navigation: .cancel))
        #expect(Self.action(&m, .pageDismissed) == .call(.statusLookup))
    }

    @Test(arguments: [
        ("SETTLED", PaymentOutcome.succeeded), ("FAILED", .failed), ("CANCELLED", .cancelled),
        ("ABANDONED", .cancelled), ("REFUNDED", .succeeded), ("SOMETHING_NEW", .unresolved),
    ])
    func afterTheReturnURLTheStatusMaps(status: String, outcome: PaymentOutcome) {
        var m = Self.reach(.resolving)
        #expect(
            Self.action(&m, Self.status(status))
                == .finish(Terminal(outcome: outcome, paymentStatus: status, orderNumber: "o-1")))
    }

    /// CONTRACT.md section 3 step 4: a non-final status right after the return URL is looked up again,
    /// at most 3 more times, 1 s apart, before it is `.unresolved`.
    @Test func aNonFinalStatusIsPolledAgainABoundedNumberOfTimes() {
        var m = Self.reach(.resolving)
        for _ in 0..<3 {
            #expect(Self.action(&m, Self.status("SENT_FOR_PROCESSING")) == .wait(1))
            #expect(Self.action(&m, .waitEnded) == .call(.statusLookup))
        }
        #expect(
            Self.action(&m, Self.status("INITIALIZED"))
                == .finish(Terminal(outcome: .unresolved, paymentStatus: "INITIALIZED", orderNumber: "o-1")))
        var settles = Self.reach(.resolving)
        _ = settles.handle(Self.status("INITIALIZED"))
        _ = settles.handle(.waitEnded)
        #expect(Self.action(&settles, Self.status("SETTLED")).isSuccess)
    }

    /// Why list: `cancel()` or the buyer closing after the buyer paid was `.cancelled` while SETTLED.
    @Test(arguments: [FlowEvent.pageClosedByBuyer, .cancel, .pageTimedOut])
    func closeCancelOrDeadlineDismissesThenThePaidStatusWins(ending: FlowEvent) {
        var m = Self.reach(.loaded)
        #expect(Self.action(&m, ending) == .dismissPage)
        #expect(Self.action(&m, .pageDismissed) == .call(.statusLookup))
        #expect(
            Self.action(&m, Self.status("SETTLED"))
                == .finish(Terminal(outcome: .succeeded, paymentStatus: "SETTLED", orderNumber: "o-1")))
    }

    @Test(arguments: [
        (FlowEvent.pageClosedByBuyer, "INITIALIZED", PaymentOutcome.cancelled),
        (.cancel, "CANCELLED", .cancelled), (.pageTimedOut, "ABANDONED", .cancelled),
        (.pageClosedByBuyer, "FAILED", .failed), (.pageClosedByBuyer, "SENT_FOR_PROCESSING", .unresolved),
    ])
    func closeCancelOrDeadlineWithAnUnpaidStatus(ending: FlowEvent, status: String, outcome: PaymentOutcome) {
        var m = Self.reach(.loaded)
        _ = m.handle(ending)
        _ = m.handle(.pageDismissed)
        guard case .finish(let end) = Self.action(&m, Self.status(status)) else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.outcome == outcome)
        #expect(end.paymentStatus == status)
        #expect(end.error == nil)
    }

    /// Why list: the hosted page's response lost after the buyer paid was `pageLoadFailed` with no lookup.
    @Test func aLaterPageFailingIsLookedUpAndThePaidStatusWins() {
        var m = Self.reach(.loaded)
        #expect(Self.action(&m, .pageFailed(Self.checkout, reason: "reset")) == .dismissPage)
        _ = m.handle(.pageDismissed)
        #expect(Self.action(&m, Self.status("SETTLED")).isSuccess)
        var unpaid = Self.reach(.loaded)
        _ = unpaid.handle(.pageFailed(Self.checkout, reason: "reset"))
        _ = unpaid.handle(.pageDismissed)
        guard case .finish(let end) = Self.action(&unpaid, Self.status("INITIALIZED")) else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.outcome == .failed)
        #expect(end.error?.code == .pageLoadFailed)
    }

    @Test func theFirstPageFailingBeforeAnythingLoadedFailsAtOnce() {
        var m = Self.reach(.watching)
        guard case .finish(let end) = Self.action(&m, .pageFailed(Self.checkout, reason: "HTTP 500")) else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.outcome == .failed)
        #expect(end.error?.code == .pageLoadFailed)
    }

    @Test func withoutALookupTheSeedsEndingsHold() {
        var closed = Self.reach(.loaded, .none)
        _ = closed.handle(.pageClosedByBuyer)
        #expect(Self.action(&closed, .pageDismissed) == .finish(.cancelled()))
        var failed = Self.reach(.loaded, .none)
        _ = failed.handle(.pageFailed(Self.checkout, reason: "reset"))
        guard case .finish(let end) = Self.action(&failed, .pageDismissed) else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.outcome == .failed)
        #expect(end.error?.code == .pageLoadFailed)
        var returned = Self.reach(.dismissing, .none)
        #expect(Self.action(&returned, .pageDismissed) == .finish(Terminal(outcome: .unresolved)))
    }

    /// Why list: seed 562 of the randomized schedules. With no lookup configured, a host `cancel()`
    /// while the buyer's pay POST was on its way was reported `.cancelled`; the POST landed after the
    /// page was gone and the gateway SETTLED. CONTRACT.md 4a: `.cancelled`/`.failed` only when no
    /// request that can move money (the buyer's action on the hosted page) may have been acted on.
    @Test(arguments: [
        FlowEvent.cancel, .pageClosedByBuyer, .pageTimedOut, .pageFailed(checkout, reason: "reset"),
    ])
    func withoutALookupAnEndingWhileTheBuyersPostIsOnItsWayIsUnresolved(ending: FlowEvent) {
        var m = Self.reach(.loaded, .none)
        // The buyer presses Pay: the form's POST is allowed and has not come back.
        #expect(m.handle(.navigation(Self.checkout, method: "POST")) == FlowReaction(.none, navigation: .allow))
        #expect(Self.action(&m, ending) == .dismissPage)
        guard case .finish(let end) = Self.action(&m, .pageDismissed) else {
            Issue.record("expected a finish")
            return
        }
        // Seed 002's `.unresolved`: nothing failed (no lookup was made), the SDK does not know.
        #expect(end.outcome == .unresolved)
        #expect(end.error == nil)
        #expect(end.paymentStatus == nil)
    }

    /// With a lookup, an unpaid status read while the buyer's POST may still land is asked again, and
    /// stays `.unresolved` (never `.cancelled`) if it does not change; a POST that landed wins.
    @Test func withALookupAnEndingWhileTheBuyersPostIsOnItsWayIsAskedAgain() {
        var m = Self.reach(.loaded)
        _ = m.handle(.navigation(Self.checkout, method: "POST"))
        #expect(Self.action(&m, .cancel) == .dismissPage)
        #expect(Self.action(&m, .pageDismissed) == .call(.statusLookup))
        for _ in 0..<3 {
            #expect(Self.action(&m, Self.status("INITIALIZED")) == .wait(1))
            #expect(Self.action(&m, .waitEnded) == .call(.statusLookup))
        }
        guard case .finish(let end) = Self.action(&m, Self.status("INITIALIZED")) else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.outcome == .unresolved)
        #expect(end.error == nil)
        #expect(end.paymentStatus == "INITIALIZED")
        var landed = Self.reach(.loaded)
        _ = landed.handle(.navigation(Self.checkout, method: "POST"))
        _ = landed.handle(.cancel)
        _ = landed.handle(.pageDismissed)
        _ = landed.handle(Self.status("INITIALIZED"))
        _ = landed.handle(.waitEnded)
        #expect(Self.action(&landed, Self.status("SETTLED")).isSuccess)
    }

    @Test func aFailedLookupIsUnresolvedWithStatusLookupFailed() {
        var m = Self.reach(.resolving)
        guard case .finish(let end) = Self.action(&m, .statusResolved(.failure(FlowError(.networkError, "down"))))
        else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.outcome == .unresolved)
        #expect(end.error?.code == .statusLookupFailed)
    }

    @Test func aResolverIsAskedInsteadOfTheBuiltInLookup() {
        var m = Self.reach(.dismissing, .resolver)
        #expect(Self.action(&m, .pageDismissed) == .resolveWithResolver)
    }

    @Test func presenterRefusalIsPresentationFailed() {
        var m = Self.reach(.presenting)
        guard case .finish(let end) = Self.action(&m, .presented(shown: false)) else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.error?.code == .presentationFailed)
    }

    @Test func cancelWhileResolvingLetsTheLookupDecide() {
        var m = Self.reach(.resolving)
        #expect(Self.action(&m, .cancel) == .none)
        #expect(Self.action(&m, Self.status("SETTLED")).isSuccess)
    }

    @Test func anEventTheMachineCannotExplainEndsUnresolved() {
        var m = Self.reach(.watching)
        guard case .finish(let end) = Self.action(&m, .encrypted(.success("x"))) else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.outcome == .unresolved)
        #expect(end.error?.code == .invalidResponse)
    }

    // MARK: Issue 18: doubt recorded at the decision, not inferred from loads

    /// The old machine cleared "the buyer's POST is on its way" at the next page load, so a presenter
    /// reporting the result page's load before the POST reached the gateway brought back `.cancelled`.
    @Test func aLoadReportedAfterTheBuyersPostDoesNotClearTheDoubt() {
        var m = Self.reach(.loaded)
        _ = m.handle(.navigation(Self.checkout, method: "POST"))
        _ = m.handle(.pageLoaded(Self.checkout))
        #expect(Self.action(&m, .pageClosedByBuyer) == .dismissPage)
        #expect(Self.action(&m, .pageDismissed) == .call(.statusLookup))
        #expect(Self.action(&m, Self.status("INITIALIZED")) == .wait(1))
    }

    /// A presenter that never reports loads: the POST it was allowed still counts.
    @Test func aPresenterThatReportsNoLoadsStillLeavesTheBuyersPostInDoubt() {
        var m = Self.machine(.none)
        _ = m.handle(.start(cachedKey: nil))
        _ = m.handle(.presented(shown: true))
        #expect(m.handle(.navigation(Self.checkout, method: "GET")) == FlowReaction(.none, navigation: .allow))
        #expect(m.handle(.navigation(Self.checkout, method: "POST")) == FlowReaction(.none, navigation: .allow))
        #expect(Self.action(&m, .pageClosedByBuyer) == .dismissPage)
        #expect(Self.action(&m, .pageDismissed) == .finish(Terminal(outcome: .unresolved)))
    }

    /// The page's own first load (the plan's URL, GET) is not the buyer's action: a close after it is
    /// `.cancelled` once the gateway says unpaid.
    @Test func thePagesOwnLoadIsNotTheBuyersAction() {
        var m = Self.machine()
        _ = m.handle(.start(cachedKey: nil))
        _ = m.handle(.presented(shown: true))
        _ = m.handle(.navigation(Self.checkout, method: "GET"))
        _ = m.handle(.pageClosedByBuyer)
        _ = m.handle(.pageDismissed)
        guard case .finish(let end) = Self.action(&m, Self.status("INITIALIZED")) else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.outcome == .cancelled)
    }

    /// A navigation whose method the presenter does not report may be the buyer's POST.
    @Test func aNavigationOfUnknownMethodMayCarryTheBuyersAction() {
        var m = Self.reach(.loaded)
        _ = m.handle(.navigation(Self.checkout))
        _ = m.handle(.pageClosedByBuyer)
        _ = m.handle(.pageDismissed)
        #expect(Self.action(&m, Self.status("INITIALIZED")) == .wait(1))
    }

    /// A FAILED status while the buyer's POST may still land is asked again, like a non-final one.
    @Test func aFailedStatusWhileThePostMayLandIsAskedAgain() {
        var m = Self.reach(.loaded)
        _ = m.handle(.navigation(Self.checkout, method: "POST"))
        _ = m.handle(.cancel)
        _ = m.handle(.pageDismissed)
        #expect(Self.action(&m, Self.status("FAILED")) == .wait(1))
        #expect(Self.action(&m, .waitEnded) == .call(.statusLookup))
        #expect(Self.action(&m, Self.status("SETTLED")).isSuccess)
    }

    /// After a close, `INITIALIZED` once the buyer went to another origin (a bank's pages) is
    /// `.unresolved` with the raw status: the gateway may not know yet.
    @Test func initializedAfterTheBuyerWentOffSiteIsUnresolved() {
        var m = Self.reach(.loaded)
        _ = m.handle(.navigation(URL(string: "https://bank.example/3ds")!, method: "GET"))
        _ = m.handle(.pageClosedByBuyer)
        _ = m.handle(.pageDismissed)
        guard case .finish(let end) = Self.action(&m, Self.status("INITIALIZED")) else {
            Issue.record("expected a finish")
            return
        }
        #expect(end.outcome == .unresolved)
        #expect(end.paymentStatus == "INITIALIZED")
        #expect(end.error == nil)
    }

    /// A presenter that never answers `present`: the page is dismissed and the status looked up; the
    /// outcome follows the gateway (the old machine ended `.failed` without asking).
    @Test func aSilentPresenterIsDismissedAndTheGatewayAsked() {
        for (status, outcome) in [("SETTLED", PaymentOutcome.succeeded), ("INITIALIZED", .failed)] {
            var m = Self.machine()
            _ = m.handle(.start(cachedKey: nil))
            #expect(Self.action(&m, .presentationTimedOut) == .dismissPage)
            #expect(Self.action(&m, .pageDismissed) == .call(.statusLookup))
            guard case .finish(let end) = Self.action(&m, Self.status(status)) else {
                Issue.record("expected a finish")
                return
            }
            #expect(end.outcome == outcome)
            if outcome == .failed { #expect(end.error?.code == .presentationFailed) }
        }
    }
}

extension FlowAction {
    /// Whether this finishes `.succeeded`.
    var isSuccess: Bool {
        if case .finish(let terminal) = self { return terminal.outcome == .succeeded }
        return false
    }
}
