import Foundation

/// The hosted-checkout flow (CONTRACT.md sections 3 and 4a) as a value: events in, actions out, no I/O.
///
/// present the page -> watch navigations -> the page ends -> dismiss -> resolve the status -> finish.
///
/// How the page ended decides how a status is read:
/// - the return URL reached: the status as it maps; a non-final status (`INITIALIZED`,
///   `SENT_FOR_PROCESSING`) is looked up again a bounded number of times first;
/// - the buyer closed it, the host cancelled, its deadline passed, the presenter never answered
///   `present` or lost the page (its browser's process ended): the buyer may already have paid, so a
///   status mapping to `.succeeded`, `.failed` or `.unresolved` wins, and `INITIALIZED`, `CANCELLED`,
///   `ABANDONED` are `.cancelled` (or `.failed` + `presentationFailed` for the silent or failed
///   presenter);
/// - a page failed to load: as above, but the not-paid statuses are `.failed` + `pageLoadFailed`.
///   The page's own first load failing, with nothing else allowed, is `.failed` + `pageLoadFailed` at
///   once: the buyer could not have acted.
/// Doubt is recorded when the SDK allows a navigation, never inferred from loads: once a form POST
/// (or a navigation of unknown method) other than the page's own load was allowed, or the presenter
/// reported a request of such a method the page sent by script to the checkout's or the gateway's
/// origin (`fetch`, XHR, a beacon: `PageSentRequest`), an unpaid or
/// `FAILED` status is looked up again, and `INITIALIZED` then, or after the buyer went to another
/// origin, is `.unresolved` with the raw status and no error. No lookup configured: the return URL
/// gives `.unresolved`; close, cancel, deadline `.cancelled`; a load failure `.failed` +
/// `pageLoadFailed`; but any of these after such a navigation is `.unresolved` (CONTRACT.md 4a). A
/// lookup that fails is `.unresolved` with the reason.
struct HostedCheckoutMachine: FlowMachine, Equatable {
    /// How the status is resolved once the page is gone.
    enum StatusSource: Equatable, Sendable {
        /// The built-in `GET {apiBaseURL}/checkout/api/egw/v1/payments/{id}`.
        case builtIn
        /// The host's `PaymentStatusResolving`.
        case resolver
        /// Nothing configured.
        case none
    }

    /// What the machine needs, checked before it is built.
    struct Input: Equatable, Sendable {
        var page: PagePlan
        var returnURL: URL
        var statusSource: StatusSource
        /// Extra lookups of a non-final status after the return URL (CONTRACT.md: default 3).
        var nonFinalRepolls: Int = 3
        /// Seconds between them (default 1).
        var repollInterval: TimeInterval = 1
        /// The gateway's own origins besides the page's (the configured checkout base URLs): a request
        /// the page sends by script to one of them may carry the buyer's action.
        var gatewayOrigins: [URL] = []
    }

    /// A resolved status.
    struct StatusReport: Equatable, Sendable {
        var paymentStatus: String?
        var orderNumber: String?
    }

    private enum State: Equatable {
        /// Built, not started.
        case idle(Input)
        /// The presenter was asked to show the page.
        case presenting(Input, Progress)
        /// The page is shown; navigations are watched.
        case watching(Input, Progress)
        /// The page ended; it is being dismissed.
        case dismissing(Input, PageEnding, Progress)
        /// The page is gone; the status is being resolved (`lookups` made so far, this one included).
        case resolving(Input, PageEnding, Progress, lookups: Int)
        /// Waiting before looking a non-final status up again.
        case pausing(Input, PageEnding, Progress, lookups: Int, last: StatusReport)
        /// A `.finish` action was returned.
        case finished
    }

    /// What the page has done so far, recorded when the SDK decided, never inferred from later loads
    /// (a presenter may report loads late, in its own order, or not at all).
    struct Progress: Equatable, Sendable {
        /// A page has finished loading.
        var loaded = false
        /// Navigations the SDK allowed so far (the first is the page's own load).
        var allowed = 0
        /// A navigation that may move money (a form POST, or one whose method is unknown) was allowed
        /// after the page's own load, or the page sent such a request by script to the gateway: the
        /// buyer's action may reach the gateway at any later moment, also after the page is gone.
        /// Never cleared.
        var moneyMovingAllowed = false
        /// A navigation to another origin than the checkout page's was allowed (a bank's own pages):
        /// the gateway may not know yet what the buyer did there.
        var leftCheckout = false

