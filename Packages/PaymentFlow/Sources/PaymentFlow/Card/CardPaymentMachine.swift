import Foundation

/// The card flow (CONTRACT.md section 4, GATEWAY.md "Card sessions") as a
/// value: events in, actions out, no I/O.
///
/// key (cached or fetched) -> encrypt -> create session -> [authenticate ->
/// [challenge page -> dismiss -> challenge-result]] -> finish from the final
/// session state. On `422 UNKNOWN_KEY` the key is refetched once and the
/// session creation retried. A response lost on a POST whose session is known
/// is recovered by reading the session (`GET`); a step the gateway shows it
/// never applied is sent once more. A lost creation (no session id to read)
/// ends `.unresolved` with `networkError`: the SDK does not know.
struct CardPaymentMachine {
    /// What the machine needs, checked before it is built.
    struct Input: Equatable, Sendable {
        var card: CardSnapshot
        var checkoutBaseURL: URL
    }

    /// The POST whose lost response is being recovered.
    enum Step: Equatable, Sendable {
        case authentication
        case challengeResult
    }

    private enum State {
        case idle(Input)
        /// Waiting for the key; `retried`: this is the refetch after `UNKNOWN_KEY`.
        case fetchingKey(Input, retried: Bool)
        case encrypting(Input, retried: Bool)
        /// The card (kept for one `UNKNOWN_KEY` retry) and the session POST in flight.
        case creatingSession(Input, retried: Bool)
        /// `resent`: this step was already sent a second time after a recovery.
        case authenticating(sessionId: String, resent: Bool)
        case presentingChallenge(sessionId: String, notificationURL: URL)
        case challenging(sessionId: String, notificationURL: URL)
        /// The page reached the notification URL; waiting for that load to end.
        case completingChallenge(sessionId: String)
        case dismissingChallenge(sessionId: String)
        case submittingChallengeResult(sessionId: String, resent: Bool)
        /// Reading the session after `step`'s response was lost (`confirming` nil) or was a 5xx
        /// (`confirming`: the error to report if the step turns out not applied).
        case recovering(sessionId: String, step: Step, resent: Bool, confirming: FlowError?)
        case finished
    }

    private var state: State
    /// Where the notification URL of a challenge lives.
    private let checkoutBaseURL: URL

    init(_ input: Input) {
        state = .idle(input)
        checkoutBaseURL = input.checkoutBaseURL
    }

    var stateName: String {
        switch state {
        case .idle: "idle"
        case .fetchingKey(_, let retried): retried ? "refetchingKey" : "fetchingKey"
        case .encrypting: "encrypting"
        case .creatingSession: "creatingSession"
        case .authenticating: "authenticating"
        case .presentingChallenge: "presentingChallenge"
        case .challenging: "challenging"
        case .completingChallenge: "completingChallenge"
        case .dismissingChallenge: "dismissingChallenge"
        case .submittingChallengeResult: "submittingChallengeResult"
        case .recovering: "recovering"
        case .finished: "finished"
        }
    }

    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// The card-session id once one exists (for the result of any terminal path).
    var sessionId: String? {
        switch state {
        case .idle, .fetchingKey, .encrypting, .creatingSession, .finished: nil
        case .authenticating(let id, _), .presentingChallenge(let id, _), .challenging(let id, _),
            .completingChallenge(let id), .dismissingChallenge(let id), .submittingChallengeResult(let id, _),
            .recovering(let id, _, _, _):
            id
        }
    }

    /// The card to encrypt, while the machine still needs it.
    var card: CardSnapshot? {
        switch state {
        case .idle(let input), .fetchingKey(let input, _), .encrypting(let input, _), .creatingSession(let input, _):
            input.card
        case .authenticating, .presentingChallenge, .challenging, .completingChallenge, .dismissingChallenge,
            .submittingChallengeResult, .recovering, .finished:
            nil
        }
    }

    // MARK: - Key and encryption

    /// Starts with the key the driver holds in its cache, if any.
    mutating func start(cachedKey: EncryptionKey?) -> FlowAction {
        switch state {
        case .idle(let input):
            if let cachedKey {
                state = .encrypting(input, retried: false)
                return .encrypt(cachedKey)
            }
            state = .fetchingKey(input, retried: false)
            return .fetchKey(refresh: false)
        case .fetchingKey, .encrypting, .creatingSession, .authenticating, .presentingChallenge, .challenging,
            .completingChallenge, .dismissingChallenge, .submittingChallengeResult, .recovering, .finished:
            preconditionFailure("card payment started twice (state \(stateName))")
        }
    }

