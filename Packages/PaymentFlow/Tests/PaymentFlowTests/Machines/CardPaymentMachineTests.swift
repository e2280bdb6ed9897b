import Foundation
import JWE
import Testing

@testable import PaymentFlow

/// The card machine, event by event, without a network. Expected actions and outcomes come from
/// CONTRACT.md sections 4 and 4a and the tables of GATEWAY.md: `.failed`/`.cancelled` only where no
/// money can have moved.
@Suite struct CardPaymentMachineTests {
    static let base = URL(string: "https://checkout.example/gw")!
    static let key: EncryptionKey = {
        // A fresh 2048-bit key: its bytes do not matter to the machine, only its identity.
        EncryptionKey(try! RSAPrivateKey.generate(bits: 2048, kid: "k1").publicKey)
    }()
    static let card = CardInput(
        cardholderName: "Jane Doe", cardNumber: "4111 1111 1111 1111", expiryMonth: "12", expiryYear: "30",
        securityCode: "123",
        clock: .fixed(Date(timeIntervalSince1970: 1_795_953_600))
    ).snapshot()
    static let keys = IdempotencyKeys(
        createSession: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!,
        createSessionWithNewKey: UUID(uuidString: "00000000-0000-4000-8000-000000000002")!,
        authentication: UUID(uuidString: "00000000-0000-4000-8000-000000000003")!,
        challengeResult: UUID(uuidString: "00000000-0000-4000-8000-000000000004")!)
    static let notification = URL(string: "https://checkout.example/gw/checkout/3ds/notification/s_1")!
    static let challenge = SessionSnapshot.Challenge(
        acsURL: URL(string: "https://acs.example/challenge")!, creq: "Y3JlcQ")
    static let jwe = "a.b.c.d.e"

    static let create = GatewayCall.createSession(encryptedCard: jwe, idempotencyKey: keys.createSession)
    static let authenticate = GatewayCall.authenticate(
        sessionId: "s_1", notificationURL: notification, idempotencyKey: keys.authentication)
    static let challengeResult = GatewayCall.challengeResult(sessionId: "s_1", idempotencyKey: keys.challengeResult)
    static let read = GatewayCall.readSession(sessionId: "s_1")

    static func session(_ status: SessionSnapshot.Status, trans: String? = nil) -> SessionReply {
        .session(SessionSnapshot(sessionId: "s_1", status: status, transStatus: trans))
    }

    static let lost = SessionReply.doubtful(FlowError(.networkError, "reset"), .answerLost)
    static let fiveHundred = SessionReply.doubtful(FlowError(.cardSessionFailed, "HTTP 503"), .answerLost)
    static let declined = FlowError(.cardSessionFailed, "declined", gatewayCode: "CARD_DECLINED")

    static func machine() -> CardPaymentMachine {
        CardPaymentMachine(.init(card: card, checkoutBaseURL: base, keys: keys))
    }

    /// Reachable states by their shortest path.
    enum Reach: CaseIterable {
        case idle, fetchingKey, encrypting, creatingSession, reportingBrowser, authenticating, presentingChallenge,
            challenging,
            completingChallenge, dismissingChallenge, submittingChallengeResult, recovering
    }

    static func reach(_ target: Reach) -> CardPaymentMachine {
        var m = machine()
        let steps: [(Reach, FlowEvent)] = [
            (.fetchingKey, .start(cachedKey: nil)), (.encrypting, .keyFetched(.success(.init(key: key, maxAge: 300)))),
            (.creatingSession, .encrypted(.success(jwe))),
            (.reportingBrowser, .sessionAnswered(create, session(.authenticationRequired))),
            (.authenticating, .browserReported(nil)),
            (.presentingChallenge, .sessionAnswered(authenticate, session(.challengeRequired(challenge), trans: "C"))),
            (.challenging, .presented(shown: true)), (.completingChallenge, .navigation(notification)),
            (.dismissingChallenge, .pageLoaded(notification)), (.submittingChallengeResult, .pageDismissed),
        ]
        if target == .idle { return m }
        if target == .recovering {
            for (_, event) in steps.prefix(5) { _ = m.handle(event) }
            _ = m.handle(.sessionAnswered(authenticate, lost))
            return m
        }
        for (reached, event) in steps {
            _ = m.handle(event)
            if reached == target { return m }
        }
        return m
    }

