import Foundation
import JWE
import Testing

@testable import PaymentFlow

/// The run's step gate and page timers, event by event (issue 18).
@Suite struct PaymentLifecycleGateTests {
    static let base = URL(string: "https://checkout.example/gw")!
    static let keys = IdempotencyKeys(
        createSession: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!,
        createSessionWithNewKey: UUID(uuidString: "00000000-0000-4000-8000-000000000002")!,
        authentication: UUID(uuidString: "00000000-0000-4000-8000-000000000003")!,
        challengeResult: UUID(uuidString: "00000000-0000-4000-8000-000000000004")!)
    static let card = CardInput(
        cardholderName: "A", cardNumber: "4111111111111111", expiryMonth: "12", expiryYear: "30", securityCode: "123",
        clock: .fixed(Date(timeIntervalSince1970: 1_795_953_600))
    ).snapshot()
    static let key = EncryptionKey(try! RSAPrivateKey.generate(bits: 2048, kid: "k").publicKey)

    static func run(gateTimeout: TimeInterval? = 600) -> PaymentLifecycle {
        PaymentLifecycle(
            settings: .init(kind: .card, paymentId: "p", gated: true, stepGateTimeout: gateTimeout),
            flow: .card(CardPaymentMachine(.init(card: card, checkoutBaseURL: base, keys: keys))))
    }

    /// Drives the run with every gate answered `proceed`, up to the creation's answer.
    static func creationAnswered(_ run: inout PaymentLifecycle) -> [PaymentLifecycle.Effect] {
        func gate(_ effects: [PaymentLifecycle.Effect]) -> [PaymentLifecycle.Effect] {
            for case .askGate(let token, _) in effects { return run.handle(.gateAnswered(token: token, .proceed)) }
            return effects
        }
        var effects = gate(run.handle(.start(cachedKey: key)))
        let encrypt = effects.compactMap { if case .encrypt(let t, _, _) = $0 { t } else { nil } }.first!
        effects = gate(run.handle(.answered(token: encrypt, .encrypted(.success("a.b.c.d.e")))))
        let send = effects.compactMap { if case .send(let t, _) = $0 { t } else { nil } }.first!
        let body = #"{"sessionId":"s_1","status":"AUTHENTICATION_REQUIRED"}"#
        let answer = GatewayAPI.event(
            for: .createSession(encryptedCard: "a.b.c.d.e", idempotencyKey: keys.createSession),
            .success(HTTPResponse(status: 201, body: Array(body.utf8), url: base)), paymentId: "p")
        // Then the presenter's browser data (not a gated step: nothing reaches out), before the authentication.
        let heard = run.handle(.answered(token: send, answer))
        let browser = heard.compactMap { if case .askBrowser(let t) = $0 { t } else { nil } }.first!
        return run.handle(.answered(token: browser, .browserReported(nil)))
    }

    static func delivered(_ effects: [PaymentLifecycle.Effect]) -> Terminal? {
        for case .deliver(let terminal) in effects { return terminal }
        return nil
    }

    /// The gate is asked before the authentication, after the creation's answer arrived. A cancel there
    /// used to cancel the flow as it was before that answer (a creation in flight: `.unresolved`, the
    /// answer thrown away); the answer is kept: the session waits for authentication, nothing moved.
    @Test func aGateCancelKeepsTheAnswerAlreadyReceived() throws {
        var run = Self.run()
        let effects = Self.creationAnswered(&run)
        let token = try #require(effects.compactMap { if case .askGate(let t, _) = $0 { t } else { nil } }.first)
        let end = try #require(Self.delivered(run.handle(.gateAnswered(token: token, .cancel))))
        #expect(end.outcome == .cancelled)
        #expect(end.sessionId == "s_1")
    }