    mutating func keyFetched(_ result: Result<EncryptionKey, FlowError>) -> FlowAction {
        switch state {
        case .fetchingKey(let input, let retried):
            switch result {
            case .success(let key):
                state = .encrypting(input, retried: retried)
                return .encrypt(key)
            case .failure(let error):
                return finish(
                    .failed(
                        error.code == .encryptionKeyUnavailable
                            ? error
                            : error.wrapped(
                                as: .encryptionKeyUnavailable, "the card-encryption key could not be fetched")))
            }
        case .idle, .encrypting, .creatingSession, .authenticating, .presentingChallenge, .challenging,
            .completingChallenge, .dismissingChallenge, .submittingChallengeResult, .recovering, .finished:
            preconditionFailure("key in state \(stateName)")
        }
    }

    mutating func encryptionFinished(_ result: Result<String, FlowError>) -> FlowAction {
        switch state {
        case .encrypting(let input, let retried):
            switch result {
            case .success(let compact):
                state = .creatingSession(input, retried: retried)
                return .call(.createSession(encryptedCard: compact))
            case .failure(let error):
                return finish(.failed(error))
            }
        case .idle, .fetchingKey, .creatingSession, .authenticating, .presentingChallenge, .challenging,
            .completingChallenge, .dismissingChallenge, .submittingChallengeResult, .recovering, .finished:
            preconditionFailure("encryption in state \(stateName)")
        }
    }

    // MARK: - Session calls

    mutating func sessionCreated(_ reply: SessionReply) -> FlowAction {
        switch state {
        case .creatingSession(let input, let retried):
            switch reply {
            case .session(let snapshot):
                return proceed(with: snapshot, resent: false)
            case .unknownKey:
                if retried {
                    return finish(
                        .failed(
                            FlowError(
                                .encryptionKeyUnavailable,
                                "the gateway refused the freshly fetched key too (UNKNOWN_KEY)",
                                source: "POST card-sessions", httpStatus: 422, gatewayCode: "UNKNOWN_KEY")))
                }
                state = .fetchingKey(input, retried: true)
                return .fetchKey(refresh: true)
            case .rejected(let error), .unreachable(let error), .serverFailure(let error):
                return finish(.failed(error))
            case .lost(let error):
                // No session id to read back: the gateway may or may not have a session.
                return finish(Terminal(outcome: .unresolved, error: error))
            }
        case .idle, .fetchingKey, .encrypting, .authenticating, .presentingChallenge, .challenging,
            .completingChallenge, .dismissingChallenge, .submittingChallengeResult, .recovering, .finished:
            preconditionFailure("session creation reply in state \(stateName)")
        }
    }

    mutating func authenticated(_ reply: SessionReply) -> FlowAction {
        switch state {
        case .authenticating(let sessionId, let resent):
            return afterStep(.authentication, sessionId: sessionId, resent: resent, reply: reply)
        case .idle, .fetchingKey, .encrypting, .creatingSession, .presentingChallenge, .challenging,
            .completingChallenge, .dismissingChallenge, .submittingChallengeResult, .recovering, .finished:
            preconditionFailure("authentication reply in state \(stateName)")
        }
    }

    mutating func challengeResultReceived(_ reply: SessionReply) -> FlowAction {
        switch state {
        case .submittingChallengeResult(let sessionId, let resent):
            return afterStep(.challengeResult, sessionId: sessionId, resent: resent, reply: reply)
        case .idle, .fetchingKey, .encrypting, .creatingSession, .authenticating, .presentingChallenge, .challenging,
            .completingChallenge, .dismissingChallenge, .recovering, .finished:
            preconditionFailure("challenge-result reply in state \(stateName)")
        }
    }

