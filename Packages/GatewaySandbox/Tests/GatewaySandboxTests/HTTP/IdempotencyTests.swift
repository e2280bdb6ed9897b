import Dispatch
import Foundation
import Synchronization
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// `Idempotency-Key` over real HTTP (GATEWAY.md, "Common to every checkout-API call"): the
    /// first answer the gateway meant to give is replayed for the same request, whatever a fault
    /// did to it on the wire.
    @Suite struct Idempotency {
        /// A challenge card: creating its session leaves the payment `INITIALIZED`, so a second
        /// creation would succeed and show up in `cardSessions`.
        static let challengeCard = "5555555555554444"

        /// The headers the handler chose: everything but `Date` (the server's clock).
        static func chosenHeaders(_ response: RawResponse) -> [String] {
            response.headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name): \($0.value)" }
        }

        /// Expects `replay` to be `first` byte for byte, marked replayed.
        static func expectReplay(of first: RawResponse, _ replay: RawResponse) {
            #expect(replay.status == first.status)
            #expect(replay.body == first.body)
            #expect(first.header("Idempotent-Replayed") == nil)
            #expect(replay.header("Idempotent-Replayed") == "true")
            #expect(chosenHeaders(replay).filter { $0 != "Idempotent-Replayed: true" } == chosenHeaders(first))
        }

        @Test func sameKeyAndBodyReplaysTheCreationWithoutASecondSession() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sealed = try flow.seal(CardFlow.cardJSON(Self.challengeCard))
            let first = try flow.create(encryptedCard: sealed, idempotencyKey: "key-1")
            #expect(first.status == 201)
            let sessionId = try #require(first.sessionId)
            let replay = try flow.create(encryptedCard: sealed, idempotencyKey: "key-1")
            Self.expectReplay(of: first, replay)
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).map(\.id) == [sessionId])

            // The log tells the replay apart; the JSON log too.
            let log = gateway.sandbox.requestLog.suffix(2)
            #expect(log.map(\.replayed) == [false, true])
            #expect(log.map(\.status) == [201, 201])
            #expect(log.last?.description.contains("201 replayed") == true)
            let entries = try #require(
                try gateway.get(gateway.url("/sandbox/log")).json()["requests"] as? [[String: Any]])
            #expect(entries.suffix(2).map { $0["replayed"] as? Bool } == [false, true])

            // Without the header, the same body is a new request (as before keys existed).
            #expect(try flow.create(encryptedCard: sealed).header("Idempotent-Replayed") == nil)
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).count == 2)
        }

        @Test func replaysTheStoredAnswerNotTheSessionAsItStandsNow() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sessionId = try #require(try flow.createSession(Self.challengeCard).sessionId)
            let authentication = try flow.authenticate(sessionId, idempotencyKey: "auth")
            #expect(authentication.sessionStatus == "CHALLENGE_REQUIRED")
            _ = try flow.answerChallengeWithoutNotification(authentication, code: "1234")
            let result = try flow.challengeResult(sessionId, idempotencyKey: "result")
            #expect(result.sessionStatus == "COMPLETED")
            #expect(gateway.sandbox.paymentStatus(flow.payment.paymentId) == "SETTLED")

            // A fresh authentication would now say COMPLETED; the replay is the first answer.
            #expect(try flow.authenticate(sessionId).sessionStatus == "COMPLETED")
            Self.expectReplay(of: authentication, try flow.authenticate(sessionId, idempotencyKey: "auth"))
            Self.expectReplay(of: result, try flow.challengeResult(sessionId, idempotencyKey: "result"))
        }

        @Test func theSameKeyForAnotherRequestIsKeyReused() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let first = try flow.createSession(Self.challengeCard)
            let sessionId = try #require(first.sessionId)
            #expect(try flow.authenticate(sessionId, idempotencyKey: "k").sessionStatus == "CHALLENGE_REQUIRED")
            let other = try flow.seal(CardFlow.cardJSON(Self.challengeCard))
            let reused: [RawResponse] = [
                // Another path on the same payment.
                try flow.challengeResult(sessionId, idempotencyKey: "k"),
                try flow.create(encryptedCard: other, idempotencyKey: "k"),
                // The same path with another body.
                try flow.authenticate(
                    sessionId, browser: #"{"userAgent": "other", "timeZoneOffsetMinutes": 60}"#, idempotencyKey: "k"),
            ]
            for response in reused {
                #expect(response.status == 422)
                #expect(response.errorCode == "IDEMPOTENCY_KEY_REUSED")
                #expect(response.header("Idempotent-Replayed") == nil)
            }
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).count == 1)
            #expect(try flow.session(sessionId).sessionStatus == "CHALLENGE_REQUIRED")

            // Keys are per payment: the same key on another payment is another request.
            let elsewhere = CardFlow(gateway)
            let created = try elsewhere.create(
                encryptedCard: try elsewhere.seal(CardFlow.cardJSON(Self.challengeCard)), idempotencyKey: "k")
            #expect(created.status == 201)
            #expect(created.header("Idempotent-Replayed") == nil)
        }

        @Test func aRepeatWhileTheFirstIsHeldIsRequestInProgress() throws {
            let hold = HeldSleep()
            let gateway = try TestGateway(sleep: { _ in hold.sleep() })
            let flow = CardFlow(gateway)
            let sealed = try flow.seal(CardFlow.cardJSON(Self.challengeCard))
            gateway.sandbox.inject(SandboxFault(endpoint: .cardSessionCreate, kind: .latency(.milliseconds(100))))

            let firstAnswer = Mutex<RawResponse?>(nil)
            let finished = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                let response = try? flow.create(encryptedCard: sealed, idempotencyKey: "held")
                firstAnswer.withLock { $0 = response }
                finished.signal()
            }
            #expect(hold.waitUntilHeld())

            let repeated = try flow.create(encryptedCard: sealed, idempotencyKey: "held")
            #expect(repeated.status == 409)
            #expect(repeated.errorCode == "REQUEST_IN_PROGRESS")
            // Another body under the key in progress is still a misuse of the key.
            let other = try flow.create(
                encryptedCard: try flow.seal(CardFlow.cardJSON(Self.challengeCard)), idempotencyKey: "held")
            #expect(other.errorCode == "IDEMPOTENCY_KEY_REUSED")
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).isEmpty)

            hold.release()
            #expect(finished.wait(timeout: .now() + 10) == .success)
            let first = try #require(firstAnswer.withLock { $0 })
            #expect(first.status == 201)
            Self.expectReplay(of: first, try flow.create(encryptedCard: sealed, idempotencyKey: "held"))
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).count == 1)
        }

        /// A fault that lets the request be applied and then spoils the answer on the wire:
        /// the stored answer is the real one.
        @Test(arguments: [
            SandboxFault.Kind.status(503), .statusWithoutBody(502), .dropConnection, .truncatedBody, .malformedBody,
        ])
        func aFaultAfterTheRequestWasAppliedStoresTheRealAnswer(_ kind: SandboxFault.Kind) throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sealed = try flow.seal(CardFlow.cardJSON(Self.challengeCard))
            gateway.sandbox.inject(SandboxFault(endpoint: .cardSessionCreate, kind: kind, processesRequest: true))
            let spoiled = try? flow.create(encryptedCard: sealed, idempotencyKey: "lost")
            #expect(spoiled?.sessionId == nil)
            let sessions = gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId)
            #expect(sessions.count == 1)  // applied

            let resent = try flow.create(encryptedCard: sealed, idempotencyKey: "lost")
            #expect(resent.status == 201)
            #expect(resent.isComplete)
            #expect(resent.header("Idempotent-Replayed") == "true")
            #expect(resent.sessionId == sessions.first?.id)
            #expect(resent.sessionStatus == "AUTHENTICATION_REQUIRED")
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).count == 1)
            #expect(gateway.sandbox.requestLog.suffix(2).map(\.replayed) == [false, true])
        }

        /// A fault that stops the request before the gateway applies it: nothing is stored.
        @Test(arguments: [SandboxFault.Kind.status(503), .statusWithoutBody(502), .dropConnection])
        func aFaultBeforeTheRequestWasAppliedStoresNothing(_ kind: SandboxFault.Kind) throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sealed = try flow.seal(CardFlow.cardJSON(Self.challengeCard))
            gateway.sandbox.inject(SandboxFault(endpoint: .cardSessionCreate, kind: kind, processesRequest: false))
            _ = try? flow.create(encryptedCard: sealed, idempotencyKey: "never")
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).isEmpty)

            let afresh = try flow.create(encryptedCard: sealed, idempotencyKey: "never")
            #expect(afresh.status == 201)
            #expect(afresh.header("Idempotent-Replayed") == nil)
            Self.expectReplay(of: afresh, try flow.create(encryptedCard: sealed, idempotencyKey: "never"))
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).count == 1)
        }

        @Test func faultsStillApplyToAReplay() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sealed = try flow.seal(CardFlow.cardJSON(Self.challengeCard))
            let first = try flow.create(encryptedCard: sealed, idempotencyKey: "k")

            // A fault that replaces the answer: the replay never goes out, the stored answer stays.
            gateway.sandbox.inject(SandboxFault(endpoint: .cardSessionCreate, kind: .status(503)))
            let unavailable = try flow.create(encryptedCard: sealed, idempotencyKey: "k")
            #expect(unavailable.status == 503)
            #expect(unavailable.errorCode == "INTERNAL_ERROR")
            // A fault on the replay's own answer: truncated on the wire, logged as a replay.
            gateway.sandbox.inject(SandboxFault(endpoint: .cardSessionCreate, kind: .truncatedBody))
            let truncated = try flow.create(encryptedCard: sealed, idempotencyKey: "k")
            #expect(truncated.status == 201)
            #expect(!truncated.isComplete)
            #expect(truncated.header("Idempotent-Replayed") == "true")
            let log = gateway.sandbox.requestLog.suffix(2)
            #expect(log.map(\.faults) == [["status"], ["truncated"]])
            #expect(log.map(\.replayed) == [false, true])
            // Latency delays a replay like any answer.
            gateway.sandbox.inject(SandboxFault(endpoint: .cardSessionCreate, kind: .latency(.milliseconds(60))))
            Self.expectReplay(of: first, try flow.create(encryptedCard: sealed, idempotencyKey: "k"))
            #expect(gateway.sleeps.total == .milliseconds(60))
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).count == 1)
        }

        @Test func answersAreKeptFor24HoursOfTheInjectedClock() throws {
            let clock = Mutex(Date(timeIntervalSince1970: 1_900_000_000))
            let gateway = try TestGateway(now: { clock.withLock { $0 } })
            let flow = CardFlow(gateway)
            let sealed = try flow.seal(CardFlow.cardJSON(Self.challengeCard))
            let first = try flow.create(encryptedCard: sealed, idempotencyKey: "day")
            clock.withLock { $0 += 24 * 60 * 60 - 1 }
            Self.expectReplay(of: first, try flow.create(encryptedCard: sealed, idempotencyKey: "day"))
            clock.withLock { $0 += 1 }
            let afresh = try flow.create(encryptedCard: sealed, idempotencyKey: "day")
            #expect(afresh.status == 201)
            #expect(afresh.header("Idempotent-Replayed") == nil)
            #expect(afresh.sessionId != first.sessionId)
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).count == 2)
        }

        /// Refusals apply nothing and are not stored: a repeat is handled afresh.
        @Test func refusalsAreNotStored() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sessionId = try #require(try flow.createSession(Self.challengeCard).sessionId)
            let authentication = try flow.authenticate(sessionId)
            let early = try flow.challengeResult(sessionId, idempotencyKey: "result")
            #expect(early.errorCode == "CHALLENGE_NOT_COMPLETED")
            _ = try flow.answerChallengeWithoutNotification(authentication, code: "1234")
            let later = try flow.challengeResult(sessionId, idempotencyKey: "result")
            #expect(later.sessionStatus == "COMPLETED")
            #expect(later.header("Idempotent-Replayed") == nil)

            // The card sent again to the new key after UNKNOWN_KEY, under the same key.
            let rotated = CardFlow(gateway)
            let oldKey = try rotated.fetchKey()
            gateway.sandbox.rotateKey()
            let unknown = try rotated.create(
                encryptedCard: try rotated.seal(CardFlow.cardJSON(Self.challengeCard), to: oldKey),
                idempotencyKey: "create")
            #expect(unknown.errorCode == "UNKNOWN_KEY")
            let created = try rotated.create(
                encryptedCard: try rotated.seal(CardFlow.cardJSON(Self.challengeCard)), idempotencyKey: "create")
            #expect(created.status == 201)

            // A request that fails authorization stores nothing either.
            let wrongKey = try gateway.api(
                "POST", gateway.sessionsURL(flow.payment.paymentId, "/\(sessionId)/challenge-result"), key: "vk_wrong",
                json: "{}", idempotencyKey: "auth")
            #expect(wrongKey.status == 401)
            #expect(try flow.challengeResult(sessionId, idempotencyKey: "auth").status == 200)
        }

        @Test(arguments: ["", String(repeating: "k", count: 256), "tab\there", "ünïcödé-\u{85}"])
        func malformedKeysAreInvalidRequest(_ key: String) throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let response = try flow.create(
                encryptedCard: try flow.seal(CardFlow.cardJSON(Self.challengeCard)), idempotencyKey: key)
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_REQUEST")
            let message = ((try response.json())["error"] as? [String: Any])?["message"] as? String
            #expect(message?.contains("Idempotency-Key") == true)
            #expect(gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).isEmpty)
        }

        @Test func aKeyOf255BytesIsAccepted() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let key = String(repeating: "é", count: 127) + "k"  // 255 bytes of UTF-8
            let sealed = try flow.seal(CardFlow.cardJSON(Self.challengeCard))
            let first = try flow.create(encryptedCard: sealed, idempotencyKey: key)
            #expect(first.status == 201)
            Self.expectReplay(of: first, try flow.create(encryptedCard: sealed, idempotencyKey: key))
        }

        /// The hosted page's choice honours a key when one is sent (a browser sends none).
        @Test func hostedChoiceHonoursAKeyWhenPresent() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            gateway.sandbox.inject(SandboxFault(endpoint: .hostedChoice, kind: .dropConnection, processesRequest: true))
            #expect(throws: RawHTTPError.noResponse) {
                try gateway.postForm(payment.checkoutURL, Array("choice=pay".utf8), idempotencyKey: "choice")
            }
            #expect(gateway.sandbox.paymentStatus(payment.paymentId) == "SETTLED")
            let replay = try gateway.postForm(payment.checkoutURL, Array("choice=pay".utf8), idempotencyKey: "choice")
            #expect(replay.status == 303)
            #expect(replay.header("Location") == payment.shopRedirectURL.absoluteString)
            #expect(replay.header("Idempotent-Replayed") == "true")

            let reused = try gateway.postForm(
                payment.checkoutURL, Array("choice=decline".utf8), idempotencyKey: "choice")
            #expect(reused.status == 422)
            #expect(Page(reused.text).meta("egw-page") == "error")
            #expect(reused.text.contains("IDEMPOTENCY_KEY_REUSED"))
            // Without a key, as a browser: the payment is decided.
            let browser = try gateway.postForm(payment.checkoutURL, Array("choice=pay".utf8))
            #expect(browser.status == 409)
            #expect(Page(browser.text).meta("egw-page") == "hosted-checkout-done")
            #expect(gateway.sandbox.paymentStatus(payment.paymentId) == "SETTLED")
        }

        /// The stored answers are answer bodies (ids and statuses): resent, they carry no card data.
        @Test func replaysCarryNoCardData() throws {
            let gateway = try TestGateway()
            var produced: [String] = []
            for number in ["4111111111111111", Self.challengeCard, "4000000000000002"] {
                let flow = CardFlow(gateway)
                let sealed = try flow.seal(CardFlow.cardJSON(number, code: "9876", name: "Zelda Secretname"))
                for _ in 0..<2 {
                    let response = try flow.create(encryptedCard: sealed, idempotencyKey: "k-\(number.suffix(4))")
                    produced.append(response.text)
                    if let id = response.sessionId {
                        produced.append(try flow.authenticate(id, idempotencyKey: "a").text)
                    }
                }
            }
            produced += gateway.sandbox.requestLog.map(\.description)
            let text = produced.joined(separator: "\n")
            for secret in ["4111111111111111", Self.challengeCard, "4000000000000002", "9876", "Zelda"] {
                #expect(!text.contains(secret), "\(secret.prefix(4))… leaked")
            }
            #expect(gateway.sandbox.requestLog.filter(\.replayed).count == 5)
        }
    }
}

/// A sleeper that holds the first slice of injected latency until released, so a test can act
/// while that request is in progress. Later slices return at once.
final class HeldSleep: Sendable {
    private let entered = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let first = Mutex(true)

    func sleep() {
        guard
            first.withLock({ isFirst in
                defer { isFirst = false }; return isFirst
            })
        else { return }
        entered.signal()
        _ = released.wait(timeout: .now() + 30)
    }

    /// True once a request is held (false after 10 s: the test fails rather than hangs).
    func waitUntilHeld() -> Bool { entered.wait(timeout: .now() + 10) == .success }

    func release() { released.signal() }
}