    /// The machine's key-cache decisions become effects as soon as the run hears the gateway: a fetched
    /// key is stored while the gate still holds the encryption back (and stays stored if the gate then
    /// cancels); an UNKNOWN_KEY drops the cached key before the gate is asked about the refetch.
    @Test func keyCacheDecisionsArePerformedWhenHeard() throws {
        func askedGate(_ effects: [PaymentLifecycle.Effect]) throws -> UInt64 {
            try #require(effects.compactMap { if case .askGate(let t, _) = $0 { t } else { nil } }.first)
        }
        func sent(_ effects: [PaymentLifecycle.Effect]) throws -> UInt64 {
            try #require(effects.compactMap { if case .send(let t, _) = $0 { t } else { nil } }.first)
        }
        var run = Self.run()
        let fetch = try sent(
            run.handle(.gateAnswered(token: try askedGate(run.handle(.start(cachedKey: nil))), .proceed)))
        let heard = run.handle(.answered(token: fetch, .keyFetched(.success(.init(key: Self.key, maxAge: 60)))))
        let stored = heard.firstIndex { if case .storeKey(Self.key, 60) = $0 { true } else { false } }
        let gate = heard.firstIndex { if case .askGate = $0 { true } else { false } }
        #expect(stored != nil && gate != nil && stored! < gate!, "\(heard)")
        #expect(!heard.contains { if case .encrypt = $0 { true } else { false } }, "the gate holds the encryption")
        let end = Self.delivered(run.handle(.gateAnswered(token: try askedGate(heard), .cancel)))
        #expect(end?.outcome == .cancelled)

        var again = Self.run()
        var effects = again.handle(
            .gateAnswered(token: try askedGate(again.handle(.start(cachedKey: Self.key))), .proceed))
        let encrypt = try #require(effects.compactMap { if case .encrypt(let t, _, _) = $0 { t } else { nil } }.first)
        effects = again.handle(.answered(token: encrypt, .encrypted(.success("a.b.c.d.e"))))
        let create = try sent(again.handle(.gateAnswered(token: try askedGate(effects), .proceed)))
        let unknownKey = again.handle(
            .answered(
                token: create,
                .sessionAnswered(
                    .createSession(encryptedCard: "a.b.c.d.e", idempotencyKey: Self.keys.createSession), .unknownKey)))
        let dropped = unknownKey.firstIndex { if case .dropCachedKey = $0 { true } else { false } }
        let refetchGate = unknownKey.firstIndex {
            if case .askGate(_, let step) = $0 { step.action == "refetch the card-encryption key" } else { false }
        }
        #expect(dropped != nil && refetchGate != nil && dropped! < refetchGate!, "\(unknownKey)")
    }

    /// A gate that never answers: its deadline ends it like a cancel (the run owns every wait).
    @Test func aGateThatNeverAnswersTimesOutLikeACancel() throws {
        var run = Self.run(gateTimeout: 600)
        let effects = Self.creationAnswered(&run)
        let token = try #require(effects.compactMap { if case .askGate(let t, _) = $0 { t } else { nil } }.first)
        #expect(effects.contains { if case .startTimer(.gate(token), 600) = $0 { true } else { false } })
        let end = try #require(Self.delivered(run.handle(.timerFired(.gate(token)))))
        #expect(end.outcome == .cancelled)
        var patient = Self.run(gateTimeout: nil)
        let asked = Self.creationAnswered(&patient)
        #expect(!asked.contains { if case .startTimer(.gate, _) = $0 { true } else { false } })
    }

    /// Issue 23: one navigation rule for every page, whatever the presenter: in `.live` only `https:`
    /// loads, and never `file:`, `data:` or `javascript:` at the top level. A refused navigation is
    /// answered `.cancel` and ends the page as a failed load (the flow then asks the gateway).
    @Test(arguments: [
        ("http://pay.example/next", false, false), ("https://pay.example/next", false, true),
        ("http://pay.example/next", true, true), ("file:///etc/passwd", true, false),
        ("data:text/html,<b>x</b>", true, false), ("javascript:alert(1)", true, false),
    ])
    func everyPageFollowsTheEnvironmentsNavigationRule(url: String, sandbox: Bool, allowed: Bool) throws {
        let page = PagePlan(url: URL(string: "https://pay.example/p")!, formFields: nil, purpose: .hostedCheckout)
        var run = PaymentLifecycle(
            settings: .init(kind: .hostedCheckout, paymentId: "p", gated: false, allowsPlainHTTP: sandbox),
            flow: .hosted(
                HostedCheckoutMachine(
                    .init(page: page, returnURL: URL(string: "myshop://done")!, statusSource: .builtIn))))
        let presented = run.handle(.start(cachedKey: nil))
        let id = try #require(presented.compactMap { if case .present(let id, _) = $0 { id } else { nil } }.first)
        _ = run.handle(.presented(pageId: id, shown: true))
        let effects = run.handle(.navigation(pageId: id, try #require(URL(string: url)), request: 7, method: "GET"))
        let answer = effects.compactMap { if case .answerNavigation(7, let decision) = $0 { decision } else { nil } }
        #expect(answer == [allowed ? .allow : .cancel], "\(url)")
        let dismissed = effects.contains { if case .dismiss = $0 { true } else { false } }
        #expect(dismissed == !allowed, "a refused navigation ends the page")
    }
}