    /// The session as read back after a lost response.
    mutating func sessionRead(_ reply: SessionReply) -> FlowAction {
        switch state {
        case .recovering(let sessionId, let step, let resent, let confirming):
            switch reply {
            case .session(let snapshot):
                switch (step, snapshot.status) {
                case (.authentication, .authenticationRequired), (.challengeResult, .challengeRequired):
                    // The gateway never applied the step. After a 5xx that is the failure it reported;
                    // after a lost answer, send the step once more.
                    if let confirming { return finish(.failed(confirming, sessionId: sessionId)) }
                    guard !resent else {
                        return finish(
                            Terminal(
                                outcome: .unresolved, sessionId: sessionId,
                                error: FlowError(
                                    .networkError, "the gateway did not apply \(step) after two attempts",
                                    source: "GET card-session")))
                    }
                    return resend(step, sessionId: sessionId)
                case (.challengeResult, .authenticationRequired):
                    return finish(
                        .failed(
                            FlowError(
                                .invalidResponse,
                                "the session went back to AUTHENTICATION_REQUIRED after its challenge",
                                source: "GET card-session"), sessionId: sessionId))
                case (_, .challengeRequired), (_, .completed), (_, .failed):
                    return proceed(with: snapshot, resent: resent)
                }
            case .rejected(let error), .unreachable(let error), .lost(let error), .serverFailure(let error):
                if let confirming { return finish(.failed(confirming, sessionId: sessionId)) }
                return finish(Terminal(outcome: .unresolved, sessionId: sessionId, error: error))
            case .unknownKey:
                return finish(
                    Terminal(
                        outcome: .unresolved, sessionId: sessionId,
                        error: FlowError(
                            .invalidResponse, "UNKNOWN_KEY when reading a session", source: "GET card-session")))
            }
        case .idle, .fetchingKey, .encrypting, .creatingSession, .authenticating, .presentingChallenge, .challenging,
            .completingChallenge, .dismissingChallenge, .submittingChallengeResult, .finished:
            preconditionFailure("session read in state \(stateName)")
        }
    }

    private mutating func afterStep(_ step: Step, sessionId: String, resent: Bool, reply: SessionReply) -> FlowAction {
        switch reply {
        case .session(let snapshot):
            return proceed(with: snapshot, resent: resent)
        case .lost:
            state = .recovering(sessionId: sessionId, step: step, resent: resent, confirming: nil)
            return .call(.readSession(sessionId: sessionId))
        case .serverFailure(let error):
            state = .recovering(sessionId: sessionId, step: step, resent: resent, confirming: error)
            return .call(.readSession(sessionId: sessionId))
        case .rejected(let error), .unreachable(let error):
            return finish(.failed(error, sessionId: sessionId))
        case .unknownKey:
            return finish(
                .failed(
                    FlowError(
                        .invalidResponse, "UNKNOWN_KEY answered to \(step)", source: "\(step)"), sessionId: sessionId))
        }
    }

    private mutating func resend(_ step: Step, sessionId: String) -> FlowAction {
        switch step {
        case .authentication:
            return authenticate(sessionId: sessionId, resent: true)
        case .challengeResult:
            state = .submittingChallengeResult(sessionId: sessionId, resent: true)
            return .call(.challengeResult(sessionId: sessionId))
        }
    }

    private mutating func authenticate(sessionId: String, resent: Bool) -> FlowAction {
        guard let notificationURL = GatewayAPI.notificationURL(checkoutBaseURL: checkoutBaseURL, sessionId: sessionId)
        else { return finish(Self.unusableSessionId(sessionId, source: "authentication")) }
        state = .authenticating(sessionId: sessionId, resent: resent)
        return .call(.authenticate(sessionId: sessionId, notificationURL: notificationURL))
    }

