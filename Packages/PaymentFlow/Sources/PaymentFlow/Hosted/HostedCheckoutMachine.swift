import Foundation

/// The hosted-checkout flow (CONTRACT.md section 3) as a value: events in,
/// actions out, no I/O.
///
/// present the page -> watch navigations -> (return URL reached) dismiss ->
/// resolve the status -> finish. The buyer closing the page finishes
/// `.cancelled`; a load failure finishes `.failed`/`pageLoadFailed`; the
/// presenter refusing finishes `.failed`/`presentationFailed`. Page events
/// after the return URL was reached are ignored (the page is on its way out).
struct HostedCheckoutMachine {
    /// How the status is resolved once the page is gone.
    enum StatusSource: Equatable, Sendable {
        /// The built-in `GET {apiBaseURL}/checkout/api/egw/v1/payments/{id}`.
        case builtIn
        /// The host's `PaymentStatusResolving`.
        case resolver
        /// Nothing configured: `.unresolved`, no error.
        case none
    }

    /// What the machine needs, checked before it is built.
    struct Input: Equatable, Sendable {
        var page: PagePlan
        var returnURL: URL
        var statusSource: StatusSource
    }

    /// A resolved status.
    struct StatusReport: Equatable, Sendable {
        var paymentStatus: String?
        var orderNumber: String?
    }

    private enum State {
        /// Built, not started.
        case idle(Input)
        /// The presenter was asked to show the page; its answer has not come yet.
        case presenting(Input)
        /// The page is shown; navigations are watched.
        case watching(Input)
        /// The return URL was reached; the page is being dismissed.
        case dismissing(Input)
        /// The page is gone; the status is being resolved.
        case resolving(Input)
        /// A `.finish` action was returned.
        case finished
    }

    private var state: State

    init(_ input: Input) {
        state = .idle(input)
    }

    /// The state's name, for observers and step gates.
    var stateName: String {
        switch state {
        case .idle: "idle"
        case .presenting: "presenting"
        case .watching: "watching"
        case .dismissing: "dismissing"
        case .resolving: "resolving"
        case .finished: "finished"
        }
    }

    /// Whether a `.finish` action has been returned.
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    mutating func start() -> FlowAction {
        switch state {
        case .idle(let input):
            state = .presenting(input)
            return .present(input.page)
        case .presenting, .watching, .dismissing, .resolving, .finished:
            preconditionFailure("hosted checkout started twice (state \(stateName))")
        }
    }

    /// The presenter answered `present`.
    mutating func presentFinished(shown: Bool) -> FlowAction {
        switch state {
        case .presenting(let input):
            if shown {
                state = .watching(input)
                return .none
            }
            state = .finished
            return .finish(
                .failed(
                    FlowError(
                        .presentationFailed, "the presenter could not show the checkout page", source: "presenter")))
        case .dismissing:
            // The return URL was reached before the presenter's answer: the dismissal already runs.
            return .none
        case .idle, .watching, .resolving, .finished:
            preconditionFailure("present completion in state \(stateName)")
        }
    }

    /// The page asks to load `url`.
    mutating func navigation(to url: URL) -> (NavigationDecision, FlowAction) {
        switch state {
        case .presenting(let input), .watching(let input):
            guard URLMatch.sameEndpoint(url, input.returnURL) else { return (.allow, .none) }
            state = .dismissing(input)
            return (.cancel, .dismissPage)
        case .dismissing, .resolving:
            return (.cancel, .none)
        case .idle, .finished:
            preconditionFailure("navigation in state \(stateName)")
        }
    }

    mutating func pageLoaded(_ url: URL) -> FlowAction {
        switch state {
        case .presenting, .watching, .dismissing, .resolving:
            return .none
        case .idle, .finished:
            preconditionFailure("page load in state \(stateName)")
        }
    }

    mutating func pageFailed(_ url: URL, reason: String) -> FlowAction {
        switch state {
        case .presenting, .watching:
            state = .finished
            return .finish(
                .failed(
                    FlowError(
                        .pageLoadFailed, "the checkout page failed to load: \(reason)", source: "presenter")))
        case .dismissing, .resolving:
            // A presenter may report the cancelled return-URL load as a failure: not one.
            return .none
        case .idle, .finished:
            preconditionFailure("page failure in state \(stateName)")
        }
    }

    mutating func buyerClosedPage() -> FlowAction {
        switch state {
        case .presenting, .watching:
            state = .finished
            return .finish(.cancelled())
        case .dismissing, .resolving:
            return .none
        case .idle, .finished:
            preconditionFailure("page closed in state \(stateName)")
        }
    }

    /// The presenter reported the page gone after a `.dismissPage` action.
    mutating func pageDismissed() -> FlowAction {
        switch state {
        case .dismissing(let input):
            switch input.statusSource {
            case .builtIn:
                state = .resolving(input)
                return .call(.statusLookup)
            case .resolver:
                state = .resolving(input)
                return .resolveWithResolver
            case .none:
                state = .finished
                return .finish(Terminal(outcome: .unresolved))
            }
        case .idle, .presenting, .watching, .resolving, .finished:
            preconditionFailure("dismissal in state \(stateName)")
        }
    }

    /// The built-in lookup or the resolver answered (or failed, or timed out).
    mutating func statusResolved(_ result: Result<StatusReport, FlowError>) -> FlowAction {
        switch state {
        case .resolving:
            state = .finished
            switch result {
            case .success(let report):
                return .finish(
                    Terminal(
                        outcome: PaymentOutcome(platformStatus: report.paymentStatus),
                        paymentStatus: report.paymentStatus, orderNumber: report.orderNumber))
            case .failure(let error):
                let lookupError =
                    error.code == .statusLookupFailed
                    ? error : error.wrapped(as: .statusLookupFailed, "the status lookup failed (\(error.code))")
                return .finish(Terminal(outcome: .unresolved, error: lookupError))
            }
        case .idle, .presenting, .watching, .dismissing, .finished:
            preconditionFailure("status in state \(stateName)")
        }
    }

    /// The host (or a step gate) cancelled the payment. While the page is open that is `.cancelled`, as
    /// when the buyer closes it. Once the buyer reached the return URL the page's outcome exists and only
    /// the lookup is abandoned: `.unresolved`, no error (ask your backend).
    mutating func cancel() -> FlowAction {
        switch state {
        case .idle, .presenting, .watching:
            state = .finished
            return .finish(.cancelled())
        case .dismissing, .resolving:
            state = .finished
            return .finish(Terminal(outcome: .unresolved))
        case .finished:
            return .none
        }
    }
}
