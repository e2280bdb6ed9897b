import EGWWire
import Foundation
import Synchronization

/// A payment as the sandbox's merchant backend created it.
struct PaymentRecord: Sendable, Equatable {
    let id: String
    let verificationKey: String
    let amount: Int
    let currency: String
    let orderNumber: String
    let shopRedirectURL: String
    var status = "INITIALIZED"
    /// The method chosen on the hosted page, if any.
    var method: String?
}

/// Everything the sandbox remembers, behind one lock.
struct SandboxState: Sendable {
    var ids: SeededRandom
    var payments: [String: PaymentRecord] = [:]
    var sessions: [String: CardSession] = [:]
    var sessionsByACSTransID: [String: String] = [:]
    /// Each payment's card-session ids, in creation order.
    var sessionIDsByPayment: [String: [String]] = [:]
    var faults: FaultSchedule
    var log = RequestLog()
    var idempotency = IdempotencyStore()
    var orderCounter = 0

    init(seed: UInt64) {
        ids = SeededRandom(seed: seed)
        faults = FaultSchedule(seed: seed)
    }
}

/// The settings the core runs with (resolved from `Sandbox.Configuration`).
struct SandboxSettings: Sendable {
    var seed: UInt64
    var keyMaxAge: Int
    var bodyLimit: Int
    var now: @Sendable () -> Date
    var sleep: @Sendable (Duration) -> Void
    var observer: (@Sendable (SandboxRequestLogEntry) -> Void)? = nil
    /// Where secrets come from (verification keys): `count` bytes nobody can predict. The system's random
    /// source unless a test injects another; never the seeded generator, whose output anyone who knows the
    /// seed (default 1) can replay.
    var secretBytes: @Sendable (Int) -> [UInt8] = SandboxSettings.systemRandomBytes

    /// `count` bytes from the system's random source (`getrandom` on Linux).
    static func systemRandomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// The gateway's behaviour: routing, fault injection, the log, and every endpoint.
/// Thread-safe: all state sits in one `Mutex`; handlers run on the server's connection threads.
final class SandboxCore: Sendable {
    let settings: SandboxSettings
    let keys: any CardKeyService
    let state: Mutex<SandboxState>
    /// What the control endpoints (faults, log, key rotation, payment reads) require in `X-Sandbox-Token`: 16 bytes from
    /// ``SandboxSettings/secretBytes``, in hex, new for every sandbox.
    let controlToken: String
    private let originStorage = Mutex("http://127.0.0.1:0")
    /// How the issuer and hosted pages are built (``SandboxPageDialect``); changeable while serving.
    let pageDialect = Mutex(SandboxPageDialect.html)
    private let stopping = Atomic(false)

