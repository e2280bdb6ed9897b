import Foundation
import Testing

@testable import PaymentFlow

/// The hosted-checkout machine, event by event, without a network. Expected
/// actions and outcomes are read off CONTRACT.md section 3.
@Suite struct HostedCheckoutMachineTests {
    static let checkout = URL(string: "https://pay.example.com/checkout/pay/p_1")!
    static let returnURL = URL(string: "myshop://orders/42/done?x=1")!

    static func machine(_ source: HostedCheckoutMachine.StatusSource = .builtIn) -> HostedCheckoutMachine {
        HostedCheckoutMachine(
            .init(
                page: PagePlan(url: checkout, formFields: nil, purpose: .hostedCheckout), returnURL: returnURL,
                statusSource: source))
    }

    /// Each reachable state, by the shortest event sequence.
    enum Reach: CaseIterable {
        case idle, presenting, watching, dismissing, resolving
    }

    static func reach(_ target: Reach, _ source: HostedCheckoutMachine.StatusSource = .builtIn) -> HostedCheckoutMachine
    {
        var m = machine(source)
        if target == .idle { return m }
        _ = m.start()
        if target == .presenting { return m }
        _ = m.presentFinished(shown: true)
        if target == .watching { return m }
        _ = m.navigation(to: returnURL)
        if target == .dismissing { return m }
        _ = m.pageDismissed()
        return m
    }

    @Test func startPresentsTheCheckoutPage() {
        var m = Self.machine()
        #expect(m.start() == .present(PagePlan(url: Self.checkout, formFields: nil, purpose: .hostedCheckout)))
        #expect(m.stateName == "presenting")
    }

    @Test func presenterRefusalFailsWithPresentationFailed() {
        var m = Self.reach(.presenting)
        guard case .finish(let t) = m.presentFinished(shown: false) else {
            Issue.record("expected finish")
            return
        }
        #expect(t.outcome == .failed)
        #expect(t.error?.code == .presentationFailed)
        #expect(m.isFinished)
    }

    @Test(arguments: [
        // Same scheme, host, port, path; query and fragment ignored (CONTRACT.md section 3).
        ("myshop://orders/42/done", true),
        ("myshop://orders/42/done?status=ok#top", true),
        ("MYSHOP://ORDERS/42/done", true),
        ("myshop://orders/42/done/", false),
        ("myshop://orders/43/done", false),
        ("https://orders/42/done", false),
        ("myshop://orders:81/42/done", false),
    ])
    func returnURLMatching(candidate: String, matches: Bool) {
        for state in [Reach.presenting, .watching] {
            var m = Self.reach(state)
            let (decision, action) = m.navigation(to: URL(string: candidate)!)
            if matches {
                #expect(decision == .cancel)
                #expect(action == .dismissPage)
                #expect(m.stateName == "dismissing")
            } else {
                #expect(decision == .allow)
                #expect(action == FlowAction.none)
                #expect(m.stateName == (state == .presenting ? "presenting" : "watching"))
            }
        }
    }

