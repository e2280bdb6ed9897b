import Foundation

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
    /// `threeDS`: the method's completion and the browser data (the same on a resend).
    case authenticate(
        sessionId: String, notificationURL: URL, idempotencyKey: UUID,
        threeDS: ThreeDSAuthentication = .unavailable)
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
        case .createSession(_, let key), .authenticate(_, _, let key, _), .challengeResult(_, let key): key
        }
    }
}
