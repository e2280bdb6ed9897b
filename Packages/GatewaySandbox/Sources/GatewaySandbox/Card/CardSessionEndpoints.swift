import EGWWire
import StatusMapping

extension SandboxCore {
    /// `GET {checkoutBaseURL}/checkout/.well-known/jwks.json` with `Cache-Control: max-age=N`.
    func jwks() -> HTTPResponse {
        .json(200, keys.jwks(), headers: [("Cache-Control", "max-age=\(settings.keyMaxAge)")])
    }

    /// `POST {checkoutAPIBaseURL}/checkout/api/egw/v1/payments/{id}/card-sessions` `{"encryptedCard": JWE}`.
    func createCardSession(_ request: HTTPRequest, paymentId: String) -> HTTPResponse {
        let payment: PaymentRecord
        switch authorize(request, paymentId: paymentId) {
        case .success(let found): payment = found
        case .failure(let error): return error.response
        }
        let body: JSONValue
        switch jsonObjectBody(request) {
        case .success(let object): body = object
        case .failure(let error): return error.response
        }
        guard let value = body[member: "encryptedCard"] else {
            return .error(400, "INVALID_REQUEST", "\"encryptedCard\" is required")
        }
        guard let compact = value.stringValue else {
            return .error(400, "INVALID_REQUEST", "\"encryptedCard\" must be a string, not \(value.typeName)")
        }
        if Self.isProcessed(payment.status) {
            return .error(409, "PAYMENT_ALREADY_PROCESSED", "payment \(paymentId) is already \(payment.status)")
        }
        let opened = keys.withPlaintext(of: compact) { plaintext in
            Result { () throws(CardData.Problem) in try CardData.parse(plaintext) }
        }
        let card: CardData
        switch opened {
        case .success(.success(let parsed)): card = parsed
        case .success(.failure(let problem)): return .error(400, "INVALID_REQUEST", "card data: \(problem.reason)")
        case .failure(.unknownKey(let kid)):
            return .error(
                422, "UNKNOWN_KEY",
                "the card was encrypted to key \"\(kid)\", which is not the current key; fetch the key again")
        case .failure(.decryptionFailed(let reason)):
            return .error(422, "DECRYPTION_FAILED", "encryptedCard could not be decrypted: \(reason)")
        }

        let behaviour = card.behaviour
        var failure: CardSession.Failure?
        if !card.isLuhnValid {
            failure = CardSession.Failure(code: "INVALID_CARD", message: "the card number fails the Luhn check")
        } else if behaviour == .brandNotAccepted {
            return .error(422, "CARD_BRAND_NOT_ACCEPTED", "this store does not accept American Express")
        } else if card.isExpired(at: settings.now()) {
            failure = CardSession.Failure(code: "EXPIRED_CARD", message: "the card has expired")
        }
        let last4 = card.last4

        let session = state.withLock { state -> CardSession in
            var sessionId: String
            repeat {
                sessionId = "cs_" + state.ids.hex(bytes: 10)
            } while state.sessions[sessionId] != nil
            let acsTransID = Self.uuid(&state.ids)
            var session =
                if let failure {
                    CardSession(
                        id: sessionId, paymentId: paymentId, acsTransID: acsTransID, last4: last4, failure: failure)
                } else {
                    CardSession(
                        id: sessionId, paymentId: paymentId, acsTransID: acsTransID, last4: last4,
                        behaviour: behaviour)
                }
            Self.finalize(&session, in: &state)
            state.sessions[sessionId] = session
            state.sessionsByACSTransID[acsTransID] = sessionId
            state.sessionIDsByPayment[paymentId, default: []].append(sessionId)
            return session
        }
        return .json(201, sessionView(session).value)
    }

    /// `GET .../card-sessions/{sessionId}`: the session as it stands.
    func getCardSession(_ request: HTTPRequest, _ paymentId: String, _ sessionId: String) -> HTTPResponse {
        if case .failure(let error) = authorize(request, paymentId: paymentId) { return error.response }
        guard let session = state.withLock({ $0.sessions[sessionId] }), session.paymentId == paymentId else {
            return Self.sessionNotFound(sessionId)
        }
        return .json(200, sessionView(session).value)
    }

