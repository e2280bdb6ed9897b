import Foundation

/// The hosted-checkout flow (CONTRACT.md sections 3 and 4a) as a value: events in, actions out, no I/O.
///
/// present the page -> watch navigations -> the page ends -> dismiss -> resolve the status -> finish.
///
/// How the page ended decides how a status is read:
/// - the return URL reached: the status as it maps; a non-final status (`INITIALIZED`,
///   `SENT_FOR_PROCESSING`) is looked up again a bounded number of times first;
/// - the buyer closed it, the host cancelled, or its deadline passed: the buyer may already have
///   paid, so a status mapping to `.succeeded`, `.failed` or `.unresolved` wins, and `INITIALIZED`,
///   `CANCELLED`, `ABANDONED` are `.cancelled`;
/// - a page after the first failed to load: as above, but the not-paid statuses are `.failed` +
///   `pageLoadFailed`. The first page failing before anything loaded is `.failed` + `pageLoadFailed`
///   at once: the buyer could not have acted.
/// No lookup configured: the return URL gives `.unresolved`; close, cancel, deadline `.cancelled`; a
/// load failure `.failed` + `pageLoadFailed`; but any of these while the buyer's last action (a form
/// POST) was still on its way is `.unresolved` (it may yet move money, and nothing can ask: CONTRACT.md
/// 4a). A lookup that fails is `.unresolved` with the reason.
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
        /// The page ended; it is being dismissed. `inDoubt`: the buyer's last action was still on its way.
        case dismissing(Input, PageEnding, inDoubt: Bool)
        /// The page is gone; the status is being resolved (`lookups` made so far, this one included).
        case resolving(Input, PageEnding, inDoubt: Bool, lookups: Int)
        /// Waiting before looking a non-final status up again.
        case pausing(Input, PageEnding, inDoubt: Bool, lookups: Int, last: StatusReport)
        /// A `.finish` action was returned.
        case finished
    }

    /// What the page has done so far.
    struct Progress: Equatable, Sendable {
        /// A page has finished loading: the buyer could act.
        var loaded = false
        /// A navigation after that was allowed and has not finished loading: a buyer's action (a form
        /// POST) may be on its way to the gateway, and may still land after the page is gone.
        var inFlight = false

        var buyerMayHaveActed: Bool { loaded && inFlight }
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
        case .navigation(let url): return navigation(to: url, event)
        case .pageLoaded: return FlowReaction(pageLoaded(event))
        case .pageFailed(_, let reason): return FlowReaction(pageEnded(.loadFailed(reason: reason), event))
        case .pageClosedByBuyer: return FlowReaction(pageEnded(.closedByBuyer, event))
        case .pageTimedOut: return FlowReaction(pageEnded(.timedOut, event))
        case .cancel: return FlowReaction(cancel())
        case .pageDismissed: return FlowReaction(pageDismissed(event))
        case .statusResolved(let result): return FlowReaction(statusResolved(result, event))
        case .waitEnded:
            guard case .pausing(let input, let ending, let inDoubt, let lookups, _) = state else {
                return FlowReaction(finish(unexplained(event)))
            }
            return FlowReaction(lookUp(input, ending, inDoubt: inDoubt, lookups: lookups + 1))
        case .keyFetched, .encrypted, .sessionAnswered:
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
            return finish(
                .failed(
                    FlowError(
                        .presentationFailed, "the presenter could not show the checkout page", source: "presenter")))
        case .dismissing:
            // The page ended before the presenter's answer: the dismissal waits for it.
            return .none
        case .idle, .watching, .resolving, .pausing, .finished:
            return finish(unexplained(event))
        }
    }

    private mutating func navigation(to url: URL, _ event: FlowEvent) -> FlowReaction {
        switch state {
        case .presenting(let input, var progress), .watching(let input, var progress):
            guard URLMatch.sameEndpoint(url, input.returnURL) else {
                progress.inFlight = true
                if case .presenting = state {
                    state = .presenting(input, progress)
                } else {
                    state = .watching(input, progress)
                }
                return FlowReaction(.none, navigation: .allow)
            }
            state = .dismissing(input, .reachedEnd, inDoubt: false)
            return FlowReaction(.dismissPage, navigation: .cancel)
        case .dismissing, .resolving, .pausing:
            return FlowReaction(.none, navigation: .cancel)
        case .idle, .finished:
            return FlowReaction(finish(unexplained(event)), navigation: .cancel)
        }
    }

    private mutating func pageLoaded(_ event: FlowEvent) -> FlowAction {
        switch state {
        case .presenting(let input, _):
            state = .presenting(input, Progress(loaded: true, inFlight: false))
            return .none
        case .watching(let input, _):
            state = .watching(input, Progress(loaded: true, inFlight: false))
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
            if case .loadFailed(let reason) = ending, !progress.loaded {
                // The first page never loaded: the buyer could not have acted.
                return finish(.failed(Self.loadFailure(reason)))
            }
            state = .dismissing(input, ending, inDoubt: progress.buyerMayHaveActed)
            return .dismissPage
        case .dismissing, .resolving, .pausing:
            // A presenter may report the cancelled return-URL load as a failure: not one.
            return .none
        case .idle, .finished:
            return finish(unexplained(event))
        }
    }

    private mutating func pageDismissed(_ event: FlowEvent) -> FlowAction {
        guard case .dismissing(let input, let ending, let inDoubt) = state else { return finish(unexplained(event)) }
        return lookUp(input, ending, inDoubt: inDoubt, lookups: 1)
    }

    private mutating func lookUp(_ input: Input, _ ending: PageEnding, inDoubt: Bool, lookups: Int) -> FlowAction {
        switch input.statusSource {
        case .builtIn:
            state = .resolving(input, ending, inDoubt: inDoubt, lookups: lookups)
            return .call(.statusLookup)
        case .resolver:
            state = .resolving(input, ending, inDoubt: inDoubt, lookups: lookups)
            return .resolveWithResolver
        case .none:
            if inDoubt && ending != .reachedEnd {
                // The buyer's last action (a pay button's POST) may land after the page is gone, and
                // nothing can ask: a cancel or failure could make the buyer pay twice (CONTRACT.md 4a).
                return finish(
                    Terminal(
                        outcome: .unresolved,
                        error: Self.actionInDoubt(" and no status lookup is configured to ask the gateway")))
            }
            switch ending {
            case .reachedEnd: return finish(Terminal(outcome: .unresolved))
            case .closedByBuyer, .cancelledByHost, .timedOut: return finish(.cancelled())
            case .loadFailed(let reason): return finish(.failed(Self.loadFailure(reason)))
            }
        }
    }

    private mutating func statusResolved(
        _ result: Result<StatusReport, FlowError>, _ event: FlowEvent
    ) -> FlowAction {
        guard case .resolving(let input, let ending, let inDoubt, let lookups) = state else {
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
            let notPaid = Self.notPaid(status)
            // Worth asking again: a non-final status after the return URL, or an unpaid one while the
            // buyer's last action may still land.
            if (ending == .reachedEnd && nonFinal) || (inDoubt && notPaid), lookups <= input.nonFinalRepolls {
                state = .pausing(input, ending, inDoubt: inDoubt, lookups: lookups, last: report)
                return .wait(input.repollInterval)
            }
            return finish(Self.terminal(report, ending: ending, inDoubt: inDoubt))
        }
    }

    /// The outcome of a status read after the page ended as `ending`.
    private static func notPaid(_ status: String?) -> Bool {
        ["INITIALIZED", "CANCELLED", "ABANDONED"].contains(status ?? "")
    }

    /// The outcome of a status read after the page ended as `ending`; `inDoubt`: the buyer's last action
    /// was still on its way when the page ended, so an unpaid status may not be the last word.
    private static func terminal(_ report: StatusReport, ending: PageEnding, inDoubt: Bool) -> Terminal {
        let mapped = PaymentOutcome(platformStatus: report.paymentStatus)
        var terminal = Terminal(outcome: mapped, paymentStatus: report.paymentStatus, orderNumber: report.orderNumber)
        guard notPaid(report.paymentStatus) else { return terminal }
        if inDoubt && ending != .reachedEnd && report.paymentStatus == "INITIALIZED" {
            terminal.outcome = .unresolved
            terminal.error = actionInDoubt("; the payment may still change")
            return terminal
        }
        switch ending {
        case .reachedEnd: break
        case .closedByBuyer, .cancelledByHost, .timedOut: terminal.outcome = .cancelled
        case .loadFailed(let reason):
            terminal.outcome = .failed
            terminal.error = loadFailure(reason)
        }
        return terminal
    }

    /// Why an ending is `.unresolved` when the buyer's last action was still on its way; `detail`
    /// completes the reason.
    private static func actionInDoubt(_ detail: String) -> FlowError {
        FlowError(
            .statusLookupFailed, "the page ended while the buyer's last action was on its way" + detail,
            source: "hosted checkout"
        ).markedInDoubt
    }

    private static func loadFailure(_ reason: String) -> FlowError {
        FlowError(.pageLoadFailed, "the checkout page failed to load: \(reason)", source: "presenter")
    }

    /// The host (or a step gate) cancelled. While the page is open it is ended like a buyer close:
    /// dismissed, then the status decides (the buyer may have paid). Once the page ended, the lookup
    /// already under way decides; a cancel during the wait between lookups ends with the last status.
    private mutating func cancel() -> FlowAction {
        switch state {
        case .idle:
            return finish(.cancelled())
        case .presenting, .watching:
            return pageEnded(.cancelledByHost, .cancel)
        case .pausing(_, let ending, let inDoubt, _, let last):
            return finish(Self.terminal(last, ending: ending, inDoubt: inDoubt))
        case .dismissing, .resolving, .finished:
            return .none
        }
    }

    private mutating func finish(_ terminal: Terminal) -> FlowAction {
        state = .finished
        return .finish(terminal)
    }
}