    /// Moves on from a session state the gateway reported.
    private mutating func proceed(with snapshot: SessionSnapshot, resent: Bool) -> FlowAction {
        let sessionId = snapshot.sessionId
        switch snapshot.status {
        case .authenticationRequired:
            return authenticate(sessionId: sessionId, resent: resent)
        case .challengeRequired(let challenge):
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

    /// The failure when the gateway's session id cannot be part of the notification URL that
    /// `source` (the authentication call, or the challenge page) needs.
    private static func unusableSessionId(_ sessionId: String, source: String) -> Terminal {
        .failed(
            FlowError(.invalidResponse, "the session id cannot be part of a notification URL", source: source),
            sessionId: sessionId)
    }

    // MARK: - Challenge page

    mutating func presentFinished(shown: Bool) -> FlowAction {
        switch state {
        case .presentingChallenge(let sessionId, let notificationURL):
            if shown {
                state = .challenging(sessionId: sessionId, notificationURL: notificationURL)
                return .none
            }
            return finish(
                .failed(
                    FlowError(
                        .presentationFailed, "the presenter could not show the 3-D Secure challenge",
                        source: "presenter"),
                    sessionId: sessionId))
        case .completingChallenge, .dismissingChallenge:
            // The challenge ended before the presenter's answer; the dismissal waits for it.
            return .none
        case .idle, .fetchingKey, .encrypting, .creatingSession, .authenticating, .challenging,
            .submittingChallengeResult, .recovering, .finished:
            preconditionFailure("present completion in state \(stateName)")
        }
    }

    mutating func navigation(to url: URL) -> (NavigationDecision, FlowAction) {
        switch state {
        case .presentingChallenge(let sessionId, let notificationURL), .challenging(let sessionId, let notificationURL):
            if URLMatch.sameEndpoint(url, notificationURL) {
                // Let the issuer's cres reach the gateway's page; the load's end ends the challenge.
                state = .completingChallenge(sessionId: sessionId)
            }
            return (.allow, .none)
        case .completingChallenge:
            return (.allow, .none)
        case .dismissingChallenge, .submittingChallengeResult, .recovering:
            return (.cancel, .none)
        case .idle, .fetchingKey, .encrypting, .creatingSession, .authenticating, .finished:
            preconditionFailure("navigation in state \(stateName)")
        }
    }

    mutating func pageLoaded(_ url: URL) -> FlowAction {
        switch state {
        case .presentingChallenge, .challenging, .dismissingChallenge, .submittingChallengeResult, .recovering:
            return .none
        case .completingChallenge(let sessionId):
            state = .dismissingChallenge(sessionId: sessionId)
            return .dismissPage
        case .idle, .fetchingKey, .encrypting, .creatingSession, .authenticating, .finished:
            preconditionFailure("page load in state \(stateName)")
        }
    }

    mutating func pageFailed(_ url: URL, reason: String) -> FlowAction {
        pageEnded(event: "page failure") { sessionId in
            .failed(
                FlowError(
                    .pageLoadFailed, "the 3-D Secure challenge page failed to load: \(reason)", source: "presenter"),
                sessionId: sessionId)
        }
    }

    mutating func buyerClosedPage() -> FlowAction {
        pageEnded(event: "page closed") { sessionId in .cancelled(sessionId: sessionId) }
    }

    /// The page went away on its own (it failed to load, or the buyer closed it): the same rule for
    /// both. An unanswered challenge ends with `terminal`; one the issuer already has the answer to is
    /// dismissed and its result asked for; after that the event changes nothing. `event` names it in
    /// the precondition failure.
    private mutating func pageEnded(event: String, terminal: (_ sessionId: String) -> Terminal) -> FlowAction {
        switch state {
        case .presentingChallenge(let sessionId, _), .challenging(let sessionId, _):
            return finish(terminal(sessionId))
        case .completingChallenge(let sessionId):
            // The issuer already has the answer; the gateway tells the result either way.
            state = .dismissingChallenge(sessionId: sessionId)
            return .dismissPage
        case .dismissingChallenge, .submittingChallengeResult, .recovering:
            return .none
        case .idle, .fetchingKey, .encrypting, .creatingSession, .authenticating, .finished:
            preconditionFailure("\(event) in state \(stateName)")
        }
    }

    mutating func pageDismissed() -> FlowAction {
        switch state {
        case .dismissingChallenge(let sessionId):
            state = .submittingChallengeResult(sessionId: sessionId, resent: false)
            return .call(.challengeResult(sessionId: sessionId))
        case .idle, .fetchingKey, .encrypting, .creatingSession, .authenticating, .presentingChallenge, .challenging,
            .completingChallenge, .submittingChallengeResult, .recovering, .finished:
            preconditionFailure("dismissal in state \(stateName)")
        }
    }

    /// The host (or a step gate) cancelled. Before any card-session request, and while the challenge is
    /// open and unanswered, that is `.cancelled`. Once a request that may move money is out (session
    /// creation, authentication, the challenge answered, the result asked for), the SDK stops watching
    /// and says it does not know: `.unresolved`, no error (ask your backend).
    mutating func cancel() -> FlowAction {
        switch state {
        case .finished:
            return .none
        case .idle, .fetchingKey, .encrypting, .presentingChallenge, .challenging:
            return finish(.cancelled(sessionId: sessionId))
        case .creatingSession, .authenticating, .completingChallenge, .dismissingChallenge,
            .submittingChallengeResult, .recovering:
            return finish(Terminal(outcome: .unresolved, sessionId: sessionId))
        }
    }

    private mutating func finish(_ terminal: Terminal) -> FlowAction {
        state = .finished
        return .finish(terminal)
    }
}