    /// `POST .../card-sessions/{sessionId}/authentication` `{"notificationUrl", "browser"}`.
    func authenticate(_ request: HTTPRequest, _ paymentId: String, _ sessionId: String) -> HTTPResponse {
        if case .failure(let error) = authorize(request, paymentId: paymentId) { return error.response }
        let body: JSONValue
        switch jsonObjectBody(request) {
        case .success(let object): body = object
        case .failure(let error): return error.response
        }
        guard state.withLock({ $0.sessions[sessionId]?.paymentId == paymentId }) else {
            return Self.sessionNotFound(sessionId)
        }
        guard let notificationURL = body[member: "notificationUrl"]?.stringValue else {
            return .error(400, "INVALID_REQUEST", "\"notificationUrl\" is required and must be a string")
        }
        let expectedPath = "/\(Route.checkoutPrefix)/checkout/3ds/notification/\(sessionId)"
        guard Self.isHTTPURL(notificationURL), Self.path(of: notificationURL) == expectedPath else {
            return .error(
                400, "INVALID_REQUEST",
                "\"notificationUrl\" must be {checkoutBaseURL}/checkout/3ds/notification/\(sessionId) (path \(expectedPath))"
            )
        }
        guard let browser = body[member: "browser"], case .object = browser else {
            return .error(400, "INVALID_REQUEST", "\"browser\" is required and must be an object")
        }
        // EMV 3DS 2.2's browser fields, each in its format (EGWWire's one definition); the error names
        // the member and the rule, never the value.
        let fields: ThreeDSBrowserFields
        do throws(ThreeDSFieldError) {
            fields = try ThreeDSBrowserFields(json: browser)
        } catch {
            return .error(400, "INVALID_REQUEST", "malformed browser data: \(error)")
        }
        if let problem = fields.problems.first {
            return .error(400, "INVALID_REQUEST", "malformed browser data: \(problem)")
        }
        var compInd: String?
        if let value = body[member: "threeDSCompInd"], value != .null {
            guard let text = value.stringValue, ThreeDSCompInd(rawValue: text) != nil else {
                return .error(400, "INVALID_REQUEST", "\"threeDSCompInd\" must be \"Y\", \"N\" or \"U\"")
            }
            compInd = text
        }
        return transition(sessionId) {
            $0.authenticate(notificationURL: notificationURL, compInd: compInd, browserComplete: fields.isComplete)
        }
    }

    /// `POST .../card-sessions/{sessionId}/challenge-result` `{}`.
    func challengeResult(_ request: HTTPRequest, _ paymentId: String, _ sessionId: String) -> HTTPResponse {
        if case .failure(let error) = authorize(request, paymentId: paymentId) { return error.response }
        if case .failure(let error) = jsonObjectBody(request, emptyIsObject: true) { return error.response }
        guard state.withLock({ $0.sessions[sessionId]?.paymentId == paymentId }) else {
            return Self.sessionNotFound(sessionId)
        }
        return transition(sessionId) { $0.challengeResult() }
    }

    /// Runs one state-machine event on a session and answers with the session, or with the
    /// refusal's status and code (nothing changes then).
    private func transition(_ sessionId: String, _ event: (inout CardSession) -> CardSession.Transition) -> HTTPResponse
    {
        let outcome = state.withLock { state -> Result<CardSession, ErrorResponse> in
            guard var session = state.sessions[sessionId] else {
                return .failure(ErrorResponse(Self.sessionNotFound(sessionId)))
            }
            switch event(&session) {
            case .refused(let refusal):
                return .failure(ErrorResponse(.error(refusal.status, refusal.code, refusal.message)))
            case .changed:
                Self.finalize(&session, in: &state)
                state.sessions[sessionId] = session
            case .unchanged:
                break
            }
            return .success(session)
        }
        switch outcome {
        case .success(let session): return .json(200, sessionView(session).value)
        case .failure(let error): return error.response
        }
    }

    /// Settles or fails the payment when a session reaches a final state. A session that
    /// completes on a payment already processed fails with `PAYMENT_ALREADY_PROCESSED`.
    static func finalize(_ session: inout CardSession, in state: inout SandboxState) {
        guard session.isFinal, var payment = state.payments[session.paymentId] else { return }
        if session.status == "COMPLETED" {
            if isProcessed(payment.status) {
                session.supersede()
            } else {
                payment.status = "SETTLED"
                payment.method = "card"
            }
        } else if !isProcessed(payment.status) {
            payment.status = "FAILED"
        }
        state.payments[session.paymentId] = payment
    }

    /// A payment that must not be paid again: succeeded (StatusMapping) or sent for processing.
    static func isProcessed(_ status: String) -> Bool {
        PaymentOutcome(platformStatus: status) == .succeeded || status == "SENT_FOR_PROCESSING"
    }

    static func sessionNotFound(_ sessionId: String) -> HTTPResponse {
        .error(404, "SESSION_NOT_FOUND", "no card session \(sessionId) on this payment")
    }

    /// `{"sessionId", "status", "transStatus"?, "challenge"?: {"acsUrl", "creq"}, "failure"?: {"code", "message"}}`.
    func sessionView(_ session: CardSession) -> JSONObjectBuilder {
        var object = JSONObjectBuilder(["sessionId": .string(session.id), "status": .string(session.status)])
        object["transStatus"] = session.transStatus.map { .string($0) }
        if session.method != nil {
            object["threeDSMethod"] =
                ThreeDSMethodField(url: "\(acsBase)/method", data: ThreeDSMessages.methodData(for: session, checkoutBase))
                .json
        }
        if case .challengeRequired = session.state {
            object["challenge"] =
                JSONObjectBuilder([
                    "acsUrl": .string("\(acsBase)/challenge"), "creq": .string(ThreeDSMessages.creq(for: session)),
                ]).value
        }
        if let failure = session.failure {
            object["failure"] =
                JSONObjectBuilder(["code": .string(failure.code), "message": .string(failure.message)])
                .value
        }
        return object
    }

    static func path(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "" }
        let pathAndMore = rest[slash...]
        let end = pathAndMore.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? pathAndMore.endIndex
        return String(pathAndMore[..<end])
    }

    /// A version-4-shaped UUID from the seeded generator (deterministic per seed).
    static func uuid(_ random: inout SeededRandom) -> String {
        var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let chars = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }
}
