import Foundation
import JWE
import Testing

@testable import PaymentFlow

/// The wire module on its own: request shapes from GATEWAY.md and the seeds,
/// strict decoding, the error table, key selection.
@Suite struct GatewayAPITests {
    static let endpoints = GatewayAPI.Endpoints(
        apiBaseURL: URL(string: "https://shop.example/api/")!, checkoutAPIBaseURL: URL(string: "https://gw.example/x")!,
        checkoutBaseURL: URL(string: "https://pay.example")!, paymentId: "p 1/2", verificationKey: "vk", timeout: 7)
    static let id = UUID(uuidString: "6F9619FF-8B86-4011-B42D-00C04FC964FF")!

    func request(_ call: GatewayCall) throws -> HTTPRequest {
        try GatewayAPI.request(call, endpoints: Self.endpoints, requestId: Self.id).get()
    }

    @Test func statusLookupIsTheSeedsRequest() throws {
        let r = try request(.statusLookup)
        #expect(r.method == "GET")
        // Base path kept, its trailing slash not doubled, the id percent-encoded as one segment.
        #expect(r.url.absoluteString == "https://shop.example/api/checkout/api/egw/v1/payments/p%201%2F2")
        #expect(r.headers.first { $0.name == "Obp-Verification-Key" }?.value == "vk")
        #expect(r.headers.first { $0.name == "X-Request-Id" }?.value == "6f9619ff-8b86-4011-b42d-00c04fc964ff")
        #expect(r.headers.contains { $0.name == "User-Agent" && $0.value.hasPrefix("EGWPay-Linux/") })
        #expect(r.body == nil)
        #expect(r.timeout == 7)
        #expect(!r.followRedirects)
    }

