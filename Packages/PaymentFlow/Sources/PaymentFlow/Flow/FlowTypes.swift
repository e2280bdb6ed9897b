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

/// A call on the gateway, described by what it means; `GatewayAPI` turns it
/// into bytes on the wire.
enum GatewayCall: Equatable, Sendable, CustomStringConvertible {
    /// `GET {apiBaseURL}/checkout/api/egw/v1/payments/{paymentId}`.
    case statusLookup
    /// `GET {checkoutBaseURL}/checkout/.well-known/jwks.json`.
    case keySet
    /// `POST .../card-sessions` with the encrypted card.
    case createSession(encryptedCard: String)
    /// `POST .../card-sessions/{sessionId}/authentication`.
    case authenticate(sessionId: String, notificationURL: URL)
    /// `POST .../card-sessions/{sessionId}/challenge-result`.
    case challengeResult(sessionId: String)
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
}

/// What a machine asks its driver to do next.
enum FlowAction: Equatable, Sendable, CustomStringConvertible {
    /// Nothing: wait for the next event.
    case none
    /// Ask the presenter to show a page.
    case present(PagePlan)
    /// Ask the presenter to remove the page (then `pageDismissed`).
    case dismissPage
    /// Make a gateway call (then the call's response event).
    case call(GatewayCall)
    /// Ask the host's custom resolver (then `statusResolved`).
    case resolveWithResolver
    /// Fetch the card-encryption key; `refresh` drops any cached one first (then `keyFetched`).
    case fetchKey(refresh: Bool)
    /// Encrypt the card with this key (then `encryptionFinished`).
    case encrypt(EncryptionKey)
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
        case .encrypt(let key): "encrypt the card (kid \(key.kid ?? "none"))"
        case .finish(let terminal): "finish \(terminal)"
        }
    }
}

/// URL comparison for "the page reached this URL": same scheme, host and port
/// (default ports filled in), same path (`""` is `/`); query and fragment ignored.
enum URLMatch {
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
