import Foundation

/// How a flow ended: everything the terminal funnel needs to build the one
/// ``PaymentResult``.
struct Terminal: Equatable, Sendable, CustomStringConvertible {
    var outcome: PaymentOutcome
    var paymentStatus: String? = nil
    var orderNumber: String? = nil
    var sessionId: String? = nil
    var error: FlowError? = nil

    static func failed(_ error: FlowError, sessionId: String? = nil) -> Terminal {
        Terminal(outcome: .failed, sessionId: sessionId, error: error)
    }

    static func cancelled(sessionId: String? = nil) -> Terminal {
        Terminal(outcome: .cancelled, sessionId: sessionId)
    }

    /// `.unresolved` because money may have moved and the SDK could not confirm it: `cause` explains
    /// why, with advice to ask the backend (never to retry).
    static func unresolved(_ cause: FlowError, sessionId: String? = nil) -> Terminal {
        Terminal(outcome: .unresolved, sessionId: sessionId, error: cause.markedInDoubt)
    }

    var description: String {
        var text = "\(outcome)"
        if let paymentStatus { text += " \(paymentStatus)" }
        if let error { text += " [\(error.code)]" }
        return text
    }
}

/// A page to show, in a comparable form (``PageRequest`` holds tuples).
struct PagePlan: Equatable, Sendable {
    struct Field: Equatable, Sendable {
        var name: String
        var value: String
    }

    var url: URL
    var formFields: [Field]?
    var purpose: PageRequest.Purpose

    var pageRequest: PageRequest {
        PageRequest(url: url, formFields: formFields?.map { (name: $0.name, value: $0.value) }, purpose: purpose)
    }
}

/// The `Idempotency-Key` of each logical POST of one card payment (GATEWAY.md): the same key when a
/// step is sent again after a lost or 5xx answer, a new one for a new step. Drawn by the driver from its
/// UUID source when the payment starts, so the machine stays a pure value.
struct IdempotencyKeys: Equatable, Sendable {
    /// The card-session creation.
    var createSession: UUID
    /// The creation again after `UNKNOWN_KEY`: a new body (a new key's JWE), so a new key.
    var createSessionWithNewKey: UUID
    /// The authentication request.
    var authentication: UUID
    /// The challenge-result request.
    var challengeResult: UUID

    init(createSession: UUID, createSessionWithNewKey: UUID, authentication: UUID, challengeResult: UUID) {
        self.createSession = createSession
        self.createSessionWithNewKey = createSessionWithNewKey
        self.authentication = authentication
        self.challengeResult = challengeResult
    }

    /// Four keys from `uuid`.
    init(_ uuid: () -> UUID) {
        self.init(
            createSession: uuid(), createSessionWithNewKey: uuid(), authentication: uuid(), challengeResult: uuid())
    }
}

/// A call on the gateway, described by what it means; `GatewayAPI` turns it
/// into bytes on the wire.
enum GatewayCall: Equatable, Sendable, CustomStringConvertible {
    /// `GET {apiBaseURL}/checkout/api/egw/v1/payments/{paymentId}`.
    case statusLookup
    /// `GET {checkoutBaseURL}/checkout/.well-known/jwks.json`.
    case keySet
    /// `POST .../card-sessions` with the encrypted card.
    case createSession(encryptedCard: String, idempotencyKey: UUID)
    /// `POST .../card-sessions/{sessionId}/authentication`.
    case authenticate(sessionId: String, notificationURL: URL, idempotencyKey: UUID)
    /// `POST .../card-sessions/{sessionId}/challenge-result`.
    case challengeResult(sessionId: String, idempotencyKey: UUID)
    /// `GET .../card-sessions/{sessionId}`.
    case readSession(sessionId: String)

    var description: String {
        switch self {
        case .statusLookup: "GET status"
        case .keySet: "GET jwks.json"
        case .createSession: "POST card-sessions"
        case .authenticate: "POST authentication"
        case .challengeResult: "POST challenge-result"
        case .readSession: "GET card-session"
        }
    }

    /// Whether repeating the call cannot change anything on the server.
    var isIdempotent: Bool {
        switch self {
        case .statusLookup, .keySet, .readSession: true
        case .createSession, .authenticate, .challengeResult: false
        }
    }

