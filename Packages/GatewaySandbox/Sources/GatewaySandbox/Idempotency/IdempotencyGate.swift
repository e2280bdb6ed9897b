/// How a request stands with `Idempotency-Key` before it is handled.
enum IdempotencyGate: Sendable {
    /// No key, or not a request that honours one: handle it as usual and store nothing.
    case pass
    /// Send this without handling the request: a refusal (`400`, `409 REQUEST_IN_PROGRESS`,
    /// `422 IDEMPOTENCY_KEY_REUSED`) or, when `replayed`, the answer stored for the key.
    case answer(HTTPResponse, replayed: Bool)
    /// Handle the request, then hand its answer to `IdempotencyStore.finish` for this scope.
    case handle(IdempotencyStore.Scope)
}

extension SandboxCore {
    /// The longest `Idempotency-Key` accepted, in bytes (as Stripe).
    static let idempotencyKeyLimit = 255

    /// The response header that marks a replayed answer.
    static let replayedHeader = (name: "Idempotent-Replayed", value: "true")

    /// Where `request` stands with its `Idempotency-Key`, if it has one.
    ///
    /// Every POST of the checkout API honours the key (the client must be authorized first: a
    /// request that fails those checks passes through and gets their error, with nothing stored);
    /// so does the hosted page's choice, where a browser sends none. A body over the limit
    /// passes through too (it is refused, and its digest would not be the body's).
    func admitIdempotent(_ route: Route, _ request: HTTPRequest) -> IdempotencyGate {
        guard let key = request.header("Idempotency-Key"), !request.bodyExceededLimit else { return .pass }
        let paymentId: String
        let refuse: (Int, String, String) -> HTTPResponse
        switch route {
        case .cardSessionCreate(let id), .authentication(let id, _), .challengeResult(let id, _):
            guard case .success = authorize(request, paymentId: id) else { return .pass }
            paymentId = id
            refuse = { status, code, message in .error(status, code, message) }
        case .hostedChoice(let id):
            guard state.withLock({ $0.payments[id] != nil }) else { return .pass }
            paymentId = id
            refuse = { status, code, message in Pages.error(status, "\(code): \(message)") }
        case .statusLookup, .cardSessionGet, .jwks, .hostedPage, .notification, .acsChallenge, .acsSubmit, .acsMethod,
            .methodNotification,
            .merchantCreatePayment, .merchantGetPayment, .shopReturn, .faultsList, .faultsAdd, .faultsClear, .logRead,
            .logClear, .testCards, .rotateKey, .index, .serverOptions, .methodNotAllowed, .notFound:
            return .pass
        }
        if let problem = Self.idempotencyKeyProblem(key) {
            return .answer(refuse(400, "INVALID_REQUEST", problem), replayed: false)
        }
        guard let digest = RequestDigest(method: request.method, path: request.path, body: request.body) else {
            return .answer(refuse(500, "INTERNAL_ERROR", "the request could not be hashed"), replayed: false)
        }
        let scope = IdempotencyStore.Scope(paymentId: paymentId, key: key)
        let now = settings.now()
        switch state.withLock({ $0.idempotency.admit(scope, digest: digest, now: now) }) {
        case .handle:
            return .handle(scope)
        case .replay(var stored):
            stored.headers.append(Self.replayedHeader)
            return .answer(stored, replayed: true)
        case .inProgress:
            return .answer(
                refuse(
                    409, "REQUEST_IN_PROGRESS",
                    "a request with this Idempotency-Key is still being processed; ask again shortly"),
                replayed: false)
        case .keyReused:
            return .answer(
                refuse(
                    422, "IDEMPOTENCY_KEY_REUSED",
                    "this Idempotency-Key was used for a different request (method, path or body) on this payment"),
                replayed: false)
        }
    }

    /// Ends a request admitted with `.handle`: stores what the gateway meant to answer.
    func finishIdempotent(_ scope: IdempotencyStore.Scope, answer: HTTPResponse) {
        let now = settings.now()
        state.withLock { $0.idempotency.finish(scope, answer: answer, now: now) }
    }

    /// Why a key is refused (`400 INVALID_REQUEST`), or `nil` when it is usable: not empty, at
    /// most 255 bytes of UTF-8, no control character.
    static func idempotencyKeyProblem(_ key: String) -> String? {
        if key.isEmpty { return "the Idempotency-Key header is empty" }
        if key.utf8.count > idempotencyKeyLimit {
            return "the Idempotency-Key header is longer than \(idempotencyKeyLimit) bytes"
        }
        if key.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the Idempotency-Key header contains a control character"
        }
        return nil
    }
}