        /// Whether an unpaid status may not be the last word.
        var inDoubt: Bool { moneyMovingAllowed }
    }

    private var state: State

    init(_ input: Input) {
        state = .idle(input)
    }

    var stateName: String {
        switch state {
        case .idle: "idle"
        case .presenting: "presenting"
        case .watching: "watching"
        case .dismissing: "dismissing"
        case .resolving: "resolving"
        case .pausing: "pausing"
        case .finished: "finished"
        }
    }

    var sessionId: String? { nil }

    /// Feeds one event: the only entry point.
    mutating func handle(_ event: FlowEvent) -> FlowReaction {
        switch event {
        case .start:
            guard case .idle(let input) = state else { return FlowReaction(finish(unexplained(event))) }
            state = .presenting(input, Progress())
            return FlowReaction(.present(input.page))
        case .presented(let shown): return FlowReaction(presented(shown, event))
        case .presentationTimedOut: return FlowReaction(pageEnded(.presenterSilent, event))
        case .navigation(let url, let method): return navigation(to: url, method: method, event)
        case .pageLoaded: return FlowReaction(pageLoaded(event))
        case .pageFailed(_, let reason): return FlowReaction(pageEnded(.loadFailed(reason: reason), event))
        case .pageClosedByBuyer: return FlowReaction(pageEnded(.closedByBuyer, event))
        case .pageSentRequest(let url, let method): return FlowReaction(pageSent(url, method: method, event))
        case .pageTerminated(let reason): return FlowReaction(pageEnded(.presenterFailed(reason: reason), event))
        case .pageTimedOut: return FlowReaction(pageEnded(.timedOut, event))
        case .cancel: return FlowReaction(cancel())
        case .pageDismissed: return FlowReaction(pageDismissed(event))
        case .statusResolved(let result): return FlowReaction(statusResolved(result, event))
        case .waitEnded:
            guard case .pausing(let input, let ending, let progress, let lookups, _) = state else {
                return FlowReaction(finish(unexplained(event)))
            }
            return FlowReaction(lookUp(input, ending, progress, lookups: lookups + 1))
        case .keyFetched, .encrypted, .sessionAnswered, .browserReported:
            return FlowReaction(finish(unexplained(event)))
        }
    }

    private mutating func presented(_ shown: Bool, _ event: FlowEvent) -> FlowAction {
        switch state {
        case .presenting(let input, let progress):
            if shown {
                state = .watching(input, progress)
                return .none
            }
            guard progress.allowed == 0, !progress.moneyMovingAllowed else {
                // "Not shown", although the page already asked to navigate or sent a request: it may be
                // on screen, and the buyer may have acted.
                return pageEnded(.presenterSilent, event)
            }
            return finish(.failed(Self.presentationFailure("the presenter could not show the checkout page")))
        case .dismissing, .resolving, .pausing:
            // The page ended before the presenter's answer: the dismissal waited for it (or, for "not
            // shown", had nothing to remove); the answer changes nothing now.
            return .none
        case .idle, .watching, .finished:
            return finish(unexplained(event))
        }
    }

    private mutating func navigation(to url: URL, method: String?, _ event: FlowEvent) -> FlowReaction {
        switch state {
        case .presenting(let input, var progress), .watching(let input, var progress):
            guard URLMatch.sameEndpoint(url, input.returnURL) else {
                // The page's own first load (the plan's URL and method) is the SDK's, not the buyer's.
                let planned = input.page.formFields == nil ? "GET" : "POST"
                let ownLoad =
                    progress.allowed == 0 && URLMatch.sameEndpoint(url, input.page.url)
                    && method?.uppercased() == planned
                if !ownLoad && NavigationWeight.mayMoveMoney(method: method) {
                    progress.moneyMovingAllowed = true
                }
                if !URLMatch.sameOrigin(url, input.page.url) { progress.leftCheckout = true }
                progress.allowed += 1
                if case .presenting = state {
                    state = .presenting(input, progress)
                } else {
                    state = .watching(input, progress)
                }
                return FlowReaction(.none, navigation: .allow)
            }
            state = .dismissing(input, .reachedEnd, progress)
            return FlowReaction(.dismissPage, navigation: .cancel)
        case .dismissing, .resolving, .pausing:
            return FlowReaction(.none, navigation: .cancel)
        case .idle, .finished:
            return FlowReaction(finish(unexplained(event)), navigation: .cancel)
        }
    }

