/// An endpoint of the sandbox, as fault injection and the request log name it.
///
/// The raw values are the names the `/sandbox/faults` JSON API uses.
public struct SandboxEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// `GET {apiBaseURL}/checkout/api/egw/v1/payments/{id}`.
    public static let statusLookup = SandboxEndpoint(rawValue: "status")
    /// `GET {checkoutBaseURL}/checkout/.well-known/jwks.json`.
    public static let jwks = SandboxEndpoint(rawValue: "jwks")
    /// `POST {checkoutAPIBaseURL}/checkout/api/egw/v1/payments/{id}/card-sessions`.
    public static let cardSessionCreate = SandboxEndpoint(rawValue: "card-session-create")
    /// `GET {checkoutAPIBaseURL}/.../card-sessions/{sessionId}`.
    public static let cardSessionGet = SandboxEndpoint(rawValue: "card-session-get")
    /// `POST {checkoutAPIBaseURL}/.../card-sessions/{sessionId}/authentication`.
    public static let authentication = SandboxEndpoint(rawValue: "authentication")
    /// `POST {checkoutAPIBaseURL}/.../card-sessions/{sessionId}/challenge-result`.
    public static let challengeResult = SandboxEndpoint(rawValue: "challenge-result")
    /// `GET {checkoutBaseURL}/checkout/pay/{id}`: the hosted checkout page.
    public static let hostedPage = SandboxEndpoint(rawValue: "hosted-page")
    /// `POST {checkoutBaseURL}/checkout/pay/{id}`: the buyer's choice on the hosted page.
    public static let hostedChoice = SandboxEndpoint(rawValue: "hosted-choice")
    /// `POST /acs/challenge`: the issuer's challenge page (loaded with `creq`).
    public static let acsChallenge = SandboxEndpoint(rawValue: "acs-challenge")
    /// `POST /acs/challenge/submit`: the code typed on the challenge page.
    public static let acsSubmit = SandboxEndpoint(rawValue: "acs-submit")
    /// `POST {checkoutBaseURL}/checkout/3ds/notification/{sessionId}`: the page the issuer sends `cres` to.
    public static let notification = SandboxEndpoint(rawValue: "notification")
    /// `POST /acs/method` with `threeDSMethodData`: the issuer's invisible 3DS Method page.
    public static let acsMethod = SandboxEndpoint(rawValue: "acs-method")
    /// `POST {checkoutBaseURL}/checkout/3ds/method-notification/{sessionId}`: where the 3DS Method ends.
    public static let methodNotification = SandboxEndpoint(rawValue: "method-notification")
    /// `POST /sandbox/payments`: the merchant backend creating a payment.
    public static let merchantPayments = SandboxEndpoint(rawValue: "merchant-payments")
    /// Any endpoint above (never the `/sandbox/` control endpoints other than `merchantPayments`).
    public static let any = SandboxEndpoint(rawValue: "any")

    /// Every named endpoint, `any` last.
    public static let allCases: [SandboxEndpoint] = [
        .statusLookup, .jwks, .cardSessionCreate, .cardSessionGet, .authentication, .challengeResult, .hostedPage,
        .hostedChoice, .acsChallenge, .acsSubmit, .notification, .acsMethod, .methodNotification, .merchantPayments,
        .any,
    ]

    /// The endpoint's stable name (`"card-session-create"`, ...).
    public let rawValue: String

    /// The endpoint with this name, or `nil` when no endpoint has it.
    public init?(name: String) {
        guard let known = Self.allCases.first(where: { $0.rawValue == name }) else { return nil }
        self = known
    }

    private init(rawValue: String) { self.rawValue = rawValue }

    /// The stable name.
    public var description: String { rawValue }
}

/// The names of the sandbox's fault kinds, as `/sandbox/faults` and `egw-sandbox` take them, in the
/// order help texts list them (`SandboxFault.Kind.name` gives one of these for every kind).
public enum SandboxFaultKindNames {
    /// `latency`, `status`, `status-no-body`, `malformed`, `truncated`, `drop`, `rotate-key`.
    public static let all = ["latency", "status", "status-no-body", "malformed", "truncated", "drop", "rotate-key"]
}
