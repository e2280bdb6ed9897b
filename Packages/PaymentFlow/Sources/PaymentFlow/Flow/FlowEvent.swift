import Foundation

/// Everything that can happen to a flow machine: one event type for both flows. An event a flow
/// cannot explain in its state ends the payment `.unresolved` + `invalidResponse` (never a trap).
enum FlowEvent: Equatable, Sendable, CustomStringConvertible {
    /// Begin, with the card-encryption key the kit holds in its cache (card flow).
    case start(cachedKey: EncryptionKey?)
    /// The presenter answered `present`.
    case presented(shown: Bool)
    /// The page asks to load this URL with this method (`nil`: the presenter cannot tell); the machine
    /// answers allow or cancel.
    case navigation(URL, method: String? = nil)
    /// The presenter did not answer `present` within its deadline (the page may be on screen).
    case presentationTimedOut
    case pageLoaded(URL)
    case pageFailed(URL, reason: String)
    case pageClosedByBuyer
    /// The page sent a request by itself (a script's `fetch`, XHR, beacon) with this method (`nil`: the
    /// presenter cannot tell); nothing to answer.
    case pageSentRequest(URL, method: String?)
    /// The presenter can no longer show the page (its browser's process ended), the buyer did not close it.
    case pageTerminated(reason: String)
    /// The page's deadline (`challengeTimeout`, `hostedPageTimeout`) passed.
    case pageTimedOut
    /// The page is gone after `.dismissPage` (or was never shown).
    case pageDismissed
    /// The host (or a step gate) cancelled.
    case cancel
    /// The key set was fetched: the key chosen and how long the gateway lets it be kept.
    case keyFetched(Result<GatewayAPI.KeyChoice, FlowError>)
    case encrypted(Result<String, FlowError>)
    /// A card-session call was answered (classified).
    case sessionAnswered(GatewayCall, SessionReply)
    /// The built-in lookup or the resolver answered.
    case statusResolved(Result<HostedCheckoutMachine.StatusReport, FlowError>)
    /// A `.wait` is over.
    case waitEnded
    /// The presenter reported its browser (`nil`: it does not know, did not answer, or there is none).
    case browserReported(ThreeDSBrowserData?)

    var description: String {
        switch self {
        case .start: "start"
        case .presented(let shown): shown ? "page shown" : "page could not be shown"
        case .navigation(let url, let method): "navigation to \(url.absoluteString)" + (method.map { " (\($0))" } ?? "")
        case .presentationTimedOut: "the presenter did not answer present"
        case .pageLoaded(let url): "page loaded \(url.absoluteString)"
        case .pageFailed: "page failed to load"
        case .pageClosedByBuyer: "buyer closed the page"
        case .pageSentRequest(let url, let method):
            "page sent \(method ?? "a request of unknown method") to \(url.absoluteString)"
        case .pageTerminated: "the presenter can no longer show the page"
        case .pageTimedOut: "page deadline passed"
        case .pageDismissed: "page dismissed"
        case .cancel: "cancel"
        case .keyFetched(let result): "key " + (result.failure.map { "failed (\($0.code))" } ?? "fetched")
        case .encrypted(let result): result.failure.map { "encryption failed (\($0.code))" } ?? "card encrypted"
        case .sessionAnswered(let call, let reply): "\(call) -> \(reply)"
        case .statusResolved(let result):
            "status " + (result.failure.map { "failed (\($0.code))" } ?? (result.success?.paymentStatus ?? "none"))
        case .waitEnded: "wait ended"
        case .browserReported(let report): report == nil ? "browser not reported" : "browser reported"
        }
    }
}

/// What a flow machine answers to one event.
struct FlowReaction: Equatable, Sendable {
    var action: FlowAction
    /// The answer to a `.navigation` event (`nil` for every other event).
    var navigation: NavigationDecision?
    /// What becomes of the kit's cached card-encryption key (`nil`: nothing). Performed as soon as the
    /// event is heard, whether or not a step gate holds the action back: it records what the gateway said.
    var keyCache: KeyCacheChange?

    init(_ action: FlowAction, navigation: NavigationDecision? = nil, keyCache: KeyCacheChange? = nil) {
        self.action = action
        self.navigation = navigation
        self.keyCache = keyCache
    }
}

/// The card machine's decision about the kit's card-encryption key cache (`EncryptionKeyCache`, the one
/// storage; the executor performs it). Which key a payment starts with is the cache's answer at start
/// (`FlowEvent.start(cachedKey:)`), and whether to use it or fetch one is the machine's.
enum KeyCacheChange: Equatable, Sendable, CustomStringConvertible {
    /// Keep this freshly fetched key for `maxAge` seconds (the gateway's `Cache-Control: max-age`).
    case store(EncryptionKey, maxAge: TimeInterval)
    /// Forget the cached key: the gateway refused it (`UNKNOWN_KEY`).
    case drop

    var description: String {
        switch self {
        case .store(let key, let maxAge): "keep key \(key.kid ?? "without kid") for \(maxAge) s"
        case .drop: "drop the cached key"
        }
    }
}

/// The interface the driver sees of either flow.
protocol FlowMachine: Sendable {
    /// The state's name, for observers and step gates.
    var stateName: String { get }
    /// The card-session id once one exists.
    var sessionId: String? { get }
    /// Feeds one event.
    mutating func handle(_ event: FlowEvent) -> FlowReaction
}

extension FlowMachine {
    /// The ending of an event the machine cannot explain in its state: never a trap, the SDK does not know.
    func unexplained(_ event: FlowEvent) -> Terminal {
        .unresolved(
            FlowError(
                .invalidResponse, "unexpected event '\(event)' in state \(stateName)", source: "payment driver"),
            sessionId: sessionId)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