    static func action(_ m: inout CardPaymentMachine, _ event: FlowEvent) -> FlowAction { m.handle(event).action }

    static func terminal(_ action: FlowAction) -> Terminal? {
        if case .finish(let terminal) = action { return terminal }
        return nil
    }

    @Test(arguments: Reach.allCases)
    func everyStateIsReachable(state: Reach) {
        #expect(Self.reach(state).stateName == "\(state)")
    }

    // MARK: Key, encryption, creation

    @Test func startFetchesTheKeyOrEncryptsWithTheCachedOne() {
        var fresh = Self.machine()
        #expect(Self.action(&fresh, .start(cachedKey: nil)) == .fetchKey(refresh: false))
        var cached = Self.machine()
        // The action carries its operands: the card and the key.
        #expect(Self.action(&cached, .start(cachedKey: Self.key)) == .encrypt(card: Self.card, key: Self.key))
    }

    /// The machine holds CardValidation's snapshot itself (one card type); every textual view of the
    /// machine, its actions and the run around it shows `card •••• 1111` at most: no other digit run of
    /// the number, no security code, no name, no expiry.
    @Test func noTextualViewOfTheMachineShowsCardData() {
        var m = Self.machine()
        let encrypt = Self.action(&m, .start(cachedKey: Self.key))
        var run = PaymentLifecycle(
            settings: .init(kind: .card, paymentId: "p", gated: false), flow: .card(Self.machine()))
        let effects = run.handle(.start(cachedKey: Self.key))
        var dumped = ""
        dump(m, to: &dumped)
        var dumpedRun = ""
        dump(run, to: &dumpedRun)
        let views = [
            encrypt.description, String(describing: m), String(reflecting: m), dumped, run.description, dumpedRun,
            "\(effects)", String(reflecting: effects),
        ]
        #expect(encrypt.description == "encrypt the card •••• 1111 (kid k1)")
        for view in views {
            #expect(view.contains("•••• 1111"), "\(view)")
            for secret in ["4111 1", "411111", "1111 1111", "123", "Jane", "12/30"] {
                #expect(!view.contains(secret), "\(secret) in \(view)")
            }
        }
    }

    /// The machine owns the kit's key cache: a fetched key is kept for the gateway's max-age (not at all
    /// without one), a cached key is used as it is (nothing to store), and every UNKNOWN_KEY drops the
    /// cached key, also when no refetch follows (the second refusal, or after a cancel).
    @Test func theMachineDecidesWhatTheKeyCacheKeeps() {
        var fetched = Self.reach(.fetchingKey)
        let kept = fetched.handle(.keyFetched(.success(.init(key: Self.key, maxAge: 300))))
        #expect(kept.keyCache == .store(Self.key, maxAge: 300))
        #expect(kept.action == .encrypt(card: Self.card, key: Self.key))
        var uncacheable = Self.reach(.fetchingKey)
        #expect(uncacheable.handle(.keyFetched(.success(.init(key: Self.key, maxAge: 0)))).keyCache == nil)
        var failed = Self.reach(.fetchingKey)
        #expect(failed.handle(.keyFetched(.failure(FlowError(.networkError, "down")))).keyCache == nil)
        var cached = Self.machine()
        #expect(cached.handle(.start(cachedKey: Self.key)).keyCache == nil)

        var m = Self.reach(.creatingSession)
        #expect(m.handle(.sessionAnswered(Self.create, .unknownKey)).keyCache == .drop)
        _ = m.handle(.keyFetched(.success(.init(key: Self.key, maxAge: 300))))
        let second = GatewayCall.createSession(encryptedCard: "f", idempotencyKey: Self.keys.createSessionWithNewKey)
        _ = m.handle(.encrypted(.success("f")))
        let refusedAgain = m.handle(.sessionAnswered(second, .unknownKey))
        #expect(refusedAgain.keyCache == .drop)
        #expect(Self.terminal(refusedAgain.action)?.error?.code == .encryptionKeyUnavailable)

        var cancelled = Self.reach(.creatingSession)
        _ = cancelled.handle(.cancel)
        let refusedAfterCancel = cancelled.handle(.sessionAnswered(Self.create, .unknownKey))
        #expect(refusedAfterCancel.keyCache == .drop)
        #expect(Self.terminal(refusedAfterCancel.action)?.outcome == .cancelled)
        // Other answers leave the cache alone.
        var answered = Self.reach(.creatingSession)
        #expect(answered.handle(.sessionAnswered(Self.create, Self.session(.authenticationRequired))).keyCache == nil)
    }