    init(settings: SandboxSettings, keys: any CardKeyService) {
        self.settings = settings
        self.keys = keys
        self.state = Mutex(SandboxState(seed: settings.seed))
        self.controlToken = settings.secretBytes(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The header the control endpoints require, with ``controlToken``.
    static let controlTokenHeader = "X-Sandbox-Token"

    /// `nil` when `request` carries the control token; else the 401 to answer. Compared in constant time.
    private func refusedControl(_ request: HTTPRequest) -> HTTPResponse? {
        guard let token = request.header(Self.controlTokenHeader), constantTimeEquals(token, controlToken) else {
            return .error(
                401, "SANDBOX_TOKEN_REQUIRED",
                "the control endpoints and payment reads need the \(Self.controlTokenHeader) header with the "
                    + "sandbox's controlToken "
                    + "(printed in its banner)")
        }
        return nil
    }

    /// `http://host:port`, set once the server is listening.
    var origin: String {
        get { originStorage.withLock { $0 } }
        set { originStorage.withLock { $0 = newValue } }
    }

    var apiBase: String { origin + "/" + Route.apiPrefix }
    var checkoutAPIBase: String { origin + "/" + Route.checkoutAPIPrefix }
    var checkoutBase: String { origin + "/" + Route.checkoutPrefix }
    var acsBase: String { origin + "/" + Route.acsPrefix }

    /// Makes injected latency end early so `stop()` does not wait for it.
    func beginStopping() { stopping.store(true, ordering: .relaxed) }

    // MARK: - The request pipeline

    /// Routes one request through fault injection to its endpoint and logs it.
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let clock = ContinuousClock()
        let started = clock.now
        let route = Route.match(method: request.method, path: request.path)
        var decision = FaultSchedule.Decision()
        if let endpoint = route.endpoint {
            decision = state.withLock { $0.faults.decide(for: endpoint) }
        }

        var response: HTTPResponse
        var replayed = false
        if let fault = decision.action, !fault.processesRequest {
            // The request never reaches the gateway: nothing is applied, nothing stored for its key.
            delay(decision)
            response = fault.apply(to: nil)
        } else {
            // Admitted before the delay, so a repeat arriving meanwhile sees the key in progress.
            let gate = admitIdempotent(route, request)
            delay(decision)
            switch gate {
            case .pass:
                response = dispatch(route, request)
            case .answer(let early, let isReplay):
                response = early
                replayed = isReplay
            case .handle(let scope):
                response = dispatch(route, request)
                finishIdempotent(scope, answer: response)
            }
            // A fault replaces the answer on the wire only; the stored one is the real one.
            if let fault = decision.action { response = fault.apply(to: response) }
        }

        if route != .logRead {
            let duration = clock.now - started
            let status = response.delivery == .dropConnection ? nil : response.status
            let entry = state.withLock {
                $0.log.append(
                    method: request.method, path: request.path, endpoint: route.endpoint, status: status,
                    duration: duration, faults: decision.applied, requestId: request.header("X-Request-Id"),
                    userAgent: request.header("User-Agent"), replayed: replayed,
                    threeDSCompInd: route.isAuthentication ? Self.compInd(of: request) : nil)
            }
            settings.observer?(entry)
        }
        return response
    }

    /// The injected latency, then the key rotation, of a fault decision.
    private func delay(_ decision: FaultSchedule.Decision) {
        if decision.latency > .zero { pause(decision.latency) }
        if decision.rotateKey { keys.rotate() }
    }

    /// The `threeDSCompInd` an authentication body carries, for the log (only `Y`, `N` or `U`: a body's
    /// other bytes never reach the log).
    static func compInd(of request: HTTPRequest) -> String? {
        guard let body = try? StrictJSONParser.parse(request.body),
            let value = body[member: "threeDSCompInd"]?.stringValue, ["Y", "N", "U"].contains(value)
        else { return nil }
        return value
    }

    /// Sleeps in short slices through the injected sleeper, ending early when stopping.
    func pause(_ total: Duration) {
        var left = total
        let slice = Duration.milliseconds(20)
        while left > .zero, !stopping.load(ordering: .relaxed) {
            let step = min(left, slice)
            settings.sleep(step)
            left -= step
        }
    }

    private func dispatch(_ route: Route, _ request: HTTPRequest) -> HTTPResponse {
        switch route {
        case .statusLookup(let paymentId): statusLookup(request, paymentId: paymentId)
        case .cardSessionCreate(let paymentId): createCardSession(request, paymentId: paymentId)
        case .cardSessionGet(let paymentId, let sessionId): getCardSession(request, paymentId, sessionId)
        case .authentication(let paymentId, let sessionId): authenticate(request, paymentId, sessionId)
        case .challengeResult(let paymentId, let sessionId): challengeResult(request, paymentId, sessionId)
        case .jwks: jwks()
        case .hostedPage(let paymentId): hostedPage(request, paymentId: paymentId)
        case .hostedChoice(let paymentId): hostedChoice(request, paymentId: paymentId)
        case .notification(let sessionId): notificationPage(request, sessionId: sessionId)
        case .acsChallenge: acsChallengePage(request)
        case .acsSubmit: acsSubmit(request)
        case .acsMethod: acsMethodPage(request)
        case .methodNotification(let sessionId): methodNotificationPage(request, sessionId: sessionId)
        case .merchantCreatePayment: merchantCreatePayment(request)
        // The payment read shows the verification key: a control read, token required.
        case .merchantGetPayment(let paymentId): refusedControl(request) ?? merchantGetPayment(paymentId)
        case .shopReturn(let paymentId): shopReturnPage(paymentId)
        case .faultsList: refusedControl(request) ?? faultsList()
        case .faultsAdd: refusedControl(request) ?? faultsAdd(request)
        case .faultsClear: refusedControl(request) ?? faultsClear()
        case .logRead: refusedControl(request) ?? logRead()
        case .logClear: refusedControl(request) ?? logClear()
        case .testCards: testCards()
        case .rotateKey: refusedControl(request) ?? rotateKeyEndpoint()
        case .index: indexPage()
        case .serverOptions:
            HTTPResponse(status: 204, headers: [("Allow", "GET, HEAD, POST, DELETE, OPTIONS")], body: [])
        case .methodNotAllowed(let allowed):
            {
                var response = HTTPResponse.error(
                    405, "INVALID_REQUEST",
                    "\(request.method) is not allowed here; use \(allowed.joined(separator: ", "))")
                response.headers.append(("Allow", allowed.joined(separator: ", ")))
                return response
            }()
        case .notFound:
            .error(404, "NOT_FOUND", "no endpoint at \(request.path) (see GET / for the base URLs)")
        }
    }

    // MARK: - Shared checks

    /// The checks of every checkout-API and status call, in order: `X-Request-Id` present
    /// (400 INVALID_REQUEST), the payment exists (404 PAYMENT_NOT_FOUND), `Obp-Verification-Key`
    /// matches it (401 INVALID_VERIFICATION_KEY).
    func authorize(_ request: HTTPRequest, paymentId: String) -> Result<PaymentRecord, ErrorResponse> {
        guard let requestId = request.header("X-Request-Id"), !requestId.allSatisfy(\.isWhitespace) else {
            return .failure(ErrorResponse(.error(400, "INVALID_REQUEST", "the X-Request-Id header is missing")))
        }
        guard let payment = state.withLock({ $0.payments[paymentId] }) else {
            return .failure(ErrorResponse(.error(404, "PAYMENT_NOT_FOUND", "no payment \(paymentId)")))
        }
        guard let key = request.header("Obp-Verification-Key") else {
            return .failure(
                ErrorResponse(.error(401, "INVALID_VERIFICATION_KEY", "the Obp-Verification-Key header is missing")))
        }
        guard constantTimeEquals(key, payment.verificationKey) else {
            return .failure(
                ErrorResponse(
                    .error(401, "INVALID_VERIFICATION_KEY", "the verification key does not match the payment")))
        }
        return .success(payment)
    }

    /// The request body as a JSON object (always `.object`, read by EGWWire's strict parser), or the 400
    /// answer. An empty body reads as `{}` when `emptyIsObject`.
    func jsonObjectBody(_ request: HTTPRequest, emptyIsObject: Bool = false) -> Result<JSONValue, ErrorResponse> {
        if request.bodyExceededLimit {
            return .failure(
                ErrorResponse(
                    .error(400, "INVALID_REQUEST", "the request body is larger than \(settings.bodyLimit) bytes")))
        }
        if request.body.isEmpty, emptyIsObject { return .success(.object([])) }
        let value: JSONValue
        do {
            value = try StrictJSONParser.parse(request.body)
        } catch {
            return .failure(
                ErrorResponse(
                    .error(
                        400, "INVALID_REQUEST",
                        "the body is not valid JSON: \(error.replyReason) at byte \(error.offset)")))
        }
        guard case .object = value else {
            return .failure(
                ErrorResponse(.error(400, "INVALID_REQUEST", "the body must be a JSON object, not \(value.typeName)")))
        }
        return .success(value)
    }

    /// A form body (`application/x-www-form-urlencoded`), or the 400 page.
    func formBody(_ request: HTTPRequest) -> Result<[(name: String, value: String)], ErrorResponse> {
        if request.bodyExceededLimit {
            return .failure(
                ErrorResponse(Pages.error(400, "The form is larger than \(settings.bodyLimit) bytes.")))
        }
        guard let pairs = FormEncoding.decode(request.body) else {
            return .failure(ErrorResponse(Pages.error(400, "The form could not be decoded.")))
        }
        return .success(pairs)
    }

    /// The card sessions of a payment in creation order (empty for an unknown payment).
    func cardSessions(of paymentId: String) -> [CardSession] {
        state.withLock { state in
            (state.sessionIDsByPayment[paymentId] ?? []).compactMap { state.sessions[$0] }
        }
    }

    private func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}

/// An early answer from a shared check, carried through `Result`.
struct ErrorResponse: Error, Sendable {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}