    /// A request the page sent by itself: one that may carry the buyer's action, to the checkout's or the
    /// gateway's origin, is recorded as a form POST allowed, in every state up to the end (the report may
    /// come while the page is being dismissed or its status looked up; it is as true then).
    private mutating func pageSent(_ url: URL, method: String?, _ event: FlowEvent) -> FlowAction {
        func recorded(_ input: Input, _ progress: Progress) -> Progress {
            var progress = progress
            if NavigationWeight.mayMoveMoney(
                sentTo: url, method: method, origins: [input.page.url] + input.gatewayOrigins)
            {
                progress.moneyMovingAllowed = true
            }
            return progress
        }
        switch state {
        case .presenting(let input, let progress): state = .presenting(input, recorded(input, progress))
        case .watching(let input, let progress): state = .watching(input, recorded(input, progress))
        case .dismissing(let input, let ending, let progress):
            state = .dismissing(input, ending, recorded(input, progress))
        case .resolving(let input, let ending, let progress, let lookups):
            state = .resolving(input, ending, recorded(input, progress), lookups: lookups)
        case .pausing(let input, let ending, let progress, let lookups, let last):
            state = .pausing(input, ending, recorded(input, progress), lookups: lookups, last: last)
        case .idle, .finished:
            return finish(unexplained(event))
        }
        return .none
    }

    private mutating func pageLoaded(_ event: FlowEvent) -> FlowAction {
        switch state {
        case .presenting(let input, var progress):
            progress.loaded = true
            state = .presenting(input, progress)
            return .none
        case .watching(let input, var progress):
            progress.loaded = true
            state = .watching(input, progress)
            return .none
        case .dismissing, .resolving, .pausing:
            return .none
        case .idle, .finished:
            return finish(unexplained(event))
        }
    }

    private mutating func pageEnded(_ ending: PageEnding, _ event: FlowEvent) -> FlowAction {
        switch state {
        case .presenting(let input, let progress), .watching(let input, let progress):
            if case .loadFailed(let reason) = ending, !progress.loaded, progress.allowed <= 1,
                !progress.moneyMovingAllowed
            {
                // The page's own first load failed, and nothing else was allowed: the buyer could not act.
                return finish(.failed(Self.loadFailure(reason)))
            }
            state = .dismissing(input, ending, progress)
            return .dismissPage
        case .dismissing, .resolving, .pausing:
            // A presenter may report the cancelled return-URL load as a failure: not one.
            return .none
        case .idle, .finished:
            return finish(unexplained(event))
        }
    }

    private mutating func pageDismissed(_ event: FlowEvent) -> FlowAction {
        guard case .dismissing(let input, let ending, let progress) = state else { return finish(unexplained(event)) }
        return lookUp(input, ending, progress, lookups: 1)
    }

    private mutating func lookUp(_ input: Input, _ ending: PageEnding, _ progress: Progress, lookups: Int) -> FlowAction
    {
        switch input.statusSource {
        case .builtIn:
            state = .resolving(input, ending, progress, lookups: lookups)
            return .call(.statusLookup)
        case .resolver:
            state = .resolving(input, ending, progress, lookups: lookups)
            return .resolveWithResolver
        case .none:
            if ending != .reachedEnd && (progress.inDoubt || progress.leftCheckout) {
                // The buyer's action (a pay button's POST, a bank's page) may land after the page is gone,
                // and nothing can ask: a cancel or failure could make the buyer pay twice (CONTRACT.md 4a).
                return finish(Terminal(outcome: .unresolved))
            }
            switch ending {
            case .reachedEnd: return finish(Terminal(outcome: .unresolved))
            case .closedByBuyer, .cancelledByHost, .timedOut: return finish(.cancelled())
            case .loadFailed(let reason): return finish(.failed(Self.loadFailure(reason)))
            case .presenterSilent: return finish(.failed(Self.silentPresenter))
            case .presenterFailed(let reason): return finish(.failed(Self.failedPresenter(reason)))
            }
        }
    }