    /// The `Idempotency-Key` a POST carries.
    var idempotencyKey: UUID? {
        switch self {
        case .statusLookup, .keySet, .readSession: nil
        case .createSession(_, let key), .authenticate(_, _, let key), .challengeResult(_, let key): key
        }
    }
}

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
    /// Fetch the card-encryption key; `refresh` drops any cached one first (then `.keyFetched`).
    case fetchKey(refresh: Bool)
    /// Encrypt this card to this key (then `.encrypted`).
    case encrypt(card: CardSnapshot, key: EncryptionKey)
    /// Wait this many seconds on the flow's clock (then `.waitEnded`).
    case wait(TimeInterval)
    /// End the flow: the terminal funnel takes over.
    case finish(Terminal)

    var description: String {
        switch self {
        case .none: "none"
        case .present(let page): "present \(page.purpose) page"
        case .dismissPage: "dismiss page"
        case .call(let call): call.description
        case .resolveWithResolver: "ask the status resolver"
        case .fetchKey(let refresh): refresh ? "refetch the card-encryption key" : "GET jwks.json"
        case .encrypt(let card, let key): "encrypt the \(card) (kid \(key.kid ?? "none"))"
        case .wait(let seconds): "wait \(seconds) s"
        case .finish(let terminal): "finish \(terminal)"
        }
    }

    /// Whether a step gate is asked before the action is performed (everything that reaches out).
    var isGated: Bool {
        switch self {
        case .present, .dismissPage, .call, .resolveWithResolver, .fetchKey, .encrypt: true
        case .none, .wait, .finish: false
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

    var description: String {
        switch self {
        case .reachedEnd: "reached its end"
        case .closedByBuyer: "closed by the buyer"
        case .cancelledByHost: "cancelled by the host"
        case .loadFailed: "failed to load"
        case .timedOut: "timed out"
        case .presenterSilent: "never confirmed shown"
        }
    }
}

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
    /// The page's deadline (`challengeTimeout`, `hostedPageTimeout`) passed.
    case pageTimedOut
    /// The page is gone after `.dismissPage` (or was never shown).
    case pageDismissed
    /// The host (or a step gate) cancelled.
    case cancel
    case keyFetched(Result<EncryptionKey, FlowError>)
    case encrypted(Result<String, FlowError>)
    /// A card-session call was answered (classified).
    case sessionAnswered(GatewayCall, SessionReply)
    /// The built-in lookup or the resolver answered.
    case statusResolved(Result<HostedCheckoutMachine.StatusReport, FlowError>)
    /// A `.wait` is over.
    case waitEnded

    var description: String {
        switch self {
        case .start: "start"
        case .presented(let shown): shown ? "page shown" : "page could not be shown"
        case .navigation(let url, let method): "navigation to \(url.absoluteString)" + (method.map { " (\($0))" } ?? "")
        case .presentationTimedOut: "the presenter did not answer present"
        case .pageLoaded(let url): "page loaded \(url.absoluteString)"
        case .pageFailed: "page failed to load"
        case .pageClosedByBuyer: "buyer closed the page"
        case .pageTimedOut: "page deadline passed"
        case .pageDismissed: "page dismissed"
        case .cancel: "cancel"
        case .keyFetched(let result): "key " + (result.failure.map { "failed (\($0.code))" } ?? "fetched")
        case .encrypted(let result): result.failure.map { "encryption failed (\($0.code))" } ?? "card encrypted"
        case .sessionAnswered(let call, let reply): "\(call) -> \(reply)"
        case .statusResolved(let result):
            "status " + (result.failure.map { "failed (\($0.code))" } ?? (result.success?.paymentStatus ?? "none"))
        case .waitEnded: "wait ended"
        }
    }
}

/// What a flow machine answers to one event.
struct FlowReaction: Equatable, Sendable {
    var action: FlowAction
    /// The answer to a `.navigation` event (`nil` for every other event).
    var navigation: NavigationDecision?

    init(_ action: FlowAction, navigation: NavigationDecision? = nil) {
        self.action = action
        self.navigation = navigation
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

/// What a navigation the SDK allowed can do. The one place that says which navigations may move money.
enum NavigationWeight {
    /// Whether allowing a navigation with `method` (`nil`: unknown) may send the buyer's action to the
    /// gateway or the issuer: anything but a `GET` or `HEAD` (a form POST), and any navigation whose
    /// method the presenter does not report. A page's own first load is not a buyer's action.
    static func mayMoveMoney(method: String?) -> Bool {
        guard let method = method?.uppercased() else { return true }
        return method != "GET" && method != "HEAD"
    }
}

/// URL comparison for "the page reached this URL": same scheme, host and port
/// (default ports filled in), same path (`""` is `/`); query and fragment ignored.
enum URLMatch {
    /// Same scheme, host and port (default ports filled in).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        guard let ca = URLComponents(url: a, resolvingAgainstBaseURL: true),
            let cb = URLComponents(url: b, resolvingAgainstBaseURL: true)
        else { return false }
        return ca.scheme?.lowercased() == cb.scheme?.lowercased()
            && (ca.host ?? "").lowercased() == (cb.host ?? "").lowercased() && port(ca) == port(cb)
    }

    static func sameEndpoint(_ a: URL, _ b: URL) -> Bool {
        guard let ca = URLComponents(url: a, resolvingAgainstBaseURL: true),
            let cb = URLComponents(url: b, resolvingAgainstBaseURL: true)
        else { return false }
        let schemeA = ca.scheme?.lowercased()
        let schemeB = cb.scheme?.lowercased()
        guard schemeA == schemeB else { return false }
        guard (ca.host ?? "").lowercased() == (cb.host ?? "").lowercased() else { return false }
        guard port(ca) == port(cb) else { return false }
        return path(ca) == path(cb)
    }

    private static func port(_ c: URLComponents) -> Int? {
        if let port = c.port { return port }
        switch c.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    private static func path(_ c: URLComponents) -> String {
        let path = c.percentEncodedPath
        return path.isEmpty ? "/" : path
    }
}
