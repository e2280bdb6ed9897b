import Foundation
import JWE
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// Card sessions with `encryptedCard` made by the JWE package, against GATEWAY.md's
    /// test-card table (the expected values below are copied from that table, not from the
    /// sandbox's own list).
    @Suite struct CardSessions {
        enum Expected: Sendable, CustomStringConvertible {
            /// COMPLETED or FAILED after a frictionless authentication with this transStatus.
            case frictionless(String, String)
            /// CHALLENGE_REQUIRED after authentication.
            case challenge
            /// Final at creation with this status.
            case atCreation(String)
            /// 422 with this code at creation.
            case refused(String)

            var description: String {
                switch self {
                case .frictionless(let status, let ts): "frictionless \(ts) -> \(status)"
                case .challenge: "challenge"
                case .atCreation(let status): "\(status) at creation"
                case .refused(let code): "422 \(code)"
                }
            }
        }

        static let table: [(String, Expected)] = [
            ("4111111111111111", .frictionless("COMPLETED", "Y")),
            ("5555555555554444", .challenge),
            ("6759649826438453", .challenge),
            ("4000000000003063", .frictionless("COMPLETED", "A")),
            ("5200828282828210", .atCreation("COMPLETED")),
            ("4000000000000002", .atCreation("FAILED")),
            ("6011111111111117", .frictionless("FAILED", "R")),
            ("378282246310005", .refused("CARD_BRAND_NOT_ACCEPTED")),
            // "any other valid number": a Luhn-valid Visa and a 2-series Mastercard (hand-checked with Luhn).
            ("4242424242424242", .frictionless("COMPLETED", "Y")),
            ("2223000048400011", .frictionless("COMPLETED", "Y")),
        ]

        @Test(arguments: table)
        func testCard(_ number: String, _ expected: Expected) throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let created = try flow.createSession(number)
            switch expected {
            case .refused(let code):
                #expect(created.status == 422)
                #expect(created.errorCode == code)
                #expect(gateway.sandbox.paymentStatus(flow.payment.paymentId) == "INITIALIZED")
            case .atCreation(let status):
                #expect(created.status == 201)
                #expect(created.sessionStatus == status)
                if status == "FAILED" { #expect(created.failureCode == "CARD_DECLINED") }
                #expect(
                    gateway.sandbox.paymentStatus(flow.payment.paymentId)
                        == (status == "COMPLETED" ? "SETTLED" : "FAILED"))
            case .frictionless(let status, let transStatus):
                #expect(created.status == 201)
                #expect(created.sessionStatus == "AUTHENTICATION_REQUIRED")
                let sessionId = try #require(created.sessionId)
                let authenticated = try flow.authenticate(sessionId)
                #expect(authenticated.status == 200)
                #expect(authenticated.sessionStatus == status)
                #expect(authenticated.transStatus == transStatus)
                #expect((try authenticated.json())["challenge"] == nil)
                if transStatus == "R" { #expect(authenticated.failureCode == "AUTHENTICATION_REJECTED") }
                #expect(
                    gateway.sandbox.paymentStatus(flow.payment.paymentId)
                        == (status == "COMPLETED" ? "SETTLED" : "FAILED"))
            case .challenge:
                let sessionId = try #require(created.sessionId)
                let authenticated = try flow.authenticate(sessionId)
                #expect(authenticated.sessionStatus == "CHALLENGE_REQUIRED")
                #expect(authenticated.transStatus == "C")
                let challenge = try #require((try authenticated.json())["challenge"] as? [String: Any])
                #expect(challenge["acsUrl"] as? String == "http://127.0.0.1:\(gateway.port)/acs/challenge")
                #expect(challenge["creq"] is String)
                #expect(gateway.sandbox.paymentStatus(flow.payment.paymentId) == "INITIALIZED")
            }
        }

        @Test(arguments: [
            ("5555555555554444", "1234", "COMPLETED", "Y"), ("5555555555554444", "4321", "FAILED", "N"),
            ("6759649826438453", "1234", "COMPLETED", "Y"), ("6759649826438453", "", "FAILED", "N"),
        ])
        func challengeThroughTheIssuersPages(
            _ number: String, _ code: String, _ status: String, _ transStatus: String
        ) throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sessionId = try #require(try flow.createSession(number).sessionId)
            let authenticated = try flow.authenticate(sessionId).json()
            let challenge = try #require(authenticated["challenge"] as? [String: String])

            let pages = try flow.walkChallenge(acsURL: challenge["acsUrl"]!, creq: challenge["creq"]!, code: code)
            #expect(pages.challenge.meta("egw-page") == "acs-challenge")
            #expect(pages.complete.meta("egw-page") == "acs-complete")
            #expect(pages.complete.meta("egw-trans-status") == transStatus)
            #expect(pages.complete.form(id: "cres-form")?.action == gateway.notificationURL(sessionId))
            #expect(pages.notification.status == 200)
            let notification = Page(pages.notification.text)
            #expect(notification.meta("egw-page") == "3ds-notification")
            #expect(notification.meta("egw-session") == sessionId)

            // The cres the issuer posted is base64url JSON of an EMV CRes (decoded with Foundation here).
            let cres = try #require(
                pages.complete.form(id: "cres-form")?.hidden.first(where: { $0.name == "cres" })?.value)
            var base64 = cres.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let decoded = try #require(Data(base64Encoded: base64))
            let message = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: String])
            #expect(message["messageType"] == "CRes")
            #expect(message["transStatus"] == transStatus)
            #expect(message["threeDSServerTransID"] == sessionId)

            let result = try flow.challengeResult(sessionId)
            #expect(result.status == 200)
            #expect(result.sessionStatus == status)
            #expect(result.transStatus == transStatus)
            if status == "FAILED" { #expect(result.failureCode == "AUTHENTICATION_FAILED") }
            // Repeated: the same answer; the session reads the same.
            #expect(try flow.challengeResult(sessionId).sessionStatus == status)
            #expect(try flow.session(sessionId).sessionStatus == status)
            #expect(
                gateway.sandbox.paymentStatus(flow.payment.paymentId) == (status == "COMPLETED" ? "SETTLED" : "FAILED"))
        }

        @Test func challengeOrderIsEnforced() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sessionId = try #require(try flow.createSession("5555555555554444").sessionId)
            let early = try flow.challengeResult(sessionId)
            #expect(early.status == 400)
            #expect(early.errorCode == "INVALID_REQUEST")
            let first = try flow.authenticate(sessionId).json()
            let again = try flow.authenticate(sessionId).json()
            // A repeated authentication gives the same challenge.
            #expect((first["challenge"] as? [String: String]) == (again["challenge"] as? [String: String]))
            let unanswered = try flow.challengeResult(sessionId)  // the buyer has not answered yet
            #expect(unanswered.status == 409)
            #expect(unanswered.errorCode == "CHALLENGE_NOT_COMPLETED")
            #expect(try flow.session(sessionId).sessionStatus == "CHALLENGE_REQUIRED")

            // The issuer's pages refuse bad input and keep serving.
            let acs = URL(string: "http://127.0.0.1:\(gateway.port)/acs/challenge")!
            #expect(try gateway.postForm(acs, Array("creq=bm90IGpzb24".utf8)).status == 400)
            #expect(try gateway.postForm(acs, Array("nothing=here".utf8)).status == 400)
            let submit = URL(string: "http://127.0.0.1:\(gateway.port)/acs/challenge/submit")!
            #expect(try gateway.postForm(submit, Array("acsTransID=nope&code=1234".utf8)).status == 404)
            let notify = try #require(URL(string: gateway.notificationURL(sessionId)))
            #expect(try gateway.postForm(notify, Array("cres=e30".utf8)).status == 400)
        }

        /// GATEWAY.md step 4: challenge-result before the buyer answered is
        /// `409 CHALLENGE_NOT_COMPLETED` and changes nothing; the buyer may still answer, and an
        /// answer on the issuer's page is enough for challenge-result, with or without `cres`
        /// reaching the notification page.
        @Test(arguments: [("1234", "COMPLETED", "Y", "SETTLED"), ("0000", "FAILED", "N", "FAILED")])
        func challengeResultBeforeTheBuyerAnsweredIsChallengeNotCompleted(
            _ code: String, _ status: String, _ transStatus: String, _ paymentStatus: String
        ) throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sessionId = try #require(try flow.createSession("5555555555554444").sessionId)
            let authentication = try flow.authenticate(sessionId)
            #expect(authentication.sessionStatus == "CHALLENGE_REQUIRED")
            for _ in 0..<2 {
                let early = try flow.challengeResult(sessionId)
                #expect(early.status == 409)
                #expect(early.errorCode == "CHALLENGE_NOT_COMPLETED")
                #expect(((try early.json())["error"] as? [String: Any])?["message"] is String)
                #expect(try flow.session(sessionId).sessionStatus == "CHALLENGE_REQUIRED")
                #expect(gateway.sandbox.paymentStatus(flow.payment.paymentId) == "INITIALIZED")
            }

            // Later, the buyer answers; the issuer's page would post cres, but it never arrives.
            let result = try flow.answerChallengeWithoutNotification(authentication, code: code)
            #expect(result.meta("egw-trans-status") == transStatus)
            #expect(try flow.session(sessionId).sessionStatus == "CHALLENGE_REQUIRED")
            let final = try flow.challengeResult(sessionId)
            #expect(final.status == 200)
            #expect(final.sessionStatus == status)
            #expect(final.transStatus == transStatus)
            #expect(gateway.sandbox.paymentStatus(flow.payment.paymentId) == paymentStatus)
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).map(\.status) == [status])
        }

        @Test func cardSessionOnAPaidPaymentIsAlreadyProcessed() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sessionId = try #require(try flow.createSession("4111111111111111").sessionId)
            #expect(try flow.authenticate(sessionId).sessionStatus == "COMPLETED")
            let second = try flow.createSession("4111111111111111")
            #expect(second.status == 409)
            #expect(second.errorCode == "PAYMENT_ALREADY_PROCESSED")

            // Paid through the hosted page first: the same.
            let hosted = CardFlow(gateway)
            let form = try #require(Page(try gateway.get(hosted.payment.checkoutURL).text).form(id: "checkout-form"))
            _ = try gateway.postForm(URL(string: form.action)!, form.body([("choice", "pay")]))
            #expect(try hosted.createSession("5200828282828210").status == 409)
        }

        /// `Sandbox.paymentStatus` is the recorded truth and `Sandbox.cardSessions` shows every
        /// session of the payment, in order, with the last four digits only.
        @Test func paymentStatusAndCardSessionsRecordEachAttempt() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let paymentId = flow.payment.paymentId
            #expect(gateway.sandbox.cardSessions(paymentId: paymentId).isEmpty)
            let declined = try #require(try flow.createSession("4000000000000002").sessionId)
            #expect(gateway.sandbox.paymentStatus(paymentId) == "FAILED")  // no money moved
            let waiting = try #require(try flow.createSession("5555555555554444").sessionId)
            let paying = try #require(try flow.createSession("4111111111111111").sessionId)
            #expect(
                gateway.sandbox.cardSessions(paymentId: paymentId) == [
                    SandboxCardSessionSummary(sessionId: declined, status: "FAILED", last4: "0002"),
                    SandboxCardSessionSummary(sessionId: waiting, status: "AUTHENTICATION_REQUIRED", last4: "4444"),
                    SandboxCardSessionSummary(sessionId: paying, status: "AUTHENTICATION_REQUIRED", last4: "1111"),
                ])
            #expect(try flow.authenticate(paying).sessionStatus == "COMPLETED")
            #expect(gateway.sandbox.paymentStatus(paymentId) == "SETTLED")  // a later session settled it

            // Settled: a further session is refused and none is created.
            let refused = try flow.createSession("4111111111111111")
            #expect(refused.status == 409)
            #expect(refused.errorCode == "PAYMENT_ALREADY_PROCESSED")
            let sessions = gateway.sandbox.cardSessions(paymentId: paymentId)
            #expect(sessions.map(\.id) == [declined, waiting, paying])
            #expect(sessions.map(\.status) == ["FAILED", "AUTHENTICATION_REQUIRED", "COMPLETED"])
            #expect(sessions.map(\.description).joined().contains("4111111111111111") == false)
            #expect(sessions[2].description == "\(paying) COMPLETED •••• 1111")
            // The merchant view lists them in the same order.
            let view = try gateway.get(gateway.url("/sandbox/payments/\(paymentId)")).json()
            let listed = try #require(view["cardSessions"] as? [[String: Any]])
            #expect(listed.compactMap { $0["sessionId"] as? String } == [declined, waiting, paying])
            #expect(gateway.sandbox.cardSessions(paymentId: "pay_unknown").isEmpty)
            #expect(gateway.sandbox.paymentStatus("pay_unknown") == nil)
        }

        @Test func aSessionCompletingAfterAnotherPaidFails() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let waiting = try #require(try flow.createSession("4111111111111111").sessionId)
            #expect(try flow.createSession("5200828282828210").sessionStatus == "COMPLETED")
            let late = try flow.authenticate(waiting)
            #expect(late.sessionStatus == "FAILED")
            #expect(late.failureCode == "PAYMENT_ALREADY_PROCESSED")
            #expect(gateway.sandbox.paymentStatus(flow.payment.paymentId) == "SETTLED")
        }

        @Test func rotationMakesTheOldKidUnknownUntilTheKeyIsFetchedAgain() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let oldKey = try flow.fetchKey()
            let sealedToOld = try flow.seal(CardFlow.cardJSON("4111111111111111"), to: oldKey)
            gateway.sandbox.rotateKey()
            let refused = try flow.create(encryptedCard: sealedToOld)
            #expect(refused.status == 422)
            #expect(refused.errorCode == "UNKNOWN_KEY")
            let newKey = try flow.fetchKey()
            #expect(newKey.kid != oldKey.kid)
            #expect(
                try flow.create(encryptedCard: try flow.seal(CardFlow.cardJSON("4111111111111111"), to: newKey)).status
                    == 201)

            // The same through a rotate-key fault on card-session creation and over the JSON endpoint.
            let other = CardFlow(gateway)
            gateway.sandbox.inject(SandboxFault(endpoint: .cardSessionCreate, kind: .rotateKey))
            #expect(try other.createSession("4111111111111111").errorCode == "UNKNOWN_KEY")
            #expect(try other.createSession("4111111111111111").status == 201)
            let rotated = try gateway.api("POST", gateway.url("/sandbox/rotate-key"), key: nil).json()
            #expect(rotated["kid"] as? String == gateway.sandbox.currentKeyID)
        }

        @Test func undecryptableCardsAreDecryptionFailed() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let key = try flow.fetchKey()
            let good = try flow.seal(CardFlow.cardJSON("4111111111111111"), to: key)
            var parts = good.split(separator: ".").map(String.init)
            // Tampered ciphertext (first character swapped for another base64url character).
            parts[3] = (parts[3].first == "A" ? "B" : "A") + parts[3].dropFirst()
            let tampered = parts.joined(separator: ".")
            // Encrypted to another key that names no kid: tried with the current key, fails.
            let stranger = try RSAPrivateKey.generate(bits: 2048).publicKey.withKid(nil)
            let wrongKey = try JWEEncrypter(recipient: stranger).encrypt(
                Array(CardFlow.cardJSON("4111111111111111").utf8))
            for token in [tampered, wrongKey, "not-a-jwe", "a.b.c.d.e", ""] {
                let response = try flow.create(encryptedCard: token)
                #expect(response.status == 422)
                #expect(response.errorCode == "DECRYPTION_FAILED")
            }
            // The current key with its kid removed from the token header is still accepted.
            let noKid = try JWEEncrypter(recipient: key.withKid(nil)).encrypt(
                Array(CardFlow.cardJSON("4111111111111111").utf8))
            #expect(try flow.create(encryptedCard: noKid).status == 201)
        }

        @Test(arguments: [
            #"{"cardholderName": "A", "cardNumber": "4111111111111111", "expiryMonth": "12", "expiryYear": "34"}"#,
            #"{"cardholderName": "A", "cardNumber": "4111111111111111", "expiryMonth": "12", "expiryYear": "34", "securityCode": "123", "brand": "visa"}"#,
            #"{"cardholderName": "A", "cardNumber": 4111111111111111, "expiryMonth": "12", "expiryYear": "34", "securityCode": "123"}"#,
            #"{"cardholderName": "A", "cardNumber": "4111-1111-1111-1111", "expiryMonth": "12", "expiryYear": "34", "securityCode": "123"}"#,
            #"{"cardholderName": "A", "cardNumber": "4111111111111111", "expiryMonth": "00", "expiryYear": "34", "securityCode": "123"}"#,
            "4111111111111111",
        ])
        func strictCardJSON(_ plaintext: String) throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let response = try flow.create(encryptedCard: try flow.seal(plaintext))
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_REQUEST")
            #expect(!response.text.contains("4111"))
        }

        @Test func luhnFailureAndExpiryFailTheSession() throws {
            // 2030-06-15T00:00:00Z (date -u -d 2030-06-15 +%s).
            let gateway = try TestGateway(now: { Date(timeIntervalSince1970: 1_907_712_000) })
            let luhn = try CardFlow(gateway).createSession("4111111111111112")
            #expect(luhn.sessionStatus == "FAILED")
            #expect(luhn.failureCode == "INVALID_CARD")
            let flow = CardFlow(gateway)
            let expired = try flow.create(
                encryptedCard: try flow.seal(CardFlow.cardJSON("4111111111111111", month: "05", year: "30")))
            #expect(expired.sessionStatus == "FAILED")
            #expect(expired.failureCode == "EXPIRED_CARD")
            let current = try flow.create(
                encryptedCard: try flow.seal(CardFlow.cardJSON("4111111111111111", month: "06", year: "30")))
            #expect(current.sessionStatus == "AUTHENTICATION_REQUIRED")
        }

        @Test func requestErrors() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let url = gateway.sessionsURL(flow.payment.paymentId)
            let sealed = try flow.seal(CardFlow.cardJSON("4111111111111111"))
            let body = #"{"encryptedCard": "\#(sealed)"}"#
            let cases: [(RawResponse, Int, String)] = [
                (
                    try gateway.api("POST", url, key: flow.payment.verificationKey, requestId: nil, json: body), 400,
                    "INVALID_REQUEST"
                ),
                (try gateway.api("POST", url, key: "vk_wrong", json: body), 401, "INVALID_VERIFICATION_KEY"),
                (try gateway.api("POST", url, key: nil, json: body), 401, "INVALID_VERIFICATION_KEY"),
                (
                    try gateway.api(
                        "POST", gateway.sessionsURL("pay_missing"), key: flow.payment.verificationKey, json: body), 404,
                    "PAYMENT_NOT_FOUND"
                ),
                (try flow.create(json: "{}"), 400, "INVALID_REQUEST"),
                (try flow.create(json: #"{"encryptedCard": 42}"#), 400, "INVALID_REQUEST"),
                (try flow.create(json: #"{"encryptedCard": "#), 400, "INVALID_REQUEST"),
                (try flow.create(json: "null"), 400, "INVALID_REQUEST"),
                (try flow.session("cs_missing"), 404, "SESSION_NOT_FOUND"),
                (try flow.authenticate("cs_missing"), 404, "SESSION_NOT_FOUND"),
                (try flow.challengeResult("cs_missing"), 404, "SESSION_NOT_FOUND"),
            ]
            for (response, status, code) in cases {
                #expect(response.status == status)
                #expect(response.errorCode == code)
            }
            // A session belongs to its payment.
            let sessionId = try #require(try flow.create(json: body).sessionId)
            let other = CardFlow(gateway)
            #expect(try other.session(sessionId).errorCode == "SESSION_NOT_FOUND")
            #expect(try flow.session(sessionId).sessionStatus == "AUTHENTICATION_REQUIRED")
        }

        @Test func authenticationBodyIsChecked() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sessionId = try #require(try flow.createSession("4111111111111111").sessionId)
            let bad: [RawResponse] = [
                try flow.authenticate(sessionId, notificationURL: "https://shop.example/3ds"),
                try flow.authenticate(
                    sessionId,
                    notificationURL: "\(gateway.sandbox.checkoutAPIBaseURL)/checkout/3ds/notification/\(sessionId)"),
                try flow.authenticate(sessionId, notificationURL: "not a url"),
                try flow.authenticate(sessionId, browser: "[]"),
                try flow.authenticate(sessionId, browser: #"{"timeZoneOffsetMinutes": "0"}"#),
                try gateway.api(
                    "POST", gateway.sessionsURL(flow.payment.paymentId, "/\(sessionId)/authentication"),
                    key: flow.payment.verificationKey, json: #"{"browser": {}}"#),
            ]
            for response in bad {
                #expect(response.status == 400)
                #expect(response.errorCode == "INVALID_REQUEST")
            }
            #expect(try flow.session(sessionId).sessionStatus == "AUTHENTICATION_REQUIRED")
            #expect(try flow.authenticate(sessionId).sessionStatus == "COMPLETED")
            // A session that needed no authentication refuses one.
            let direct = CardFlow(gateway)
            let directId = try #require(try direct.createSession("5200828282828210").sessionId)
            let refused = try direct.authenticate(directId)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "INVALID_REQUEST")
        }

        @Test func jwksServesTheKeyWithCacheControl() throws {
            let gateway = try TestGateway(keyMaxAge: 60)
            let response = try gateway.get(gateway.jwksURL)
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "max-age=60")
            let key = try #require((try response.json()["keys"] as? [[String: Any]])?.first)
            #expect(key["kty"] as? String == "RSA")
            #expect(key["use"] as? String == "enc")
            #expect(key["alg"] as? String == "RSA-OAEP-256")
            #expect(key["e"] as? String == "AQAB")
            let kid = try #require(key["kid"] as? String)
            let imported = try CardFlow(gateway).fetchKey()
            #expect(imported.bitCount == 2048)
            #expect(imported.kid == kid)
            #expect(kid == TestKeys.shared.publicKey.thumbprint)  // no kid given: the RFC 7638 thumbprint
            #expect(gateway.sandbox.currentKeyID == kid)
        }

        @Test func cardDataNeverLeavesTheSandbox() throws {
            let gateway = try TestGateway()
            var responses: [String] = []
            for number in ["4111111111111111", "5555555555554444", "4000000000000002", "378282246310005"] {
                let flow = CardFlow(gateway)
                let created = try flow.create(
                    encryptedCard: try flow.seal(CardFlow.cardJSON(number, code: "9876", name: "Zelda Secretname")))
                responses.append(created.text)
                if let id = created.sessionId {
                    let auth = try flow.authenticate(id)
                    responses.append(auth.text)
                    if let challenge = (try auth.json())["challenge"] as? [String: String] {
                        let pages = try flow.walkChallenge(
                            acsURL: challenge["acsUrl"]!, creq: challenge["creq"]!, code: "1234")
                        responses += [pages.challenge.html, pages.complete.html, pages.notification.text]
                        responses.append(try flow.challengeResult(id).text)
                    }
                }
                responses.append(try gateway.get(gateway.url("/sandbox/payments/\(flow.payment.paymentId)")).text)
            }
            responses.append(try gateway.get(gateway.url("/sandbox/log")).text)
            responses += gateway.sandbox.requestLog.map(\.description)
            let produced = responses.joined(separator: "\n")
            for secret in [
                "4111111111111111", "5555555555554444", "4000000000000002", "378282246310005", "9876", "Zelda",
            ] {
                #expect(!produced.contains(secret), "\(secret.prefix(4))… leaked")
            }
            #expect(produced.contains("1111"))  // last four digits are allowed (and shown in the payment view)
        }
    }
}