    @Test func keyFailureIsEncryptionKeyUnavailableBeforeAnythingWasSent() {
        var m = Self.reach(.fetchingKey)
        let end = Self.terminal(Self.action(&m, .keyFetched(.failure(FlowError(.networkError, "down")))))
        #expect(end?.outcome == .failed)
        #expect(end?.error?.code == .encryptionKeyUnavailable)
    }

    @Test func creationCarriesTheCreationKey() {
        var m = Self.reach(.encrypting)
        #expect(Self.action(&m, .encrypted(.success(Self.jwe))) == .call(Self.create))
    }

    @Test func unknownKeyRefetchesOnceWithANewIdempotencyKey() {
        var m = Self.reach(.creatingSession)
        #expect(Self.action(&m, .sessionAnswered(Self.create, .unknownKey)) == .fetchKey(refresh: true))
        _ = m.handle(.keyFetched(.success(.init(key: Self.key, maxAge: 300))))
        let second = GatewayCall.createSession(
            encryptedCard: "f.g.h.i.j", idempotencyKey: Self.keys.createSessionWithNewKey)
        #expect(Self.action(&m, .encrypted(.success("f.g.h.i.j"))) == .call(second))
        let end = Self.terminal(Self.action(&m, .sessionAnswered(second, .unknownKey)))
        #expect(end?.outcome == .failed)
        #expect(end?.error?.code == .encryptionKeyUnavailable)
    }

