import CardValidation
internal import EGWWire
import Foundation

/// The card flow (CONTRACT.md sections 4 and 4a, GATEWAY.md "Card sessions") as a value: events in,
/// actions out, no I/O.
///
/// key (cached or fetched) -> encrypt -> create session -> [browser data -> [3DS Method page (at most
/// 10 s) -> dismiss] -> authenticate -> [challenge page -> dismiss -> challenge-result]] -> finish from
/// the final session state.
///
/// The 3DS Method (EMV 3DS 2.2): a session waiting for its authentication may name a method; the
/// presenter loads it invisibly, and the authentication says `threeDSCompInd` `Y` when the page reached
/// the method notification URL and that load ended, `N` when it failed, could not be loaded or the
/// lifecycle's 10 s deadline passed, `U` without a method. A method never fails the payment; a cancel
/// during it removes it and ends `.cancelled` (the authentication, the step that can move money, is
/// never sent). A presenter's browser report EMV's formats refuse ends `.failed` + `invalidRequest`
/// before the authentication (no money can have moved).
///
/// The kit's key cache is the machine's to decide (`FlowReaction.keyCache`, performed by the executor on
/// the one `EncryptionKeyCache`): the cached key the run starts with is used, else one is fetched; a
/// fetched key is kept for the `max-age` the gateway gave it (not at all without one); a key the gateway
/// refuses (`UNKNOWN_KEY`) is dropped, and fetched again once.
///
/// Truth under doubt: `.failed` and `.cancelled` only when no money can have moved — nothing that
/// could move money was sent, or the gateway said so. A money-moving POST (creation, authentication,
/// challenge-result) whose answer is in doubt (lost, 5xx, undecodable, an unexpected 2xx,
/// `PAYMENT_ALREADY_PROCESSED`) is recovered: the session is read back when one exists, and a step the
/// gateway shows it never applied is sent once more with the same `Idempotency-Key`; a creation is
/// resent once with its key. Whether and how often a step goes again is each step's `ResendBudget`'s
/// decision, never this machine's. Whatever cannot be confirmed ends `.unresolved` with the reason.
/// After a resend, only a session the gateway shows is believed.
///
/// A challenge that ends any way other than at the notification page (buyer close, host cancel, load
/// failure, deadline, a presenter that could not show it or never answered) is dismissed and the
/// gateway is asked (`challenge-result`): the issuer's answer if there is one; `CHALLENGE_NOT_COMPLETED`
/// gives `.cancelled` (close, cancel, deadline), `.failed` + `pageLoadFailed` (load failure) or
/// `.failed` + `presentationFailed` (the presenter: silent, or it lost the page). That holds even when
/// the challenge page posted something (a form or a script's request) before it ended: the buyer's
/// answer reaching the issuer moves no money, only `challenge-result` does (GATEWAY.md step 4), and the
/// SDK sends no other one after the gateway said the challenge is not completed. A host cancel while a
/// money-moving request is out waits for its answer and ends with what the gateway shows (see
/// `cancelRequested`).
struct CardPaymentMachine: FlowMachine, Equatable {
    /// What the machine needs, checked before it is built.
    ///
    /// `card` is the run's one snapshot, the value `RequestValidation` validated. Every textual view of
    /// the input (and so of the machine: `description`, `dump`, test failure output) shows the card as
    /// `card •••• 4242` only, never another field, the brand or the expiry.
    struct Input: Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        var card: CardInput.Snapshot
        var checkoutBaseURL: URL
        var keys: IdempotencyKeys

