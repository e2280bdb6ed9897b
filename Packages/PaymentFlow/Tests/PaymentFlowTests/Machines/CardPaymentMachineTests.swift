import Foundation
import JWE
import Testing

@testable import PaymentFlow

/// The card machine, event by event, without a network. Expected actions and
/// outcomes come from CONTRACT.md section 4 and the tables of GATEWAY.md.
@Suite struct CardPaymentMachineTests {
    static let base = URL(string: "https://checkout.example/gw")!
    static let key: EncryptionKey = {
        // A fresh 2048-bit key: its bytes do not matter to the machine, only its identity.
        EncryptionKey(try! RSAPrivateKey.generate(bits: 2048, kid: "k1").publicKey)
    }()
    static let card = CardSnapshot(
        cardholderName: "Jane Doe", cardNumber: "4111 1111 1111 1111", expiryMonth: "12", expiryYear: "30",
        securityCode: "123")
    static let notification = URL(string: "https://checkout.example/gw/checkout/3ds/notification/s_1")!
    static let challenge = SessionSnapshot.Challenge(
        acsURL: URL(string: "https://acs.example/challenge")!, creq: "Y3JlcQ")

    static func session(_ status: SessionSnapshot.Status, id: String = "s_1", trans: String? = nil) -> SessionReply {
        .session(SessionSnapshot(sessionId: id, status: status, transStatus: trans))
    }

    static func machine() -> CardPaymentMachine { CardPaymentMachine(.init(card: card, checkoutBaseURL: base)) }

    /// Reachable states by their shortest path.
    enum Reach: CaseIterable {
        case idle, fetchingKey, encrypting, creatingSession, authenticating, presentingChallenge, challenging,
            completingChallenge, dismissingChallenge, submittingChallengeResult, recovering
    }

    static func reach(_ target: Reach) -> CardPaymentMachine {
        var m = machine()
        if target == .idle { return m }
        _ = m.start(cachedKey: nil)
        if target == .fetchingKey { return m }
        _ = m.keyFetched(.success(key))
        if target == .encrypting { return m }
        _ = m.encryptionFinished(.success("a.b.c.d.e"))
        if target == .creatingSession { return m }
        _ = m.sessionCreated(session(.authenticationRequired))
        if target == .authenticating { return m }
        if target == .recovering {
            _ = m.authenticated(.lost(FlowError(.networkError, "reset")))
            return m
        }
        _ = m.authenticated(session(.challengeRequired(challenge), trans: "C"))
        if target == .presentingChallenge { return m }
        _ = m.presentFinished(shown: true)
        if target == .challenging { return m }
        _ = m.navigation(to: notification)
        if target == .completingChallenge { return m }
        _ = m.pageLoaded(notification)
        if target == .dismissingChallenge { return m }
        _ = m.pageDismissed()
        return m
    }

    @Test(arguments: Reach.allCases)
    func everyStateIsReachable(state: Reach) {
        let m = Self.reach(state)
        #expect(m.stateName == "\(state)")
    }

    // MARK: Key, encryption, creation

    @Test func startWithoutACachedKeyFetchesIt() {
        var m = Self.machine()
        #expect(m.start(cachedKey: nil) == .fetchKey(refresh: false))
    }

    @Test func startWithACachedKeyEncryptsAtOnce() {
        var m = Self.machine()
        #expect(m.start(cachedKey: Self.key) == .encrypt(Self.key))
    }

    @Test func keyFailureIsEncryptionKeyUnavailable() {
        for cause in [PaymentError.Code.networkError, .invalidResponse, .encryptionKeyUnavailable] {
            var m = Self.reach(.fetchingKey)
            guard case .finish(let t) = m.keyFetched(.failure(FlowError(cause, "x"))) else {
                Issue.record("expected finish")
                return
            }
            #expect(t.outcome == .failed)
            #expect(t.error?.code == .encryptionKeyUnavailable)
            #expect(t.sessionId == nil)
        }
    }

    @Test func encryptionFailureIsEncryptionFailed() {
        var m = Self.reach(.encrypting)
        let action = m.encryptionFinished(.failure(FlowError(.encryptionFailed, "x")))
        #expect(action == .finish(.failed(FlowError(.encryptionFailed, "x"))))
    }

