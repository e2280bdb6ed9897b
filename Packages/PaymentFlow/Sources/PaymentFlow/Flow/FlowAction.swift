import CardValidation
import Foundation

/// What a flow machine asks its driver to do next. Every action carries what the driver needs to
/// perform it: the driver never reads a machine's state.
enum FlowAction: Equatable, Sendable, CustomStringConvertible {
    /// Nothing: wait for the next event.
    case none
    /// Ask the presenter to show a page.
    case present(PagePlan)
    /// Ask the presenter to remove the page (then `.pageDismissed`).
    case dismissPage
    /// Make a gateway call (then `.callAnswered`).
    case call(GatewayCall)
    /// Ask the host's custom resolver (then `.statusResolved`).
    case resolveWithResolver
    /// Fetch the card-encryption key (then `.keyFetched`); `refresh`: again, after the gateway refused the
    /// key (the machine drops the cached one through `KeyCacheChange.drop`).
    case fetchKey(refresh: Bool)
    /// Encrypt this card (the run's one validated snapshot) to this key (then `.encrypted`).
    case encrypt(card: CardInput.Snapshot, key: EncryptionKey)
    /// Wait this many seconds on the flow's clock (then `.waitEnded`).
    case wait(TimeInterval)
    /// Ask the presenter what browser it is (then `.browserReported`).
    case reportBrowser
    /// End the flow: the terminal funnel takes over.
    case finish(Terminal)

    var description: String {
        switch self {
        case .none: "none"
        case .present(let page): page.threeDSMethod ? "load the 3DS Method" : "present \(page.purpose) page"
        case .dismissPage: "dismiss page"
        case .call(let call): call.description
        case .resolveWithResolver: "ask the status resolver"
        case .fetchKey(let refresh): refresh ? "refetch the card-encryption key" : "GET jwks.json"
        case .encrypt(let card, let key): "encrypt the \(CardPlaintext.label(card)) (kid \(key.kid ?? "none"))"
        case .wait(let seconds): "wait \(seconds) s"
        case .reportBrowser: "ask the presenter's browser data"
        case .finish(let terminal): "finish \(terminal)"
        }
    }

    /// Whether a step gate is asked before the action is performed (everything that reaches out).
    var isGated: Bool {
        switch self {
        case .present, .dismissPage, .call, .resolveWithResolver, .fetchKey, .encrypt: true
        case .none, .wait, .finish, .reportBrowser: false
        }
    }
}

/// How a page ended before the flow was done with it, for the gateway question that follows.
enum PageEnding: Equatable, Sendable, CustomStringConvertible {
    /// The page reached the URL that ends it (the return URL, the challenge's notification URL).
    case reachedEnd
    /// The buyer closed it.
    case closedByBuyer
    /// The host called `cancel()` (or a step gate said cancel).
    case cancelledByHost
    /// A page failed to load.
    case loadFailed(reason: String)
    /// The page's deadline passed.
    case timedOut
    /// The presenter never answered `present` within its deadline: the page may be on screen, and
    /// navigations may already have been allowed, so it is dismissed and the gateway asked.
    case presenterSilent
    /// The presenter reported it can no longer show the page (its browser's process crashed or was
    /// killed): the buyer may have acted before, so the gateway is asked.
    case presenterFailed(reason: String)

    var description: String {
        switch self {
        case .reachedEnd: "reached its end"
        case .closedByBuyer: "closed by the buyer"
        case .cancelledByHost: "cancelled by the host"
        case .loadFailed: "failed to load"
        case .timedOut: "timed out"
        case .presenterSilent: "never confirmed shown"
        case .presenterFailed: "lost by its presenter"
        }
    }
}