    private mutating func statusResolved(
        _ result: Result<StatusReport, FlowError>, _ event: FlowEvent
    ) -> FlowAction {
        guard case .resolving(let input, let ending, let progress, let lookups) = state else {
            return finish(unexplained(event))
        }
        switch result {
        case .failure(let error):
            let lookupError =
                error.code == .statusLookupFailed
                ? error : error.wrapped(as: .statusLookupFailed, "the status lookup failed (\(error.code))")
            return finish(.unresolved(lookupError))
        case .success(let report):
            let status = report.paymentStatus
            let nonFinal = status == "INITIALIZED" || status == "SENT_FOR_PROCESSING"
            // Worth asking again: a non-final status after the return URL, or an unpaid or failed one while
            // the buyer's action may still land (a FAILED attempt can be followed by a paying one).
            let mayChange = Self.notPaid(status) || status == "FAILED"
            if (ending == .reachedEnd && nonFinal) || (progress.inDoubt && mayChange), lookups <= input.nonFinalRepolls
            {
                state = .pausing(input, ending, progress, lookups: lookups, last: report)
                return .wait(input.repollInterval)
            }
            return finish(Self.terminal(report, ending: ending, progress))
        }
    }

    /// Statuses under which no money moved.
    private static func notPaid(_ status: String?) -> Bool {
        ["INITIALIZED", "CANCELLED", "ABANDONED"].contains(status ?? "")
    }

    /// The outcome of a status read after the page ended as `ending`. `INITIALIZED` after an ending
    /// other than the return URL, once the buyer's action may still land or the buyer went off-site, is
    /// not the last word: `.unresolved`, with the raw status and no error (nothing failed; the SDK does
    /// not know yet).
    private static func terminal(_ report: StatusReport, ending: PageEnding, _ progress: Progress) -> Terminal {
        let mapped = PaymentOutcome(platformStatus: report.paymentStatus)
        var terminal = Terminal(outcome: mapped, paymentStatus: report.paymentStatus, orderNumber: report.orderNumber)
        guard notPaid(report.paymentStatus) else { return terminal }
        if ending != .reachedEnd && (progress.inDoubt || progress.leftCheckout) && report.paymentStatus == "INITIALIZED"
        {
            terminal.outcome = .unresolved
            return terminal
        }
        switch ending {
        case .reachedEnd: break
        case .closedByBuyer, .cancelledByHost, .timedOut: terminal.outcome = .cancelled
        case .loadFailed(let reason):
            terminal.outcome = .failed
            terminal.error = loadFailure(reason)
        case .presenterSilent:
            terminal.outcome = .failed
            terminal.error = silentPresenter
        case .presenterFailed(let reason):
            terminal.outcome = .failed
            terminal.error = failedPresenter(reason)
        }
        return terminal
    }

    private static func loadFailure(_ reason: String) -> FlowError {
        FlowError(.pageLoadFailed, "the checkout page failed to load: \(reason)", source: "presenter")
    }

    private static func presentationFailure(_ reason: String) -> FlowError {
        FlowError(.presentationFailed, reason, source: "presenter")
    }

    private static func failedPresenter(_ reason: String) -> FlowError {
        presentationFailure("the presenter lost the checkout page (\(reason)); the gateway says nothing was paid")
    }

    private static let silentPresenter = presentationFailure(
        "the presenter did not confirm the checkout page was shown; the gateway says nothing was paid")

    /// The host (or a step gate) cancelled. While the page is open it is ended like a buyer close:
    /// dismissed, then the status decides (the buyer may have paid). Once the page ended, the lookup
    /// already under way decides; a cancel during the wait between lookups ends with the last status.
    private mutating func cancel() -> FlowAction {
        switch state {
        case .idle:
            return finish(.cancelled())
        case .presenting, .watching:
            return pageEnded(.cancelledByHost, .cancel)
        case .pausing(_, let ending, let progress, _, let last):
            return finish(Self.terminal(last, ending: ending, progress))
        case .dismissing, .resolving, .finished:
            return .none
        }
    }

    private mutating func finish(_ terminal: Terminal) -> FlowAction {
        state = .finished
        return .finish(terminal)
    }
}