    @Test func defaultPortsMatchExplicitOnes() {
        #expect(
            URLMatch.sameEndpoint(URL(string: "https://shop.example/r")!, URL(string: "https://shop.example:443/r")!))
        #expect(URLMatch.sameEndpoint(URL(string: "http://shop.example")!, URL(string: "http://shop.example:80/")!))
        #expect(!URLMatch.sameEndpoint(URL(string: "http://shop.example/r")!, URL(string: "https://shop.example/r")!))
    }

    @Test(arguments: [Reach.presenting, .watching])
    func buyerClosingCancels(state: Reach) {
        var m = Self.reach(state)
        #expect(m.buyerClosedPage() == .finish(Terminal(outcome: .cancelled)))
        #expect(m.isFinished)
    }

    @Test(arguments: [Reach.presenting, .watching])
    func loadFailureFailsWithPageLoadFailed(state: Reach) {
        var m = Self.reach(state)
        guard case .finish(let t) = m.pageFailed(Self.checkout, reason: "HTTP 500") else {
            Issue.record("expected finish")
            return
        }
        #expect(t.outcome == .failed)
        #expect(t.error?.code == .pageLoadFailed)
    }

    @Test(arguments: [Reach.presenting, .watching, .dismissing, .resolving])
    func pageLoadsChangeNothing(state: Reach) {
        var m = Self.reach(state)
        let before = m.stateName
        #expect(m.pageLoaded(Self.checkout) == FlowAction.none)
        #expect(m.stateName == before)
    }

    @Test(arguments: [Reach.dismissing, .resolving])
    func pageEventsAfterTheReturnURLAreIgnored(state: Reach) {
        var m = Self.reach(state)
        #expect(m.pageFailed(Self.returnURL, reason: "cancelled") == FlowAction.none)
        #expect(m.buyerClosedPage() == FlowAction.none)
        let (decision, action) = m.navigation(to: Self.checkout)
        #expect(decision == .cancel)
        #expect(action == FlowAction.none)
        #expect(!m.isFinished)
    }

    @Test func lateRefusalAfterTheReturnURLIsIgnored() {
        var m = Self.reach(.presenting)
        _ = m.navigation(to: Self.returnURL)
        #expect(m.presentFinished(shown: true) == FlowAction.none)
        #expect(m.presentFinished(shown: false) == FlowAction.none)
        #expect(m.stateName == "dismissing")
    }

    @Test func dismissalThenBuiltInLookup() {
        var m = Self.reach(.dismissing, .builtIn)
        #expect(m.pageDismissed() == .call(.statusLookup))
    }

    @Test func dismissalThenResolver() {
        var m = Self.reach(.dismissing, .resolver)
        #expect(m.pageDismissed() == .resolveWithResolver)
    }

    @Test func dismissalWithoutLookupIsUnresolvedWithoutError() {
        var m = Self.reach(.dismissing, .none)
        #expect(m.pageDismissed() == .finish(Terminal(outcome: .unresolved)))
    }

    /// Platform statuses -> outcomes, from the table in CONTRACT.md ("PaymentOutcome").
    @Test(arguments: [
        ("SETTLED", PaymentOutcome.succeeded), ("AUTHORIZED", .succeeded), ("CAPTURED", .succeeded),
        ("REFUNDED", .succeeded), ("FAILED", .failed), ("CANCELLED", .cancelled), ("ABANDONED", .cancelled),
        ("INITIALIZED", .unresolved), ("SENT_FOR_PROCESSING", .unresolved), ("settled", .unresolved),
    ])
    func resolvedStatusIsMapped(status: String, outcome: PaymentOutcome) {
        var m = Self.reach(.resolving)
        let action = m.statusResolved(.success(.init(paymentStatus: status, orderNumber: "order-7")))
        #expect(action == .finish(Terminal(outcome: outcome, paymentStatus: status, orderNumber: "order-7")))
    }

    @Test func noStatusNoErrorIsUnresolved() {
        var m = Self.reach(.resolving, .resolver)
        #expect(m.statusResolved(.success(.init())) == .finish(Terminal(outcome: .unresolved)))
    }

    @Test(arguments: [PaymentError.Code.networkError, .invalidResponse, .invalidRequest, .statusLookupFailed])
    func failedLookupIsUnresolvedWithStatusLookupFailed(cause: PaymentError.Code) {
        var m = Self.reach(.resolving)
        guard case .finish(let t) = m.statusResolved(.failure(FlowError(cause, "x"))) else {
            Issue.record("expected finish")
            return
        }
        #expect(t.outcome == .unresolved)
        #expect(t.error?.code == .statusLookupFailed)
        #expect(t.paymentStatus == nil)
    }

    @Test(arguments: Reach.allCases)
    func cancelWhileThePageIsOpenIsCancelledAfterItIsUnresolved(state: Reach) {
        var m = Self.reach(state)
        // Open page: as if the buyer closed it. Return URL reached: the page's outcome exists, unknown here.
        let expected: PaymentOutcome = [.idle, .presenting, .watching].contains(state) ? .cancelled : .unresolved
        #expect(m.cancel() == .finish(Terminal(outcome: expected)))
        #expect(m.isFinished)
        #expect(m.cancel() == FlowAction.none)
    }
}