    @Test func cardEndpointsAndBodies() throws {
        let create = try request(.createSession(encryptedCard: "a.b.c.d.e", idempotencyKey: Self.id))
        #expect(create.method == "POST")
        #expect(
            create.url.absoluteString == "https://gw.example/x/checkout/api/egw/v1/payments/p%201%2F2/card-sessions")
        #expect(create.body == Array(#"{"encryptedCard":"a.b.c.d.e"}"#.utf8))
        #expect(create.headers.contains { $0.name == "Content-Type" && $0.value == "application/json" })
        let notification = try #require(
            GatewayAPI.notificationURL(checkoutBaseURL: Self.endpoints.checkoutBaseURL!, sessionId: "s_1"))
        #expect(notification.absoluteString == "https://pay.example/checkout/3ds/notification/s_1")
        let auth = try request(.authenticate(sessionId: "s_1", notificationURL: notification, idempotencyKey: Self.id))
        #expect(auth.url.path.hasSuffix("/card-sessions/s_1/authentication"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(auth.body ?? [])) as? [String: Any])
        #expect(json["notificationUrl"] as? String == "https://pay.example/checkout/3ds/notification/s_1")
        let browser = try #require(json["browser"] as? [String: Any])
        #expect(browser["language"] as? String == "en-GB")
        #expect(browser["timeZoneOffsetMinutes"] as? Int == 0)
        #expect(try request(.challengeResult(sessionId: "s_1", idempotencyKey: Self.id)).body == Array("{}".utf8))
        #expect(try request(.readSession(sessionId: "s_1")).method == "GET")
        let key = try request(.keySet)
        #expect(key.url.absoluteString == "https://pay.example/checkout/.well-known/jwks.json")
        #expect(!key.headers.contains { $0.name == "Obp-Verification-Key" })  // the key endpoint needs none
    }

    @Test func missingBaseURLIsInvalidRequest() {
        var endpoints = Self.endpoints
        endpoints.apiBaseURL = nil
        guard case .failure(let error) = GatewayAPI.request(.statusLookup, endpoints: endpoints, requestId: Self.id)
        else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .invalidRequest)
    }

    static func response(_ status: Int, _ body: String) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: status, body: Array(body.utf8), url: URL(string: "https://gw.example")!))
    }

    /// GATEWAY.md's error table, row by row: the SDK code, and whether the answer leaves the step in
    /// doubt (money may have moved) or is a refusal that says nothing was done.
    @Test(arguments: [
        (400, "INVALID_REQUEST", PaymentError.Code.invalidRequest, "refused"),
        (401, "INVALID_VERIFICATION_KEY", .invalidRequest, "refused"),
        (404, "PAYMENT_NOT_FOUND", .invalidRequest, "refused"), (404, "SESSION_NOT_FOUND", .invalidRequest, "refused"),
        (409, "PAYMENT_ALREADY_PROCESSED", .cardSessionFailed, "doubt, no resend"),
        (422, "IDEMPOTENCY_KEY_REUSED", .invalidResponse, "doubt, no resend"),
        (422, "CARD_BRAND_NOT_ACCEPTED", .cardBrandNotAccepted, "refused"),
        (422, "DECRYPTION_FAILED", .encryptionFailed, "refused"), (500, "ANYTHING", .cardSessionFailed, "doubt"),
        (503, "ANYTHING", .cardSessionFailed, "doubt"), (400, "SOMETHING_ELSE", .invalidResponse, "doubt"),
        (418, "TEAPOT", .invalidResponse, "doubt"), (409, "REQUEST_IN_PROGRESS", .cardSessionFailed, "in progress"),
    ])
    func errorTable(status: Int, code: String, expected: PaymentError.Code, kind: String) {
        let reply = GatewayAPI.decodeSession(
            .createSession(encryptedCard: "x", idempotencyKey: Self.id),
            Self.response(status, #"{"error":{"code":"\#(code)","message":"m"}}"#))
        switch (reply, kind) {
        case (.refused(let error), "refused"), (.doubtful(let error, .conflict), "doubt, no resend"),
            (.doubtful(let error, .answerLost), "doubt"), (.inProgress(let error), "in progress"):
            #expect(error.code == expected)
            #expect(error.httpStatus == status)
        default:
            Issue.record("\(status) \(code): expected \(kind), got \(reply)")
        }
    }

    /// A 2xx a POST may not give (202, 204) means the gateway acted and the answer is not the one expected.
    @Test(arguments: [202, 204, 200])
    func unexpectedSuccessStatusLeavesThePOSTInDoubt(status: Int) {
        let reply = GatewayAPI.decodeSession(
            .createSession(encryptedCard: "x", idempotencyKey: Self.id),
            .success(HTTPResponse(status: status, body: [], url: URL(string: "https://gw.example")!)))
        guard case .doubtful(let error, .answerLost) = reply else {
            Issue.record("\(status): expected doubt, got \(reply)")
            return
        }
        #expect(error.code == .invalidResponse)
    }

    /// Issue 19: sessions are read as strictly as keys. A member given twice is refused (in doubt), not
    /// resolved by whichever copy a decoder keeps (Foundation's JSONDecoder kept the last: COMPLETED).
    @Test(arguments: [
        #"{"sessionId":"s_1","status":"FAILED","status":"COMPLETED","failure":{"code":"X"}}"#,
        #"{"sessionId":"s_1","status":"COMPLETED","transStatus":"N","transStatus":"Y"}"#,
    ])
    func aSessionAnswerWithADuplicatedMemberIsInDoubt(body: String) {
        let reply = GatewayAPI.decodeSession(
            .readSession(sessionId: "s_1"),
            .success(HTTPResponse(status: 200, body: Array(body.utf8), url: URL(string: "https://gw.example")!)))
        guard case .doubtful(let error, _) = reply else {
            Issue.record("expected doubt, got \(reply)")
            return
        }
        #expect(error.code == .invalidResponse)
    }

    /// Required members missing or of the wrong type are named; unknown members are ignored.
    @Test func sessionMembersAreCheckedByName() {
        func reason(_ body: String) -> String? {
            let reply = GatewayAPI.decodeSession(
                .readSession(sessionId: "s_1"),
                .success(HTTPResponse(status: 200, body: Array(body.utf8), url: URL(string: "https://gw.example")!)))
            if case .doubtful(let error, _) = reply { return error.reason }
            return nil
        }
        #expect(reason(#"{"status":"COMPLETED"}"#)?.contains(#""sessionId""#) == true)
        #expect(reason(#"{"sessionId":"s_1","status":7}"#)?.contains(#""status" has the wrong type"#) == true)
        #expect(
            reason(#"{"sessionId":"s_1","status":"CHALLENGE_REQUIRED","challenge":{"acsUrl":"https://a"}}"#)?
                .contains(#""challenge.creq""#) == true)
        #expect(reason(#"{"sessionId":"s_1","status":"COMPLETED","extra":[1],"transStatus":null}"#) == nil)
    }

    @Test func challengeNotCompletedOnlyForChallengeResult() {
        let body = #"{"error":{"code":"CHALLENGE_NOT_COMPLETED","message":"no answer yet"}}"#
        #expect(
            GatewayAPI.decodeSession(
                .challengeResult(sessionId: "s", idempotencyKey: Self.id), Self.response(409, body))
                == .challengeNotCompleted)
        guard
            case .doubtful = GatewayAPI.decodeSession(
                .createSession(encryptedCard: "x", idempotencyKey: Self.id), Self.response(409, body))
        else {
            Issue.record("CHALLENGE_NOT_COMPLETED to a creation is out of protocol")
            return
        }
    }

    /// GATEWAY.md: every POST carries `Idempotency-Key`; reads carry none.
    @Test func idempotencyKeyOnEveryPOSTOnly() throws {
        let key = UUID(uuidString: "11111111-2222-4333-8444-555555555555")!
        let posts: [GatewayCall] = [
            .createSession(encryptedCard: "x", idempotencyKey: key),
            .authenticate(sessionId: "s", notificationURL: URL(string: "https://n")!, idempotencyKey: key),
            .challengeResult(sessionId: "s", idempotencyKey: key),
        ]
        for call in posts {
            let r = try request(call)
            #expect(r.method == "POST")
            #expect(r.headers.filter { $0.name == "Idempotency-Key" }.map(\.value) == [key.uuidString.lowercased()])
        }
        for call in [GatewayCall.statusLookup, .keySet, .readSession(sessionId: "s")] {
            #expect(!(try request(call)).headers.contains { $0.name == "Idempotency-Key" })
        }
    }

    /// CONTRACT.md section 3: add or replace one `method` item; every other byte of the URL stays.
    @Test(arguments: [
        ("https://pay.example/c/p_1?sig=a%2Bb&x=1", "card", "https://pay.example/c/p_1?sig=a%2Bb&x=1&method=card"),
        ("https://pay.example/c/p_1?method=bank&sig=a%2Bb", "card", "https://pay.example/c/p_1?method=card&sig=a%2Bb"),
        ("https://pay.example/c/p_1", "click-to-pay", "https://pay.example/c/p_1?method=click-to-pay"),
        ("https://pay.example/c/p_1?a=%20b#frag", "bank", "https://pay.example/c/p_1?a=%20b&method=bank#frag"),
        ("https://pay.example/c/p_1?method=x&method=y&z=%2F", "card", "https://pay.example/c/p_1?method=card&z=%2F"),
        ("https://pay.example/c/p_1?sig=a%2Bb", "unknown", "https://pay.example/c/p_1?sig=a%2Bb"),
    ])
    func preferredMethodTouchesOnlyTheMethodItem(url: String, method: String, expected: String) {
        let page = GatewayAPI.checkoutPage(checkoutURL: URL(string: url)!, preferredMethod: method)
        #expect(page.absoluteString == expected)
    }

    @Test func noPreferredMethodLeavesTheURLAlone() {
        let url = URL(string: "https://pay.example/c/p_1?sig=a%2Bb&method=bank")!
        #expect(GatewayAPI.checkoutPage(checkoutURL: url, preferredMethod: nil) == url)
    }

    @Test func fiveHundredOnAReadIsNetworkError() {
        let reply = GatewayAPI.decodeSession(.readSession(sessionId: "s"), Self.response(503, "busy"))
        guard case .doubtful(let error, _) = reply else {
            Issue.record("expected a read that did not succeed")
            return
        }
        #expect(error.code == .networkError)
    }

    @Test func unknownKeyOnlyOnCreation() {
        let body = #"{"error":{"code":"UNKNOWN_KEY","message":"rotated"}}"#
        #expect(
            GatewayAPI.decodeSession(
                .createSession(encryptedCard: "x", idempotencyKey: Self.id), Self.response(422, body)) == .unknownKey)
    }

    @Test func strictDecoding() {
        // Unknown fields are ignored.
        let ok = GatewayAPI.decodeSession(
            .createSession(encryptedCard: "x", idempotencyKey: Self.id),
            Self.response(201, #"{"sessionId":"s","status":"COMPLETED","extra":[1,2],"transStatus":null}"#))
        #expect(ok == .session(SessionSnapshot(sessionId: "s", status: .completed, transStatus: nil)))
        // Missing required field, wrong type, unknown status, challenge without its data, FAILED without failure:
        // for a POST the gateway acted, so these are lost answers (read back), carrying invalidResponse.
        for body in [
            #"{"status":"COMPLETED"}"#, #"{"sessionId":5,"status":"COMPLETED"}"#, #"{"sessionId":"s","status":"DONE"}"#,
            #"{"sessionId":"s","status":"FAILED"}"#, "not json",
        ] {
            guard
                case .doubtful(let error, _) = GatewayAPI.decodeSession(
                    .createSession(encryptedCard: "x", idempotencyKey: Self.id), Self.response(201, body))
            else {
                Issue.record("expected doubt for \(body)")
                continue
            }
            #expect(error.code == .invalidResponse)
        }
        let challengeless = GatewayAPI.decodeSession(
            .authenticate(sessionId: "s", notificationURL: URL(string: "https://n")!, idempotencyKey: Self.id),
            Self.response(200, #"{"sessionId":"s","status":"CHALLENGE_REQUIRED"}"#))
        guard case .doubtful = challengeless else {
            Issue.record("CHALLENGE_REQUIRED without challenge")
            return
        }
        // Out of protocol for the endpoint: CHALLENGE_REQUIRED answered to creation.
        let early = GatewayAPI.decodeSession(
            .createSession(encryptedCard: "x", idempotencyKey: Self.id),
            Self.response(
                201, #"{"sessionId":"s","status":"CHALLENGE_REQUIRED","challenge":{"acsUrl":"https://a","creq":"c"}}"#))
        guard case .doubtful = early else {
            Issue.record("CHALLENGE_REQUIRED at creation")
            return
        }
        // Another session's answer.
        let other = GatewayAPI.decodeSession(
            .readSession(sessionId: "s"), Self.response(200, #"{"sessionId":"t","status":"COMPLETED"}"#))
        guard case .doubtful(let error, _) = other else {
            Issue.record("another session")
            return
        }
        #expect(error.code == .invalidResponse)
    }

    /// CONTRACT.md: in `.live` every URL must be `https`; the issuer's challenge page is no exception.
    @Test func plainHTTPChallengePageOnlyInTheSandbox() {
        let call = GatewayCall.authenticate(
            sessionId: "s", notificationURL: URL(string: "https://n")!, idempotencyKey: Self.id)
        let body =
            #"{"sessionId":"s","status":"CHALLENGE_REQUIRED","challenge":{"acsUrl":"http://acs.example/c","creq":"c"}}"#
        guard
            case .doubtful(let error, _) = GatewayAPI.decodeSession(
                call, Self.response(200, body), allowsPlainHTTP: false)
        else {
            Issue.record("an http acsUrl accepted in live")
            return
        }
        #expect(error.code == .invalidResponse)
        guard case .session = GatewayAPI.decodeSession(call, Self.response(200, body), allowsPlainHTTP: true) else {
            Issue.record("an http acsUrl refused in the sandbox")
            return
        }
        let secure = body.replacingOccurrences(of: "http://", with: "https://")
        guard case .session = GatewayAPI.decodeSession(call, Self.response(200, secure), allowsPlainHTTP: false) else {
            Issue.record("an https acsUrl refused in live")
            return
        }
    }

    @Test func failedSessionCodes() {
        func code(_ failure: String, _ trans: String?) -> PaymentError.Code {
            GatewayAPI.sessionFailure(code: failure, message: "m", transStatus: trans, source: "s").code
        }
        #expect(code("CARD_DECLINED", nil) == .cardSessionFailed)
        #expect(code("CARD_BRAND_NOT_ACCEPTED", nil) == .cardBrandNotAccepted)
        #expect(code("AUTHENTICATION_REJECTED", "R") == .authenticationFailed)
        #expect(code("AUTHENTICATION_FAILED", "N") == .authenticationFailed)
        #expect(code("WHATEVER", "N") == .authenticationFailed)
    }

    @Test(arguments: [
        ("max-age=300", 300.0), ("public, max-age=60", 60), ("MAX-AGE=5", 5), ("no-store, max-age=60", 0),
        ("no-cache", 0), ("max-age=abc", 0), ("max-age=999999", 86_400), ("", 0),
    ])
    func cacheControl(header: String, seconds: Double) {
        #expect(GatewayAPI.maxAge(header) == seconds)
    }

    @Test func keySelection() throws {
        let good = try RSAPrivateKey.generate(bits: 2048, kid: "good").publicKey
        let other = try RSAPrivateKey.generate(bits: 2048, kid: "sig").publicKey
        func member(_ key: RSAPublicKey, alg: String?, use: String?) throws -> String {
            var object = try #require(
                try JSONSerialization.jsonObject(with: Data(key.jwkJSON().utf8)) as? [String: Any])
            object["alg"] = alg
            object["use"] = use
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        // A signing key and a key for another algorithm come first; the encryption key is chosen.
        let set =
            #"{"keys":[\#(try member(other, alg: "RSA-OAEP-256", use: "sig")),\#(try member(other, alg: "RSA1_5", use: nil)),\#(try member(good, alg: "RSA-OAEP-256", use: nil))]}"#
        let response = HTTPResponse(
            status: 200, headers: [HTTPHeader("Cache-Control", "max-age=120")], body: Array(set.utf8),
            url: URL(string: "https://pay.example")!)
        let choice = try GatewayAPI.decodeKeySet(.success(response)).get()
        #expect(choice.key.kid == "good")
        #expect(choice.maxAge == 120)
        // Nothing usable, and not JSON: encryptionKeyUnavailable.
        for body in [#"{"keys":[\#(try member(other, alg: "RSA-OAEP", use: "enc"))]}"#, #"{"nokeys":1}"#, "<html>"] {
            let bad = HTTPResponse(status: 200, body: Array(body.utf8), url: URL(string: "https://pay.example")!)
            guard case .failure(let error) = GatewayAPI.decodeKeySet(.success(bad)) else {
                Issue.record("expected failure for \(body.prefix(20))")
                continue
            }
            #expect(error.code == .encryptionKeyUnavailable)
        }
    }

    /// The key set is parsed once, strictly: a duplicated member anywhere refuses the set, where
    /// JSONSerialization used to keep one of the two (a second `alg` or `n` chosen by the parser).
    @Test func keySetWithADuplicateMemberIsRefused() throws {
        let good = try RSAPrivateKey.generate(bits: 2048, kid: "good").publicKey
        let key = try #require(
            try JSONSerialization.jsonObject(with: Data(good.jwkJSON().utf8)) as? [String: Any])
        var object = key
        object["alg"] = "RSA-OAEP-256"
        let member = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let valid = #"{"keys":[\#(member)]}"#
        let bodies = [
            #"{"keys":[{"alg":"RSA1_5",\#(member.dropFirst())]}"#,  // a second alg inside the key
            #"{"keys":[],"keys":[\#(member)]}"#,  // a second keys array
        ]
        let url = URL(string: "https://pay.example")!
        #expect(
            try GatewayAPI.decodeKeySet(.success(HTTPResponse(status: 200, body: Array(valid.utf8), url: url))).get()
                .key.kid == "good")
        for body in bodies {
            let response = HTTPResponse(status: 200, body: Array(body.utf8), url: url)
            guard case .failure(let error) = GatewayAPI.decodeKeySet(.success(response)) else {
                Issue.record("accepted a key set with a duplicate member: \(body.prefix(40))")
                continue
            }
            #expect(error.code == .encryptionKeyUnavailable)
            guard case .flow(let cause)? = error.underlying else {
                Issue.record("no underlying cause: \(error)")
                continue
            }
            #expect(cause.error.code == .invalidResponse)
            #expect(cause.error.reason.contains("duplicate member"), "\(cause.error)")
        }
    }

    @Test func requestBodiesForObserversAreRedacted() {
        let (body, header) = GatewayAPI.redactedRequestBody(
            .createSession(
                encryptedCard: "eyJhbGciOiJSU0EtT0FFUC0yNTYiLCJlbmMiOiJBMjU2R0NNIn0.a.b.c.d", idempotencyKey: Self.id),
            [1])
        #expect(body == #"{"encryptedCard":"<JWE 59 bytes>"}"#)
        #expect(header == nil || header?.contains("RSA-OAEP-256") == true)
        let headers = GatewayAPI.redactedHeaders([HTTPHeader("Obp-Verification-Key", "secret-key-1")])
        #expect(headers.first?.value == Redactor.fingerprint("secret-key-1"))
        #expect(headers.first?.value.hasPrefix("vk#") == true)
    }

    @Test func redactorMasksDigitRuns() {
        let redactor = Redactor(secrets: ["topsecret"])
        // CardValidation's one rule and one masked form (`CardNumberRedaction`) for every text, the
        // gateway's and the host's too: Luhn-valid runs of 12-19 digits; the secret everywhere.
        #expect(redactor.scrub("card 4111 1111 1111 1111 ok") == "card •••• 1111 ok")
        #expect(redactor.scrub("order 4111111111111112") == "order 4111111111111112")  // fails Luhn: an id
        #expect(redactor.scrub("order 123456789") == "order 123456789")
        #expect(redactor.scrub("pan 4111-1111-1111-1111") == "pan •••• 1111")
        // Ids are never half-masked: the 6-digit tail of a session id is not a card number.
        let body = #"{"sessionId":"cs_b9b501d1d854bb718002"}"#
        #expect(redactor.scrub(body) == body)
        #expect(redactor.scrub("key topsecret") == "key \(Redactor.fingerprint("topsecret"))")
    }

    /// Issue 34: the key is replaced before card numbers are scanned. A key holding a Luhn-valid digit
    /// run (4111 1111 1111 1111) was masked in part first (`vk_•••• 1111c0de`), then no longer matched
    /// for replacement: its tail stayed in clear.
    @Test func theKeyIsReplacedBeforeCardNumbersAreScanned() {
        let key = "vk_4111111111111111c0de"
        let redactor = Redactor(secrets: [key])
        let scrubbed = redactor.scrub("key \(key) sent")
        #expect(scrubbed == "key \(Redactor.fingerprint(key)) sent")
        #expect(!scrubbed.contains("c0de") && !scrubbed.contains("••••"))
        // Card numbers beside it are still masked.
        #expect(redactor.scrub("\(key) 4111 1111 1111 1111") == "\(Redactor.fingerprint(key)) •••• 1111")
    }
}