        var description: String {
            "Input(\(CardPlaintext.label(card)), checkoutBaseURL: \(checkoutBaseURL.absoluteString))"
        }
        var debugDescription: String { description }
        var customMirror: Mirror {
            Mirror(
                self,
                children: ["card": CardPlaintext.label(card), "checkoutBaseURL": checkoutBaseURL, "keys": keys],
                displayStyle: .struct)
        }
    }

    /// A money-moving step of an existing session.
    enum Step: Equatable, Sendable {
        case authentication
        case challengeResult
    }

    /// A step in doubt, being confirmed by reading the session.
    struct Doubt: Equatable, Sendable {
        var sessionId: String
        var step: Step
        /// The step's sends so far, and whether it may go again.
        var resends: ResendBudget
        /// How the challenge page ended (challenge-result only).
        var ending: PageEnding?
        /// Why the step is in doubt: the error reported if it cannot be confirmed.
        var cause: FlowError
        /// The authentication's 3-D Secure members (authentication only), for a resend with the same body.
        var threeDS: ThreeDSAuthentication? = nil
    }

    /// The creation POST, kept for its one resend.
    struct Creation: Equatable, Sendable {
        var input: Input
        /// This is the creation after `UNKNOWN_KEY` (with the key refetched).
        var withNewKey: Bool
        var encryptedCard: String
        /// The creation's sends so far, and whether it may go again.
        var resends = ResendBudget()

        var call: GatewayCall {
            .createSession(
                encryptedCard: encryptedCard,
                idempotencyKey: withNewKey ? input.keys.createSessionWithNewKey : input.keys.createSession)
        }
    }

    private enum State: Equatable {
        case idle(Input)
        /// Waiting for the key; `withNewKey`: the refetch after `UNKNOWN_KEY`.
        case fetchingKey(Input, withNewKey: Bool)
        case encrypting(Input, withNewKey: Bool)
        case creatingSession(Creation)
        /// `REQUEST_IN_PROGRESS` on the creation: waiting before its resend.
        case pausingCreation(Creation)
        /// The session waits for its authentication: the presenter is asked what browser it is.
        case reportingBrowser(sessionId: String, method: ThreeDSMethodPlan?)
        /// The invisible 3DS Method page is loading; waiting for its notification (10 s at most).
        case runningMethod(sessionId: String, notificationURL: URL, browser: ThreeDSBrowserFields)
        /// The method page reached the method notification URL; waiting for the load of `landing` (that
        /// URL, or where it was redirected) to end.
        case completingMethod(sessionId: String, landing: URL, browser: ThreeDSBrowserFields)
        /// The method page is being removed; then the authentication is sent with `threeDS`.
        case endingMethod(sessionId: String, threeDS: ThreeDSAuthentication)
        case authenticating(sessionId: String, resends: ResendBudget, threeDS: ThreeDSAuthentication)
        case presentingChallenge(sessionId: String, notificationURL: URL)
        case challenging(sessionId: String, notificationURL: URL)
        /// The page reached the notification URL; waiting for the load of `landing` (that URL, or where it
        /// was redirected) to end. A load of any other URL is an earlier page's, reported late.
        case completingChallenge(sessionId: String, landing: URL)
        case dismissingChallenge(sessionId: String, ending: PageEnding)
        case submittingChallengeResult(sessionId: String, resends: ResendBudget, ending: PageEnding)
        /// Reading the session back.
        case recovering(Doubt)
        /// `REQUEST_IN_PROGRESS` on a step: waiting before reading back.
        case pausingRecovery(Doubt)
        case finished
    }

    private var state: State
    /// The host cancelled while a money-moving request was out: the machine waits for its answer (or
    /// reads the step back), sends nothing new that could move money, and ends with what the gateway
    /// shows: its final state, `.cancelled` where the session still waits for the buyer, or
    /// `.unresolved` where it cannot tell.
    private var cancelRequested = false
    /// Where the notification URL of a challenge lives.
    private let checkoutBaseURL: URL
    private let keys: IdempotencyKeys

    init(_ input: Input) {
        state = .idle(input)
        checkoutBaseURL = input.checkoutBaseURL
        keys = input.keys
    }

    var stateName: String {
        switch state {
        case .idle: "idle"
        case .fetchingKey(_, let withNewKey): withNewKey ? "refetchingKey" : "fetchingKey"
        case .encrypting: "encrypting"
        case .creatingSession: "creatingSession"
        case .pausingCreation: "pausingCreation"
        case .reportingBrowser: "reportingBrowser"
        case .runningMethod: "runningThreeDSMethod"
        case .completingMethod: "completingThreeDSMethod"
        case .endingMethod: "endingThreeDSMethod"
        case .authenticating: "authenticating"
        case .presentingChallenge: "presentingChallenge"
        case .challenging: "challenging"
        case .completingChallenge: "completingChallenge"
        case .dismissingChallenge: "dismissingChallenge"
        case .submittingChallengeResult: "submittingChallengeResult"
        case .recovering: "recovering"
        case .pausingRecovery: "pausingRecovery"
        case .finished: "finished"
        }
    }

    /// The card-session id once one exists (for the result of any terminal path).
    var sessionId: String? {
        switch state {
        case .idle, .fetchingKey, .encrypting, .creatingSession, .pausingCreation, .finished: nil
        case .reportingBrowser(let id, _), .runningMethod(let id, _, _), .completingMethod(let id, _, _),
            .endingMethod(let id, _), .authenticating(let id, _, _), .presentingChallenge(let id, _),
            .challenging(let id, _),
            .completingChallenge(let id, _), .dismissingChallenge(let id, _), .submittingChallengeResult(let id, _, _):
            id
        case .recovering(let doubt), .pausingRecovery(let doubt): doubt.sessionId
        }
    }

    /// Feeds one event: the only entry point.
    mutating func handle(_ event: FlowEvent) -> FlowReaction {
        switch event {
        case .start(let cachedKey): FlowReaction(start(cachedKey: cachedKey, event))
        case .keyFetched(let result): keyFetched(result, event)
        case .encrypted(let result): FlowReaction(encrypted(result, event))
        case .sessionAnswered(let call, let reply):
            // A creation the gateway refused unread: its key is dead for every later payment too.
            FlowReaction(answered(call, reply, event), keyCache: reply == .unknownKey ? .drop : nil)
        case .waitEnded: FlowReaction(waitEnded(event))
        case .presented(let shown): FlowReaction(presented(shown, event))
        case .navigation(let url, _): navigation(to: url, event)
        case .presentationTimedOut: FlowReaction(pageEnded(.presenterSilent, event))
        case .pageLoaded(let url): FlowReaction(pageLoaded(url, event))
        case .pageFailed(_, let reason): FlowReaction(pageEnded(.loadFailed(reason: reason), event))
        case .pageClosedByBuyer: FlowReaction(pageEnded(.closedByBuyer, event))
        case .pageSentRequest: FlowReaction(pageSent(event))
        case .pageTerminated(let reason): FlowReaction(pageEnded(.presenterFailed(reason: reason), event))
        case .pageTimedOut: FlowReaction(pageEnded(.timedOut, event))
        case .pageDismissed: FlowReaction(pageDismissed(event))
        case .cancel: FlowReaction(cancel())
        case .statusResolved: FlowReaction(finish(unexplained(event)))
        case .browserReported(let report): FlowReaction(browserReported(report, event))
        }
    }

    // MARK: - Key and encryption

    private mutating func start(cachedKey: EncryptionKey?, _ event: FlowEvent) -> FlowAction {
        guard case .idle(let input) = state else { return finish(unexplained(event)) }
        if let cachedKey {
            state = .encrypting(input, withNewKey: false)
            return .encrypt(card: input.card, key: cachedKey)
        }
        state = .fetchingKey(input, withNewKey: false)
        return .fetchKey(refresh: false)
    }

    private mutating func keyFetched(
        _ result: Result<GatewayAPI.KeyChoice, FlowError>, _ event: FlowEvent
    ) -> FlowReaction {
        guard case .fetchingKey(let input, let withNewKey) = state else {
            return FlowReaction(finish(unexplained(event)))
        }
        switch result {
        case .success(let choice):
            state = .encrypting(input, withNewKey: withNewKey)
            // Kept for the lifetime the gateway gave it; a key without one is used for this payment only.
            return FlowReaction(
                .encrypt(card: input.card, key: choice.key),
                keyCache: choice.maxAge > 0 ? .store(choice.key, maxAge: choice.maxAge) : nil)
        case .failure(let error):
            // Nothing that moves money was sent (or, after UNKNOWN_KEY, the gateway refused the card).
            return FlowReaction(
                finish(
                    .failed(
                        error.code == .encryptionKeyUnavailable
                            ? error
                            : error.wrapped(
                                as: .encryptionKeyUnavailable, "the card-encryption key could not be fetched"))))
        }
    }

    private mutating func encrypted(_ result: Result<String, FlowError>, _ event: FlowEvent) -> FlowAction {
        guard case .encrypting(let input, let withNewKey) = state else { return finish(unexplained(event)) }
        switch result {
        case .success(let compact):
            let creation = Creation(input: input, withNewKey: withNewKey, encryptedCard: compact)
            state = .creatingSession(creation)
            return .call(creation.call)
        case .failure(let error):
            return finish(.failed(error))
        }
    }

    // MARK: - Gateway answers

    private mutating func answered(_ call: GatewayCall, _ reply: SessionReply, _ event: FlowEvent) -> FlowAction {
        switch (state, call) {
        case (.creatingSession(let creation), .createSession):
            return created(creation, reply)
        case (.authenticating(let sessionId, let resends, let threeDS), .authenticate):
            return afterStep(
                .authentication, sessionId: sessionId, resends: resends, ending: nil, threeDS: threeDS, reply: reply)
        case (.submittingChallengeResult(let sessionId, let resends, let ending), .challengeResult):
            return afterStep(
                .challengeResult, sessionId: sessionId, resends: resends, ending: ending, threeDS: nil, reply: reply)
        case (.recovering(let doubt), .readSession):
            return sessionRead(doubt, reply)
        case (.creatingSession, _), (.authenticating, _), (.submittingChallengeResult, _), (.recovering, _),
            (.idle, _), (.fetchingKey, _), (.encrypting, _), (.pausingCreation, _), (.presentingChallenge, _),
            (.challenging, _), (.completingChallenge, _), (.dismissingChallenge, _), (.pausingRecovery, _),
            (.finished, _), (.reportingBrowser, _), (.runningMethod, _), (.completingMethod, _), (.endingMethod, _):
            // An answer to a call this state did not make.
            return finish(unexplained(event))
        }
    }

    private mutating func created(_ creation: Creation, _ reply: SessionReply) -> FlowAction {
        switch reply {
        case .session(let snapshot):
            if snapshot.isContradictory {
                return recover(
                    Doubt(
                        sessionId: snapshot.sessionId, step: .authentication, resends: .readBackOnly, ending: nil,
                        cause: Self.contradiction(snapshot, source: creation.call.description)))
            }
            return proceed(with: snapshot)
        case .unknownKey where creation.resends.sentOnce:
            // The gateway refused the card unread; after a cancel it is not sent again.
            if cancelRequested { return finish(.cancelled()) }
            guard creation.withNewKey else {
                state = .fetchingKey(creation.input, withNewKey: true)
                return .fetchKey(refresh: true)
            }
            return finish(
                .failed(
                    FlowError(
                        .encryptionKeyUnavailable, "the gateway refused the freshly fetched key too (UNKNOWN_KEY)",
                        source: "POST card-sessions", httpStatus: 422, gatewayCode: "UNKNOWN_KEY")))
        case .refused(let error) where creation.resends.sentOnce,
            .unreachable(let error) where creation.resends.sentOnce:
            return finish(.failed(error))
        case .doubtful(let error, let doubt):
            // No session id to read back: only the same request can bring the answer.
            guard let resends = creation.resends.resending(on: .creationInDoubt(doubt)) else {
                return finish(.unresolved(error))
            }
            guard !cancelRequested else { return finish(.unresolved(Self.cancelledInDoubt(error))) }
            var resend = creation
            resend.resends = resends
            state = .creatingSession(resend)
            return .call(resend.call)
        case .inProgress(let error):
            // The same key's first request is still being processed: wait, then send it again with the
            // same key, which brings that request's answer once it has one.
            guard let resends = creation.resends.resending(on: .creationInProgress) else {
                return finish(.unresolved(error))
            }
            guard !cancelRequested else { return finish(.unresolved(Self.cancelledInDoubt(error))) }
            var resend = creation
            resend.resends = resends
            state = .pausingCreation(resend)
            return .wait(ResendBudget.inProgressPause)
        case .refused(let error), .unreachable(let error):
            // Sent more than once: the gateway may have a session from an earlier send that moved money.
            return finish(.unresolved(error))
        case .unknownKey, .challengeNotCompleted:
            return finish(
                .unresolved(
                    FlowError(
                        .invalidResponse, "\(reply) answered to a repeated card-session creation",
                        source: "POST card-sessions")))
        }
    }

    private mutating func afterStep(
        _ step: Step, sessionId: String, resends: ResendBudget, ending: PageEnding?,
        threeDS: ThreeDSAuthentication?, reply: SessionReply
    ) -> FlowAction {
        let source = step == .authentication ? "POST authentication" : "POST challenge-result"
        func doubt(_ cause: FlowError) -> Doubt {
            Doubt(sessionId: sessionId, step: step, resends: resends, ending: ending, cause: cause, threeDS: threeDS)
        }
        switch reply {
        case .session(let snapshot):
            if snapshot.isContradictory {
                var contradiction = doubt(Self.contradiction(snapshot, source: source))
                contradiction.resends = .readBackOnly  // read back once; never resend over a contradiction
                return recover(contradiction)
            }
            return proceed(with: snapshot)
        case .challengeNotCompleted:
            return challengeNotCompleted(sessionId: sessionId, ending: ending, source: source)
        case .refused(let error) where resends.sentOnce, .unreachable(let error) where resends.sentOnce:
            return finish(.failed(error, sessionId: sessionId))
        case .inProgress(let error):
            state = .pausingRecovery(doubt(error))
            return .wait(ResendBudget.inProgressPause)
        case .doubtful(let error, _), .refused(let error), .unreachable(let error):
            // A session exists: reading it back tells whether the step was applied (and may go again).
            return recover(doubt(error))
        case .unknownKey:
            return recover(
                doubt(FlowError(.invalidResponse, "UNKNOWN_KEY answered to \(source)", source: source)))
        }
    }

    /// The session read back after a step in doubt.
    private mutating func sessionRead(_ doubt: Doubt, _ reply: SessionReply) -> FlowAction {
        guard case .session(let snapshot) = reply else {
            return finish(.unresolved(doubt.cause, sessionId: doubt.sessionId))
        }
        if doubt.cause.gatewayCode == "PAYMENT_ALREADY_PROCESSED" {
            // The gateway said the payment is already paid (or being paid): only a completed session is
            // news; anything else leaves the SDK not knowing how this payment ended.
            guard case .completed = snapshot.status, !snapshot.isContradictory else {
                return finish(.unresolved(doubt.cause, sessionId: doubt.sessionId))
            }
            return proceed(with: snapshot)
        }
        if snapshot.isContradictory {
            return finish(
                .unresolved(
                    Self.contradiction(snapshot, source: "GET card-session"), sessionId: doubt.sessionId))
        }
        switch (doubt.step, snapshot.status) {
        case (.authentication, .authenticationRequired), (.challengeResult, .challengeRequired):
            // The gateway has not applied the step: send it again with the same key if its budget allows
            // (never after a cancel: the host asked the SDK to stop moving money).
            guard let resends = doubt.resends.resending(on: .notApplied), !cancelRequested else {
                return finish(.unresolved(doubt.cause, sessionId: doubt.sessionId))
            }
            switch doubt.step {
            case .authentication:
                // The same body as the first send (its key's), or, for a session whose authentication
                // was never sent, the browser flow from its start.
                guard let threeDS = doubt.threeDS else { return proceed(with: snapshot) }
                return authenticate(sessionId: doubt.sessionId, resends: resends, threeDS: threeDS)
            case .challengeResult:
                return submitChallengeResult(
                    sessionId: doubt.sessionId, resends: resends, ending: doubt.ending ?? .reachedEnd)
            }
        case (.challengeResult, .authenticationRequired):
            return finish(
                .unresolved(
                    FlowError(
                        .invalidResponse, "the session went back to AUTHENTICATION_REQUIRED after its challenge",
                        source: "GET card-session"), sessionId: doubt.sessionId))
        case (.authentication, .challengeRequired), (_, .completed), (_, .failed):
            return proceed(with: snapshot)
        }
    }

    private mutating func waitEnded(_ event: FlowEvent) -> FlowAction {
        switch state {
        case .pausingCreation(let creation):
            guard !cancelRequested else {
                return finish(
                    .unresolved(
                        Self.cancelledInDoubt(
                            FlowError(
                                .cardSessionFailed, "the card-session creation was still in progress",
                                source: "POST card-sessions", httpStatus: 409, gatewayCode: "REQUEST_IN_PROGRESS"))))
            }
            state = .creatingSession(creation)
            return .call(creation.call)
        case .pausingRecovery(let doubt):
            return recover(doubt)
        case .idle, .fetchingKey, .encrypting, .creatingSession, .authenticating, .presentingChallenge, .challenging,
            .completingChallenge, .dismissingChallenge, .submittingChallengeResult, .recovering, .finished,
            .reportingBrowser, .runningMethod, .completingMethod, .endingMethod:
            return finish(unexplained(event))
        }
    }

    private mutating func recover(_ doubt: Doubt) -> FlowAction {
        state = .recovering(doubt)
        return .call(.readSession(sessionId: doubt.sessionId))
    }

    private static func contradiction(_ snapshot: SessionSnapshot, source: String) -> FlowError {
        FlowError(
            .invalidResponse,
            "the gateway reports COMPLETED with transStatus \(snapshot.transStatus ?? "?"), which contradicts itself",
            source: source)
    }

    /// `409 CHALLENGE_NOT_COMPLETED`: the issuer has no answer from the buyer, so no money moved.
    private mutating func challengeNotCompleted(sessionId: String, ending: PageEnding?, source: String) -> FlowAction {
        switch ending {
        case .closedByBuyer, .cancelledByHost, .timedOut:
            return finish(.cancelled(sessionId: sessionId))
        case .presenterSilent:
            return finish(
                .failed(
                    FlowError(
                        .presentationFailed,
                        "the presenter did not confirm the 3-D Secure challenge was shown; the gateway says it was "
                            + "not completed", source: "presenter"),
                    sessionId: sessionId))
        case .presenterFailed(let reason):
            return finish(
                .failed(
                    FlowError(
                        .presentationFailed,
                        "the presenter lost the 3-D Secure challenge (\(reason)); the gateway says it was not "
                            + "completed", source: "presenter"),
                    sessionId: sessionId))
        case .loadFailed(let reason):
            return finish(
                .failed(
                    FlowError(
                        .pageLoadFailed, "the 3-D Secure challenge page failed to load: \(reason)", source: "presenter"),
                    sessionId: sessionId))
        case .reachedEnd, nil:
            return finish(
                .unresolved(
                    FlowError(
                        .invalidResponse,
                        "the issuer sent the buyer back, but the gateway says the challenge was not completed",
                        source: source, httpStatus: 409, gatewayCode: "CHALLENGE_NOT_COMPLETED"),
                    sessionId: sessionId))
        }
    }

    private mutating func authenticate(
        sessionId: String, resends: ResendBudget, threeDS: ThreeDSAuthentication
    ) -> FlowAction {
        // After a cancel nothing new that could move money is sent: the session waits for a step that
        // never comes, so no money moves.
        if cancelRequested { return finish(.cancelled(sessionId: sessionId)) }
        guard let notificationURL = GatewayAPI.notificationURL(checkoutBaseURL: checkoutBaseURL, sessionId: sessionId)
        else { return finish(Self.unusableSessionId(sessionId, source: "authentication")) }
        state = .authenticating(sessionId: sessionId, resends: resends, threeDS: threeDS)
        return .call(
            .authenticate(
                sessionId: sessionId, notificationURL: notificationURL, idempotencyKey: keys.authentication,
                threeDS: threeDS))
    }

    // MARK: - Browser data and the 3DS Method

    private mutating func browserReported(_ report: ThreeDSBrowserData?, _ event: FlowEvent) -> FlowAction {
        guard case .reportingBrowser(let sessionId, let method) = state else { return finish(unexplained(event)) }
        if cancelRequested { return finish(.cancelled(sessionId: sessionId)) }
        let browser: ThreeDSBrowserFields
        switch ThreeDSAuthentication.browser(report) {
        case .success(let fields): browser = fields
        case .failure(let error):
            // Nothing that moves money was sent for this session: the authentication never went out.
            return finish(.failed(error, sessionId: sessionId))
        }
        guard let method else {
            return authenticate(
                sessionId: sessionId, resends: ResendBudget(),
                threeDS: ThreeDSAuthentication(compInd: .unavailable, browser: browser))
        }
        guard let url = method.url,
            let notificationURL = GatewayAPI.methodNotificationURL(
                checkoutBaseURL: checkoutBaseURL, sessionId: sessionId)
        else {
            // A method that cannot be loaded is one that did not complete; it never fails the payment.
            return authenticate(
                sessionId: sessionId, resends: ResendBudget(),
                threeDS: ThreeDSAuthentication(compInd: .notCompleted, browser: browser))
        }
        state = .runningMethod(sessionId: sessionId, notificationURL: notificationURL, browser: browser)
        return .present(GatewayAPI.methodPage(url: url, data: method.data))
    }

    /// Ends the method page (dismissed first); the authentication then says `compInd`.
    private mutating func endMethod(_ compInd: ThreeDSCompInd) -> FlowAction {
        switch state {
        case .runningMethod(let sessionId, _, let browser), .completingMethod(let sessionId, _, let browser):
            state = .endingMethod(
                sessionId: sessionId, threeDS: ThreeDSAuthentication(compInd: compInd, browser: browser))
            return .dismissPage
        case .idle, .fetchingKey, .encrypting, .creatingSession, .pausingCreation, .reportingBrowser, .endingMethod,
            .authenticating, .presentingChallenge, .challenging, .completingChallenge, .dismissingChallenge,
            .submittingChallengeResult, .recovering, .pausingRecovery, .finished:
            return .none
        }
    }

    private mutating func submitChallengeResult(
        sessionId: String, resends: ResendBudget, ending: PageEnding
    ) -> FlowAction {
        state = .submittingChallengeResult(sessionId: sessionId, resends: resends, ending: ending)
        return .call(.challengeResult(sessionId: sessionId, idempotencyKey: keys.challengeResult))
    }

    /// Moves on from a session state the gateway reported.
    private mutating func proceed(with snapshot: SessionSnapshot) -> FlowAction {
        let sessionId = snapshot.sessionId
        switch snapshot.status {
        case .authenticationRequired:
            if cancelRequested { return finish(.cancelled(sessionId: sessionId)) }
            state = .reportingBrowser(sessionId: sessionId, method: snapshot.method)
            return .reportBrowser
        case .challengeRequired(let challenge):
            // A cancel while the step was out: the challenge is never shown, so it is never answered.
            if cancelRequested { return finish(.cancelled(sessionId: sessionId)) }
            guard
                let notificationURL = GatewayAPI.notificationURL(checkoutBaseURL: checkoutBaseURL, sessionId: sessionId)
            else { return finish(Self.unusableSessionId(sessionId, source: "challenge")) }
            state = .presentingChallenge(sessionId: sessionId, notificationURL: notificationURL)
            return .present(GatewayAPI.challengePage(challenge))
        case .completed:
            return finish(Terminal(outcome: .succeeded, sessionId: sessionId))
        case .failed(let error):
            return finish(.failed(error, sessionId: sessionId))
        }
    }

    /// The gateway's session id cannot be part of the notification URL: out of protocol, and a session
    /// exists, so the SDK does not know how it ends.
    private static func unusableSessionId(_ sessionId: String, source: String) -> Terminal {
        .unresolved(
            FlowError(.invalidResponse, "the session id cannot be part of a notification URL", source: source),
            sessionId: sessionId)
    }

    // MARK: - Challenge page

    private mutating func presented(_ shown: Bool, _ event: FlowEvent) -> FlowAction {
        switch state {
        case .presentingChallenge(let sessionId, let notificationURL):
            if shown {
                state = .challenging(sessionId: sessionId, notificationURL: notificationURL)
                return .none
            }
            // The presenter says it could not show the page; its navigations may still have gone out,
            // so the gateway is asked (challenge-result) as for any other ending of the page.
            return pageEnded(.presenterSilent, event)
        case .completingChallenge(let sessionId, _):
            guard !shown else { return .none }  // the notification page's load ends the challenge
            // The page reached the notification URL but is not on screen: its load will not be reported.
            state = .dismissingChallenge(sessionId: sessionId, ending: .reachedEnd)
            return .dismissPage
        case .runningMethod, .completingMethod:
            return shown ? .none : endMethod(.notCompleted)
        case .dismissingChallenge, .submittingChallengeResult, .recovering, .pausingRecovery, .endingMethod:
            // The challenge ended before the presenter's answer: the dismissal waited for it (or had
            // nothing to remove); the answer changes nothing now.
            return .none
        case .idle, .fetchingKey, .encrypting, .creatingSession, .pausingCreation, .authenticating, .challenging,
            .finished, .reportingBrowser:
            return finish(unexplained(event))
        }
    }

    private mutating func navigation(to url: URL, _ event: FlowEvent) -> FlowReaction {
        switch state {
        case .presentingChallenge(let sessionId, let notificationURL), .challenging(let sessionId, let notificationURL):
            if URLMatch.sameEndpoint(url, notificationURL) {
                // Let the issuer's cres reach the gateway's page; the load's end ends the challenge.
                state = .completingChallenge(sessionId: sessionId, landing: url)
            }
            return FlowReaction(.none, navigation: .allow)
        case .runningMethod(let sessionId, let notificationURL, let browser):
            if URLMatch.sameEndpoint(url, notificationURL) {
                // The ACS ends the method: let its POST reach the gateway; that load's end says `Y`.
                state = .completingMethod(sessionId: sessionId, landing: url, browser: browser)
            }
            return FlowReaction(.none, navigation: .allow)
        case .completingChallenge(let sessionId, _):
            // The notification page redirects (or posts on): the page now ends with that load.
            state = .completingChallenge(sessionId: sessionId, landing: url)
            return FlowReaction(.none, navigation: .allow)
        case .completingMethod(let sessionId, _, let browser):
            state = .completingMethod(sessionId: sessionId, landing: url, browser: browser)
            return FlowReaction(.none, navigation: .allow)
        case .dismissingChallenge, .submittingChallengeResult, .recovering, .pausingRecovery, .endingMethod:
            return FlowReaction(.none, navigation: .cancel)
        case .idle, .fetchingKey, .encrypting, .creatingSession, .pausingCreation, .authenticating, .finished,
            .reportingBrowser:
            return FlowReaction(finish(unexplained(event)), navigation: .cancel)
        }
    }

    private mutating func pageLoaded(_ url: URL, _ event: FlowEvent) -> FlowAction {
        switch state {
        case .presentingChallenge, .challenging, .dismissingChallenge, .submittingChallengeResult, .recovering,
            .pausingRecovery:
            return .none
        case .completingChallenge(let sessionId, let landing):
            // Only the notification page's own load (or its redirect's) ends the challenge: the issuer's
            // page's load can be reported after its script already posted on, and dismissing then would
            // cut the `cres` POST before it reached the gateway.
            guard URLMatch.sameEndpoint(url, landing) else { return .none }
            state = .dismissingChallenge(sessionId: sessionId, ending: .reachedEnd)
            return .dismissPage
        case .runningMethod, .endingMethod:
            return .none
        case .completingMethod(_, let landing, _):
            // Only the notification page's own load says `Y`, for the same reason.
            return URLMatch.sameEndpoint(url, landing) ? endMethod(.completed) : .none
        case .idle, .fetchingKey, .encrypting, .creatingSession, .pausingCreation, .authenticating, .finished,
            .reportingBrowser:
            return finish(unexplained(event))
        }
    }

    /// A request the challenge page sent by itself. It changes nothing: whatever it carried to the issuer,
    /// only `challenge-result` moves money, and every ending of the page asks it.
    private mutating func pageSent(_ event: FlowEvent) -> FlowAction {
        switch state {
        case .presentingChallenge, .challenging, .completingChallenge, .dismissingChallenge,
            .submittingChallengeResult, .recovering, .pausingRecovery, .runningMethod, .completingMethod,
            .endingMethod:
            return .none
        case .idle, .fetchingKey, .encrypting, .creatingSession, .pausingCreation, .authenticating, .finished,
            .reportingBrowser:
            return finish(unexplained(event))
        }
    }

    /// The challenge page ended without reaching the notification page: dismiss it, then ask the gateway.
    private mutating func pageEnded(_ ending: PageEnding, _ event: FlowEvent) -> FlowAction {
        switch state {
        case .presentingChallenge(let sessionId, _), .challenging(let sessionId, _),
            .completingChallenge(let sessionId, _):
            state = .dismissingChallenge(sessionId: sessionId, ending: ending)
            return .dismissPage
        case .runningMethod, .completingMethod:
            // Failed, closed, lost, or its 10 s passed: the method did not complete (never a failed payment).
            return endMethod(.notCompleted)
        case .dismissingChallenge, .submittingChallengeResult, .recovering, .pausingRecovery, .endingMethod:
            return .none
        case .idle, .fetchingKey, .encrypting, .creatingSession, .pausingCreation, .authenticating, .finished,
            .reportingBrowser:
            return finish(unexplained(event))
        }
    }

    private mutating func pageDismissed(_ event: FlowEvent) -> FlowAction {
        if case .endingMethod(let sessionId, let threeDS) = state {
            return authenticate(sessionId: sessionId, resends: ResendBudget(), threeDS: threeDS)
        }
        guard case .dismissingChallenge(let sessionId, let ending) = state else { return finish(unexplained(event)) }
        return submitChallengeResult(sessionId: sessionId, resends: ResendBudget(), ending: ending)
    }

    /// The host (or a step gate) cancelled. Before any card-session request that is `.cancelled`. An
    /// open challenge is ended like a buyer close (dismiss, then ask the gateway). While a request that
    /// may move money is out, the machine waits for its answer (bounded by the call's watchdog) and, if
    /// that answer is lost, reads the step back; it then ends with what the gateway shows, sending
    /// nothing new that could move money (see `cancelRequested`).
    private mutating func cancel() -> FlowAction {
        switch state {
        case .finished, .dismissingChallenge:
            return .none
        case .idle, .fetchingKey, .encrypting:
            return finish(.cancelled())
        case .presentingChallenge, .challenging, .completingChallenge:
            return pageEnded(.cancelledByHost, .cancel)
        case .reportingBrowser(let sessionId, _):
            // Only the presenter was asked: the authentication, which can move money, was never sent.
            return finish(.cancelled(sessionId: sessionId))
        case .runningMethod, .completingMethod:
            // Remove the method page; the authentication is then never sent (`.cancelled`).
            cancelRequested = true
            return endMethod(.notCompleted)
        case .endingMethod:
            cancelRequested = true
            return .none
        case .creatingSession, .pausingCreation, .authenticating, .submittingChallengeResult, .recovering,
            .pausingRecovery:
            cancelRequested = true
            return .none
        }
    }

    /// Why a cancelled payment is in doubt: `cause` left a money-moving request unconfirmed.
    private static func cancelledInDoubt(_ cause: FlowError) -> FlowError {
        cause.wrapped(
            as: cause.code, "cancelled while a request that may move money was unconfirmed (\(cause.reason))")
    }

    private mutating func finish(_ terminal: Terminal) -> FlowAction {
        state = .finished
        return .finish(terminal)
    }
}