    /// Why list: a 5xx on session creation that the gateway applied was `.failed`. Now the creation is
    /// sent once more with the same key, and the gateway's real answer decides.
    @Test func aFiveHundredOnCreationResendsWithTheSameKey() {
        var m = Self.reach(.creatingSession)
        #expect(Self.action(&m, .sessionAnswered(Self.create, Self.fiveHundred)) == .call(Self.create))
        #expect(
            Self.action(&m, .sessionAnswered(Self.create, Self.session(.completed)))
                == .finish(Terminal(outcome: .succeeded, sessionId: "s_1")))
    }

    @Test(arguments: ["5xx", "lost", "unreachable", "refused"])
    func aResentCreationThatIsStillNotConfirmedIsUnresolved(second: String) {
        var m = Self.reach(.creatingSession)
        _ = m.handle(.sessionAnswered(Self.create, Self.lost))
        let reply: SessionReply =
            switch second {
            case "5xx": Self.fiveHundred
            case "lost": Self.lost
            case "unreachable": .unreachable(FlowError(.networkError, "refused"))
            default: .refused(FlowError(.invalidRequest, "HTTP 400"))
            }
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.create, reply)))
        #expect(end?.outcome == .unresolved)
        #expect(end?.error?.inDoubt == true)
    }

    /// Why list: `409 PAYMENT_ALREADY_PROCESSED`, reached by the natural retry after an `.unresolved`
    /// creation, was `.failed` with the advice to try again.
    @Test func paymentAlreadyProcessedOnCreationIsUnresolvedWithAskTheBackend() {
        var m = Self.reach(.creatingSession)
        let reply = SessionReply.doubtful(
            FlowError(.cardSessionFailed, "HTTP 409", httpStatus: 409, gatewayCode: "PAYMENT_ALREADY_PROCESSED"),
            .conflict)
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.create, reply)))
        #expect(end?.outcome == .unresolved)
        #expect(end?.error?.code == .cardSessionFailed)
        let advice = end?.error?.nsError.localizedDescription ?? ""
        #expect(advice.contains("ask your backend"))
        #expect(!advice.contains("try again"))
    }

    @Test func definitiveRefusalsOnTheFirstCreationAreFailed() {
        for error in [
            FlowError(.cardBrandNotAccepted, "brand"), FlowError(.encryptionFailed, "decryption"),
            FlowError(.invalidRequest, "401"),
        ] {
            var m = Self.reach(.creatingSession)
            let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.create, .refused(error))))
            #expect(end == .failed(error))
        }
        var m = Self.reach(.creatingSession)
        let unreachable = FlowError(.networkError, "connection refused")
        #expect(
            Self.terminal(Self.action(&m, .sessionAnswered(Self.create, .unreachable(unreachable))))
                == .failed(unreachable))
    }

    @Test func requestInProgressWaitsThenResendsTheCreation() {
        var m = Self.reach(.creatingSession)
        let busy = FlowError(.cardSessionFailed, "HTTP 409 REQUEST_IN_PROGRESS")
        // Waited out and resent with the same key, a bounded number of times.
        for _ in 0..<ResendBudget.inProgressWaits {
            #expect(Self.action(&m, .sessionAnswered(Self.create, .inProgress(busy))) == .wait(1))
            #expect(Self.action(&m, .waitEnded) == .call(Self.create))
        }
        #expect(
            Self.terminal(Self.action(&m, .sessionAnswered(Self.create, .inProgress(busy))))?.outcome == .unresolved)
        // The first request's answer, once the gateway has one, is what the resend brings.
        var answered = Self.reach(.creatingSession)
        _ = answered.handle(.sessionAnswered(Self.create, .inProgress(busy)))
        _ = answered.handle(.waitEnded)
        #expect(
            Self.action(&answered, .sessionAnswered(Self.create, Self.session(.authenticationRequired)))
                == .reportBrowser)
        #expect(Self.action(&answered, .browserReported(nil)) == .call(Self.authenticate))
    }

    // MARK: Steps in doubt

    /// Why list: a 5xx on authentication that the gateway applied, followed by a session read that also
    /// fails, was `.failed` while the gateway settled.
    @Test(arguments: [CardPaymentMachineTests.Reach.authenticating, .submittingChallengeResult])
    func aStepInDoubtWhoseReadBackFailsIsUnresolved(state: Reach) {
        var m = Self.reach(state)
        let call = state == .authenticating ? Self.authenticate : Self.challengeResult
        #expect(Self.action(&m, .sessionAnswered(call, Self.fiveHundred)) == .call(Self.read))
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.read, Self.lost)))
        #expect(end?.outcome == .unresolved)
        #expect(end?.sessionId == "s_1")
        #expect(end?.error?.code == .cardSessionFailed)  // the step's error, not the read's
    }

    @Test func aStepTheGatewayAppliedIsTakenFromTheReadBack() {
        var m = Self.reach(.authenticating)
        _ = m.handle(.sessionAnswered(Self.authenticate, Self.lost))
        #expect(
            Self.action(&m, .sessionAnswered(Self.read, Self.session(.completed, trans: "Y")))
                == .finish(Terminal(outcome: .succeeded, sessionId: "s_1")))
    }

    /// Why list: a slow authentication was sent twice (read-then-resend after a timeout). The resend
    /// carries the same Idempotency-Key, so a gateway that honours it answers the first one's result.
    @Test func aStepNotAppliedIsResentOnceWithTheSameKey() {
        var m = Self.reach(.authenticating)
        _ = m.handle(.sessionAnswered(Self.authenticate, Self.lost))
        #expect(
            Self.action(&m, .sessionAnswered(Self.read, Self.session(.authenticationRequired)))
                == .call(Self.authenticate))
        // Still in doubt after the resend, and still not applied: the SDK does not know.
        #expect(Self.action(&m, .sessionAnswered(Self.authenticate, Self.lost)) == .call(Self.read))
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.read, Self.session(.authenticationRequired))))
        #expect(end?.outcome == .unresolved)
    }

    @Test func aRefusalOfAResentStepIsUnresolved() {
        var m = Self.reach(.authenticating)
        _ = m.handle(.sessionAnswered(Self.authenticate, Self.lost))
        _ = m.handle(.sessionAnswered(Self.read, Self.session(.authenticationRequired)))
        // The first attempt may have been applied: the session is read back, not believed refused.
        #expect(
            Self.action(&m, .sessionAnswered(Self.authenticate, .refused(FlowError(.invalidRequest, "HTTP 400"))))
                == .call(Self.read))
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.read, Self.session(.authenticationRequired))))
        #expect(end?.outcome == .unresolved)
    }

    @Test func aRefusalOfAFirstStepIsFailed() {
        var m = Self.reach(.authenticating)
        let refusal = FlowError(.invalidRequest, "HTTP 404 SESSION_NOT_FOUND")
        #expect(
            Self.terminal(Self.action(&m, .sessionAnswered(Self.authenticate, .refused(refusal))))
                == .failed(refusal, sessionId: "s_1"))
    }

    /// Why list: `COMPLETED` with `transStatus N` was taken as success.
    @Test func completedWithNotAuthenticatedIsReadBackThenUnresolved() {
        var m = Self.reach(.authenticating)
        #expect(
            Self.action(&m, .sessionAnswered(Self.authenticate, Self.session(.completed, trans: "N")))
                == .call(Self.read))
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.read, Self.session(.completed, trans: "R"))))
        #expect(end?.outcome == .unresolved)
        #expect(end?.error?.code == .invalidResponse)
        var resolved = Self.reach(.authenticating)
        _ = resolved.handle(.sessionAnswered(Self.authenticate, Self.session(.completed, trans: "N")))
        let failure = FlowError(.authenticationFailed, "N")
        #expect(
            Self.terminal(
                Self.action(&resolved, .sessionAnswered(Self.read, Self.session(.failed(failure), trans: "N"))))
                == .failed(failure, sessionId: "s_1"))
    }

    // MARK: The challenge

    @Test func theNotificationPageEndsTheChallengeAndTheResultIsAsked() {
        var m = Self.reach(.challenging)
        let reaction = m.handle(.navigation(Self.notification))
        #expect(reaction.navigation == .allow)
        #expect(Self.action(&m, .pageLoaded(Self.notification)) == .dismissPage)
        #expect(Self.action(&m, .pageDismissed) == .call(Self.challengeResult))
        #expect(
            Self.action(&m, .sessionAnswered(Self.challengeResult, Self.session(.completed, trans: "Y")))
                == .finish(Terminal(outcome: .succeeded, sessionId: "s_1")))
    }

    /// Why: WebKit reported the issuer's submit page's own load after its script had already posted `cres`
    /// on to the notification URL; the machine took that load for the notification's and dismissed the
    /// page, cutting the POST before the gateway saw it (seen as a missing `notification` in the
    /// sandbox's log of a keyboard-only payment under load).
    @Test func theIssuersLateLoadDoesNotEndTheChallengeBeforeTheNotificationLoads() {
        var m = Self.reach(.challenging)
        #expect(m.handle(.navigation(Self.notification)).navigation == .allow)
        #expect(Self.action(&m, .pageLoaded(URL(string: "https://acs.example/challenge/submit")!)) == .none)
        #expect(m.stateName == "completingChallenge")
        #expect(Self.action(&m, .pageLoaded(Self.notification)) == .dismissPage)
    }

    /// A notification page that redirects (a gateway's 303 to its result page) ends the challenge with
    /// the load of where it went, not with the notification URL's (which is never reported as loaded).
    @Test func aRedirectedNotificationPageEndsTheChallengeWithItsTargetsLoad() {
        var m = Self.reach(.challenging)
        let result = URL(string: "https://checkout.example/gw/checkout/3ds/result/s_1")!
        #expect(m.handle(.navigation(Self.notification)).navigation == .allow)
        #expect(m.handle(.navigation(result)).navigation == .allow)
        #expect(Self.action(&m, .pageLoaded(URL(string: "https://acs.example/challenge")!)) == .none)
        #expect(Self.action(&m, .pageLoaded(result)) == .dismissPage)
        #expect(Self.action(&m, .pageDismissed) == .call(Self.challengeResult))
    }

    /// Why list: a challenge the buyer answered correctly, when the next page failed to load, was
    /// `.failed`; one challenge-result would have completed it. And an abandoned challenge never ended.
    @Test(arguments: [
        FlowEvent.pageFailed(URL(string: "https://acs.example/next")!, reason: "reset"), .pageClosedByBuyer,
        .pageTimedOut, .cancel,
    ])
    func anAbnormalEndingAsksTheGatewayAndTheIssuersAnswerWins(ending: FlowEvent) {
        var m = Self.reach(.challenging)
        #expect(Self.action(&m, ending) == .dismissPage)
        #expect(Self.action(&m, .pageDismissed) == .call(Self.challengeResult))
        #expect(
            Self.action(&m, .sessionAnswered(Self.challengeResult, Self.session(.completed, trans: "Y")))
                == .finish(Terminal(outcome: .succeeded, sessionId: "s_1")))
    }

    @Test(arguments: [
        (FlowEvent.pageFailed(URL(string: "https://acs.example/next")!, reason: "reset"), PaymentOutcome.failed),
        (.pageClosedByBuyer, .cancelled), (.pageTimedOut, .cancelled), (.cancel, .cancelled),
    ])
    func anUnansweredChallengeIsCancelledOrPageLoadFailed(ending: FlowEvent, outcome: PaymentOutcome) {
        var m = Self.reach(.challenging)
        _ = m.handle(ending)
        _ = m.handle(.pageDismissed)
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.challengeResult, .challengeNotCompleted)))
        #expect(end?.outcome == outcome)
        #expect(end?.sessionId == "s_1")
        #expect(end?.error?.code == (outcome == .failed ? .pageLoadFailed : nil))
    }

    @Test func notCompletedAfterTheNotificationPageIsUnresolved() {
        var m = Self.reach(.submittingChallengeResult)
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.challengeResult, .challengeNotCompleted)))
        #expect(end?.outcome == .unresolved)
    }

    /// "Not shown" or no answer at all: the page's navigations may have gone out, so the challenge is
    /// ended and the gateway asked; `CHALLENGE_NOT_COMPLETED` is then `.failed` + `presentationFailed`.
    @Test(arguments: [FlowEvent.presented(shown: false), .presentationTimedOut])
    func aPresenterThatDidNotShowThePageIsAskedAbout(event: FlowEvent) {
        var m = Self.reach(.presentingChallenge)
        #expect(Self.action(&m, event) == .dismissPage)
        #expect(Self.action(&m, .pageDismissed) == .call(Self.challengeResult))
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.challengeResult, .challengeNotCompleted)))
        #expect(end?.outcome == .failed)
        #expect(end?.error?.code == .presentationFailed)
        // The issuer's answer, when the buyer gave one on a page the presenter never confirmed, wins.
        var answered = Self.reach(.presentingChallenge)
        _ = answered.handle(event)
        _ = answered.handle(.pageDismissed)
        let paid = Self.terminal(
            Self.action(&answered, .sessionAnswered(Self.challengeResult, Self.session(.completed, trans: "Y"))))
        #expect(paid?.outcome == .succeeded)
    }

    /// A FAILED session saying PAYMENT_ALREADY_PROCESSED (classified in doubt) is never `.failed`: the
    /// session is read back and only a completed one is believed.
    @Test func paymentAlreadyProcessedAsAFailedSessionIsNeverFailed() {
        let processed = FlowError(
            .cardSessionFailed, "FAILED PAYMENT_ALREADY_PROCESSED", gatewayCode: "PAYMENT_ALREADY_PROCESSED")
        var m = Self.reach(.authenticating)
        #expect(
            Self.action(&m, .sessionAnswered(Self.authenticate, .doubtful(processed, .conflict)))
                == .call(Self.read))
        let end = Self.terminal(Self.action(&m, .sessionAnswered(Self.read, Self.session(.authenticationRequired))))
        #expect(end?.outcome == .unresolved)
        #expect(end?.error?.inDoubt == true)
        var created = Self.reach(.creatingSession)
        let first = Self.terminal(
            Self.action(&created, .sessionAnswered(Self.create, .doubtful(processed, .conflict))))
        #expect(first?.outcome == .unresolved)
    }

    // MARK: Cancel

    @Test(arguments: [CardPaymentMachineTests.Reach.idle, .fetchingKey, .encrypting])
    func cancelBeforeAnythingWasSentIsCancelled(state: Reach) {
        var m = Self.reach(state)
        #expect(Self.action(&m, .cancel) == .finish(.cancelled()))
    }

    @Test(arguments: [
        CardPaymentMachineTests.Reach.creatingSession, .authenticating, .submittingChallengeResult, .recovering,
    ])
    func cancelWithAMoneyMovingRequestOutWaitsForTheGatewaysAnswer(state: Reach) {
        var m = Self.reach(state)
        // Nothing ends yet: the request's answer (or its read-back) decides.
        #expect(Self.action(&m, .cancel) == .none)
        let call: GatewayCall
        switch state {
        case .creatingSession: call = Self.create
        case .authenticating: call = Self.authenticate
        case .submittingChallengeResult: call = Self.challengeResult
        default: call = Self.read
        }
        var paid = m
        #expect(
            Self.terminal(Self.action(&paid, .sessionAnswered(call, Self.session(.completed, trans: "Y"))))?.outcome
                == .succeeded)
    }

    /// After a cancel the session's next step is not sent: a session still waiting for authentication
    /// or for its challenge moved no money, so the payment is `.cancelled`.
    @Test func aCancelWhileCreatingEndsCancelledWhenTheSessionStillWaits() {
        var m = Self.reach(.creatingSession)
        _ = m.handle(.cancel)
        let end = Self.terminal(
            Self.action(&m, .sessionAnswered(Self.create, Self.session(.authenticationRequired))))
        #expect(end?.outcome == .cancelled)
        #expect(end?.sessionId == "s_1")
        var challenged = Self.reach(.authenticating)
        _ = challenged.handle(.cancel)
        let shown = Self.terminal(
            Self.action(
                &challenged, .sessionAnswered(Self.authenticate, Self.session(.challengeRequired(Self.challenge)))))
        #expect(shown?.outcome == .cancelled)
        // A lost answer after the cancel is read back, and a step the gateway has not applied is not resent.
        var lost = Self.reach(.authenticating)
        _ = lost.handle(.cancel)
        #expect(Self.action(&lost, .sessionAnswered(Self.authenticate, Self.lost)) == .call(Self.read))
        #expect(
            Self.terminal(Self.action(&lost, .sessionAnswered(Self.read, Self.session(.authenticationRequired))))?
                .outcome == .unresolved)
    }

    // MARK: Never a trap

    @Test func anEventTheMachineCannotExplainEndsUnresolvedWithInvalidResponse() {
        var m = Self.reach(.creatingSession)
        let end = Self.terminal(Self.action(&m, .statusResolved(.success(.init(paymentStatus: "SETTLED")))))
        #expect(end?.outcome == .unresolved)
        #expect(end?.error?.code == .invalidResponse)
        var idle = Self.machine()
        #expect(Self.terminal(Self.action(&idle, .pageLoaded(Self.notification)))?.outcome == .unresolved)
    }

    @Test func descriptionsNeverShowTheCard() {
        let m = Self.reach(.encrypting)
        let text =
            String(describing: m) + String(reflecting: m)
            + FlowAction.encrypt(card: Self.card, key: Self.key).description
        #expect(!text.contains("4111111111111111"))
        #expect(!text.contains("4111 1111 1111 1111"))
        #expect(!text.contains("Jane"))
    }
}
