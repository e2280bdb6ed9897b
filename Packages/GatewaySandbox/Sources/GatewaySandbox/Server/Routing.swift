/// Where a request goes: one case per endpoint, with the ids taken from the path.
///
/// Every host of GATEWAY.md lives under its own path prefix (see README.md), so a client
/// that mixes up its base URLs gets `404 NOT_FOUND` instead of a lucky answer.
enum Route: Equatable, Sendable {
    case statusLookup(paymentId: String)
    case cardSessionCreate(paymentId: String)
    case cardSessionGet(paymentId: String, sessionId: String)
    case authentication(paymentId: String, sessionId: String)
    case challengeResult(paymentId: String, sessionId: String)
    case jwks
    case hostedPage(paymentId: String)
    case hostedChoice(paymentId: String)
    case notification(sessionId: String)
    case acsChallenge
    case acsSubmit
    case acsMethod
    case methodNotification(sessionId: String)
    case merchantCreatePayment
    case merchantGetPayment(paymentId: String)
    case shopReturn(paymentId: String)
    case faultsList
    case faultsAdd
    case faultsClear
    case logRead
    case logClear
    case testCards
    case rotateKey
    case index
    /// `OPTIONS *`: a question about the server itself (RFC 9110 9.3.7), which the SDK sends to open a
    /// connection ahead of the request that needs it.
    case serverOptions
    case methodNotAllowed(allowed: [String])
    case notFound

    static let apiPrefix = "merchant-api"
    static let checkoutAPIPrefix = "gateway-api"
    static let checkoutPrefix = "gateway-checkout"
    static let acsPrefix = "acs"
    static let sandboxPrefix = "sandbox"

    /// An authentication request (the log records its `threeDSCompInd`).
    var isAuthentication: Bool {
        if case .authentication = self { return true }
        return false
    }

    /// The endpoint name fault injection and the log use; `nil` for control endpoints.
    var endpoint: SandboxEndpoint? {
        switch self {
        case .statusLookup: .statusLookup
        case .cardSessionCreate: .cardSessionCreate
        case .cardSessionGet: .cardSessionGet
        case .authentication: .authentication
        case .challengeResult: .challengeResult
        case .jwks: .jwks
        case .hostedPage: .hostedPage
        case .hostedChoice: .hostedChoice
        case .notification: .notification
        case .acsChallenge: .acsChallenge
        case .acsSubmit: .acsSubmit
        case .acsMethod: .acsMethod
        case .methodNotification: .methodNotification
        case .merchantCreatePayment: .merchantPayments
        case .merchantGetPayment, .shopReturn, .faultsList, .faultsAdd, .faultsClear, .logRead, .logClear, .testCards,
            .rotateKey, .index, .serverOptions, .methodNotAllowed, .notFound:
            nil
        }
    }

    private typealias Pattern = (method: String, segments: [String], make: @Sendable ([String]) -> Route)

    // `:` marks a path segment captured as an id.
    private static let patterns: [Pattern] = {
        let payments = ["checkout", "api", "egw", "v1", "payments", ":"]
        let sessions = [checkoutAPIPrefix] + payments + ["card-sessions"]
        return [
            ("GET", [apiPrefix] + payments, { .statusLookup(paymentId: $0[0]) }),
            ("POST", sessions, { .cardSessionCreate(paymentId: $0[0]) }),
            ("GET", sessions + [":"], { .cardSessionGet(paymentId: $0[0], sessionId: $0[1]) }),
            ("POST", sessions + [":", "authentication"], { .authentication(paymentId: $0[0], sessionId: $0[1]) }),
            ("POST", sessions + [":", "challenge-result"], { .challengeResult(paymentId: $0[0], sessionId: $0[1]) }),
            ("GET", [checkoutPrefix, "checkout", ".well-known", "jwks.json"], { _ in .jwks }),
            ("GET", [checkoutPrefix, "checkout", "pay", ":"], { .hostedPage(paymentId: $0[0]) }),
            ("POST", [checkoutPrefix, "checkout", "pay", ":"], { .hostedChoice(paymentId: $0[0]) }),
            ("POST", [checkoutPrefix, "checkout", "3ds", "notification", ":"], { .notification(sessionId: $0[0]) }),
            ("POST", [acsPrefix, "challenge"], { _ in .acsChallenge }),
            ("POST", [acsPrefix, "challenge", "submit"], { _ in .acsSubmit }),
            ("POST", [acsPrefix, "method"], { _ in .acsMethod }),
            (
                "POST", [checkoutPrefix, "checkout", "3ds", "method-notification", ":"],
                { .methodNotification(sessionId: $0[0]) }
            ),
            ("POST", [sandboxPrefix, "payments"], { _ in .merchantCreatePayment }),
            ("GET", [sandboxPrefix, "payments", ":"], { .merchantGetPayment(paymentId: $0[0]) }),
            ("GET", [sandboxPrefix, "return", ":"], { .shopReturn(paymentId: $0[0]) }),
            ("GET", [sandboxPrefix, "faults"], { _ in .faultsList }),
            ("POST", [sandboxPrefix, "faults"], { _ in .faultsAdd }),
            ("DELETE", [sandboxPrefix, "faults"], { _ in .faultsClear }),
            ("GET", [sandboxPrefix, "log"], { _ in .logRead }),
            ("DELETE", [sandboxPrefix, "log"], { _ in .logClear }),
            ("GET", [sandboxPrefix, "cards"], { _ in .testCards }),
            ("POST", [sandboxPrefix, "rotate-key"], { _ in .rotateKey }),
            ("GET", [], { _ in .index }),
        ]
    }()

    /// Matches `method` and `path` (`HEAD` is served as `GET`; the path `*` only with `OPTIONS`). Ids are
    /// non-empty path segments.
    static func match(method: String, path: String) -> Route {
        if path == "*" { return method == "OPTIONS" ? .serverOptions : .notFound }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let trimmed = segments == [""] ? [] : segments
        let effectiveMethod = method == "HEAD" ? "GET" : method
        var allowed: [String] = []
        for pattern in patterns {
            guard let ids = captures(pattern.segments, trimmed) else { continue }
            if pattern.method == effectiveMethod { return pattern.make(ids) }
            allowed.append(pattern.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    private static func captures(_ pattern: [String], _ segments: [String]) -> [String]? {
        guard pattern.count == segments.count else { return nil }
        var ids: [String] = []
        for (expected, actual) in zip(pattern, segments) {
            if expected == ":" {
                guard !actual.isEmpty else { return nil }
                ids.append(actual)
            } else if expected != actual {
                return nil
            }
        }
        return ids
    }
}