    @Test func encryptedCardCreatesTheSession() {
        var m = Self.reach(.encrypting)
        #expect(m.encryptionFinished(.success("a.b.c.d.e")) == .call(.createSession(encryptedCard: "a.b.c.d.e")))
        #expect(m.card != nil)  // kept for one UNKNOWN_KEY retry
    }

    @Test func creationAnswers() {
        // AUTHENTICATION_REQUIRED -> authentication with the notification URL of GATEWAY.md.
        var m = Self.reach(.creatingSession)
        #expect(
            m.sessionCreated(Self.session(.authenticationRequired))
                == .call(.authenticate(sessionId: "s_1", notificationURL: Self.notification)))
        #expect(m.card == nil)  // the card is no longer held once a session exists
        // COMPLETED at creation (no 3-D Secure) -> succeeded with the session id.
        m = Self.reach(.creatingSession)
        #expect(m.sessionCreated(Self.session(.completed)) == .finish(Terminal(outcome: .succeeded, sessionId: "s_1")))
        // FAILED at creation -> failed with the session's reason.
        m = Self.reach(.creatingSession)
        let declined = FlowError(.cardSessionFailed, "declined", gatewayCode: "CARD_DECLINED")
        #expect(m.sessionCreated(Self.session(.failed(declined))) == .finish(.failed(declined, sessionId: "s_1")))
    }

    @Test func unknownKeyRefetchesOnceThenGivesUp() {
        var m = Self.reach(.creatingSession)
        #expect(m.sessionCreated(.unknownKey) == .fetchKey(refresh: true))
        #expect(m.stateName == "refetchingKey")
        let fresh = EncryptionKey(try! RSAPrivateKey.generate(bits: 2048, kid: "k2").publicKey)
        #expect(m.keyFetched(.success(fresh)) == .encrypt(fresh))
        #expect(m.encryptionFinished(.success("f.g.h.i.j")) == .call(.createSession(encryptedCard: "f.g.h.i.j")))
        guard case .finish(let t) = m.sessionCreated(.unknownKey) else {
            Issue.record("expected finish")
            return
        }
        #expect(t.outcome == .failed)
        #expect(t.error?.code == .encryptionKeyUnavailable)
    }

    @Test func creationErrorsFailWithTheirCode() {
        for code in [
            PaymentError.Code.invalidRequest, .cardBrandNotAccepted, .encryptionFailed, .cardSessionFailed,
            .invalidResponse,
        ] {
            var m = Self.reach(.creatingSession)
            #expect(m.sessionCreated(.rejected(FlowError(code, "x"))) == .finish(.failed(FlowError(code, "x"))))
        }
        var m = Self.reach(.creatingSession)
        #expect(
            m.sessionCreated(.unreachable(FlowError(.networkError, "refused")))
                == .finish(.failed(FlowError(.networkError, "refused"))))
    }

    @Test func lostCreationIsUnresolved() {
        // No session id to read back: the SDK does not know whether a session exists.
        var m = Self.reach(.creatingSession)
        let lost = FlowError(.networkError, "reset")
        #expect(m.sessionCreated(.lost(lost)) == .finish(Terminal(outcome: .unresolved, error: lost)))
    }

    // MARK: Authentication

    @Test func authenticationAnswers() {
        var m = Self.reach(.authenticating)
        #expect(
            m.authenticated(Self.session(.completed, trans: "Y"))
                == .finish(Terminal(outcome: .succeeded, sessionId: "s_1")))
        m = Self.reach(.authenticating)
        let rejected = FlowError(.authenticationFailed, "R", gatewayCode: "AUTHENTICATION_REJECTED")
        #expect(
            m.authenticated(Self.session(.failed(rejected), trans: "R")) == .finish(.failed(rejected, sessionId: "s_1"))
        )
        m = Self.reach(.authenticating)
        #expect(
            m.authenticated(Self.session(.challengeRequired(Self.challenge), trans: "C"))
                == .present(
                    PagePlan(
                        url: Self.challenge.acsURL, formFields: [.init(name: "creq", value: "Y3JlcQ")],
                        purpose: .challenge)))
    }

    @Test func authenticationErrorsKeepTheSessionId() {
        var m = Self.reach(.authenticating)
        let error = FlowError(.cardSessionFailed, "HTTP 500")
        #expect(m.authenticated(.rejected(error)) == .finish(.failed(error, sessionId: "s_1")))
    }

    @Test func lostAuthenticationIsRecoveredByReadingTheSession() {
        var m = Self.reach(.authenticating)
        #expect(m.authenticated(.lost(FlowError(.networkError, "timeout"))) == .call(.readSession(sessionId: "s_1")))
        // The gateway did apply it: continue from what it says.
        #expect(
            m.sessionRead(Self.session(.completed, trans: "Y"))
                == .finish(Terminal(outcome: .succeeded, sessionId: "s_1")))

        m = Self.reach(.recovering)
        #expect(m.sessionRead(Self.session(.challengeRequired(Self.challenge))) != FlowAction.none)
        #expect(m.stateName == "presentingChallenge")
    }

    @Test func stepNeverAppliedIsSentOnceMore() {
        var m = Self.reach(.recovering)
        #expect(
            m.sessionRead(Self.session(.authenticationRequired))
                == .call(.authenticate(sessionId: "s_1", notificationURL: Self.notification)))
        // Lost again, and still not applied: give up honestly.
        #expect(m.authenticated(.lost(FlowError(.networkError, "reset"))) == .call(.readSession(sessionId: "s_1")))
        guard case .finish(let t) = m.sessionRead(Self.session(.authenticationRequired)) else {
            Issue.record("expected finish")
            return
        }
        #expect(t.outcome == .unresolved)
        #expect(t.sessionId == "s_1")
        #expect(t.error?.code == .networkError)
    }

    @Test func serverErrorOnAStepIsConfirmedByReadingTheSession() {
        let error = FlowError(.cardSessionFailed, "HTTP 500")
        // Applied after all: continue from the session.
        var m = Self.reach(.authenticating)
        #expect(m.authenticated(.serverFailure(error)) == .call(.readSession(sessionId: "s_1")))
        #expect(
            m.sessionRead(Self.session(.completed, trans: "Y"))
                == .finish(Terminal(outcome: .succeeded, sessionId: "s_1")))
        // Not applied: the failure the gateway reported (no re-send after a 5xx).
        m = Self.reach(.authenticating)
        _ = m.authenticated(.serverFailure(error))
        #expect(m.sessionRead(Self.session(.authenticationRequired)) == .finish(.failed(error, sessionId: "s_1")))
        // Unreadable: the reported failure too.
        m = Self.reach(.submittingChallengeResult)
        _ = m.challengeResultReceived(.serverFailure(error))
        #expect(m.sessionRead(.rejected(FlowError(.networkError, "down"))) == .finish(.failed(error, sessionId: "s_1")))
    }

    @Test func unreadableSessionIsUnresolved() {
        var m = Self.reach(.recovering)
        guard case .finish(let t) = m.sessionRead(.rejected(FlowError(.networkError, "down"))) else {
            Issue.record("expected finish")
            return
        }
        #expect(t.outcome == .unresolved)
        #expect(t.sessionId == "s_1")
    }

    // MARK: Challenge

    @Test func challengePageRefusalIsPresentationFailed() {
        var m = Self.reach(.presentingChallenge)
        guard case .finish(let t) = m.presentFinished(shown: false) else {
            Issue.record("expected finish")
            return
        }
        #expect(t.error?.code == .presentationFailed)
        #expect(t.sessionId == "s_1")
    }

    @Test(arguments: [Reach.presentingChallenge, .challenging])
    func challengeEndsAtTheNotificationURL(state: Reach) {
        var m = Self.reach(state)
        let (other, a1) = m.navigation(to: URL(string: "https://acs.example/challenge/step")!)
        #expect(other == .allow)
        #expect(a1 == FlowAction.none)
        let (decision, a2) = m.navigation(to: Self.notification.appending(queryItems: [.init(name: "x", value: "1")]))
        #expect(decision == .allow)  // the issuer's cres goes to the gateway's page
        #expect(a2 == FlowAction.none)
        #expect(m.stateName == "completingChallenge")
        #expect(m.pageLoaded(Self.notification) == .dismissPage)
        #expect(m.pageDismissed() == .call(.challengeResult(sessionId: "s_1")))
    }

    @Test func notificationLoadFailureOrCloseStillAsksForTheResult() {
        var m = Self.reach(.completingChallenge)
        #expect(m.pageFailed(Self.notification, reason: "x") == .dismissPage)
        m = Self.reach(.completingChallenge)
        #expect(m.buyerClosedPage() == .dismissPage)
    }

    @Test(arguments: [Reach.presentingChallenge, .challenging])
    func buyerClosingTheChallengeCancels(state: Reach) {
        var m = Self.reach(state)
        #expect(m.buyerClosedPage() == .finish(.cancelled(sessionId: "s_1")))
    }

    @Test(arguments: [Reach.presentingChallenge, .challenging])
    func challengeLoadFailureIsPageLoadFailed(state: Reach) {
        var m = Self.reach(state)
        guard case .finish(let t) = m.pageFailed(Self.challenge.acsURL, reason: "HTTP 500") else {
            Issue.record("expected finish")
            return
        }
        #expect(t.error?.code == .pageLoadFailed)
        #expect(t.sessionId == "s_1")
    }

    @Test func challengeResultAnswers() {
        var m = Self.reach(.submittingChallengeResult)
        #expect(
            m.challengeResultReceived(Self.session(.completed, trans: "Y"))
                == .finish(Terminal(outcome: .succeeded, sessionId: "s_1")))
        m = Self.reach(.submittingChallengeResult)
        let failed = FlowError(.authenticationFailed, "N")
        #expect(
            m.challengeResultReceived(Self.session(.failed(failed), trans: "N"))
                == .finish(.failed(failed, sessionId: "s_1")))
        // Lost -> read -> still CHALLENGE_REQUIRED -> send the result request once more.
        m = Self.reach(.submittingChallengeResult)
        #expect(
            m.challengeResultReceived(.lost(FlowError(.networkError, "reset"))) == .call(.readSession(sessionId: "s_1"))
        )
        #expect(
            m.sessionRead(Self.session(.challengeRequired(Self.challenge))) == .call(.challengeResult(sessionId: "s_1"))
        )
    }

    @Test(arguments: [Reach.dismissingChallenge, .submittingChallengeResult, .recovering])
    func pageEventsAfterTheChallengeAreIgnored(state: Reach) {
        var m = Self.reach(state)
        let before = m.stateName
        #expect(m.buyerClosedPage() == FlowAction.none)
        #expect(m.pageFailed(Self.notification, reason: "x") == FlowAction.none)
        #expect(m.pageLoaded(Self.notification) == FlowAction.none)
        #expect(m.navigation(to: Self.notification).0 == .cancel)
        #expect(m.stateName == before)
    }

    @Test(arguments: Reach.allCases)
    func cancelIsCancelledUntilMoneyMayMoveThenUnresolved(state: Reach) {
        var m = Self.reach(state)
        let known = m.sessionId
        let safe: Set<Reach> = [.idle, .fetchingKey, .encrypting, .presentingChallenge, .challenging]
        #expect(
            m.cancel() == .finish(Terminal(outcome: safe.contains(state) ? .cancelled : .unresolved, sessionId: known)))
        #expect(m.isFinished)
        #expect(m.cancel() == FlowAction.none)
        let hasSession = ![Reach.idle, .fetchingKey, .encrypting, .creatingSession].contains(state)
        #expect((known != nil) == hasSession)
    }

    @Test func cardSnapshotNeverShowsTheNumberOrCode() {
        let texts = [
            "\(Self.card)", String(describing: Self.card), String(reflecting: Self.card),
            {
                var s = ""; dump(Self.card, to: &s); return s
            }(),
            "\(Self.machine())", String(reflecting: Self.reach(.creatingSession)),
        ]
        for text in texts {
            #expect(!text.contains("4111111111111111"))
            #expect(!text.contains("4111 1111"))
            #expect(!text.contains("123"))
        }
        #expect(Self.card.description == "card ••••1111")
    }
}
