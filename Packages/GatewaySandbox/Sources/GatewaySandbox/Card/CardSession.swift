/// One card session as a value state machine (GATEWAY.md, "Card sessions").
///
/// Events are `mutating` functions returning a `Transition`; the caller (the server) performs
/// the consequences: answers the request, settles or fails the payment. No I/O here.
struct CardSession: Sendable, Equatable {
    let id: String
    let paymentId: String
    let acsTransID: String
    /// The last four digits, for the sandbox's own views; the card number is never kept.
    let last4: String
    private(set) var state: State
    /// Where the issuer's page sends `cres`; set when a challenge starts.
    private(set) var notificationURL: String?
    /// The 3DS Method's page posted to the method notification URL.
    private(set) var methodNotified = false

    /// The 3-D Secure path a card takes (from the test-card table).
    enum ThreeDS: Sendable, Equatable {
        case frictionless(transStatus: String)
        case challenge
        /// A 3DS Method first; the decision depends on what the authentication then reports.
        case method(MethodTiming)
    }

    /// The method this session names (`threeDSMethod`), while it waits for its authentication.
    var method: MethodTiming? {
        if case .authenticationRequired(.method(let timing)) = state { return timing }
        return nil
    }

    enum ChallengeProgress: Sendable, Equatable {
        /// The challenge page has not been answered.
        case awaitingCode
        /// The buyer typed a code; the issuer's result is known (`Y` or `N`).
        case answered(transStatus: String)
        /// The issuer's page also delivered `cres` to the notification page.
        case notified(transStatus: String)
    }

    struct Failure: Sendable, Equatable {
        var code: String
        var message: String
    }

    enum State: Sendable, Equatable {
        case authenticationRequired(ThreeDS)
        case challengeRequired(ChallengeProgress)
        case completed(transStatus: String?, challenged: Bool)
        case failed(transStatus: String?, failure: Failure, challenged: Bool)
    }

    enum Transition: Sendable, Equatable {
        /// The state changed; the caller settles or fails the payment if it is now final.
        case changed
        /// A repeated call: nothing changed, answer with the session as it stands.
        case unchanged
        /// Not allowed in this state; nothing changed. The refusal says how to answer.
        case refused(Refusal)
    }

    /// Why an event was refused, as the gateway answers it: a status, an error code, a message.
    struct Refusal: Sendable, Equatable {
        var status: Int
        var code: String
        var message: String

        /// The event does not fit the session's state (`400 INVALID_REQUEST`).
        static func outOfOrder(_ message: String) -> Refusal {
            Refusal(status: 400, code: "INVALID_REQUEST", message: message)
        }

        /// challenge-result while the issuer has no answer from the buyer yet
        /// (`409 CHALLENGE_NOT_COMPLETED`, GATEWAY.md step 4): the session stays `CHALLENGE_REQUIRED`
        /// and the buyer may still answer.
        static let challengeNotCompleted = Refusal(
            status: 409, code: "CHALLENGE_NOT_COMPLETED", message: "the buyer has not answered the challenge yet")
    }

    static let challengeCode = "1234"

    /// A new session for a card whose behaviour is not `.brandNotAccepted` (that is refused before).
    init(id: String, paymentId: String, acsTransID: String, last4: String, behaviour: CardBehaviour) {
        self.id = id
        self.paymentId = paymentId
        self.acsTransID = acsTransID
        self.last4 = last4
        switch behaviour {
        case .frictionless(let transStatus): state = .authenticationRequired(.frictionless(transStatus: transStatus))
        case .challenge: state = .authenticationRequired(.challenge)
        case .method(let timing): state = .authenticationRequired(.method(timing))
        case .noThreeDS: state = .completed(transStatus: nil, challenged: false)
        case .declined:
            state = .failed(
                transStatus: nil, failure: Failure(code: "CARD_DECLINED", message: "the issuer declined the card"),
                challenged: false)
        case .brandNotAccepted:
            state = .failed(
                transStatus: nil,
                failure: Failure(code: "CARD_BRAND_NOT_ACCEPTED", message: "the store does not accept this brand"),
                challenged: false)
        }
    }

    /// A session that failed at creation for a card-level reason (invalid number, expired).
    init(id: String, paymentId: String, acsTransID: String, last4: String, failure: Failure) {
        self.id = id
        self.paymentId = paymentId
        self.acsTransID = acsTransID
        self.last4 = last4
        state = .failed(transStatus: nil, failure: failure, challenged: false)
    }

    /// The wire status: `AUTHENTICATION_REQUIRED`, `CHALLENGE_REQUIRED`, `COMPLETED` or `FAILED`.
    var status: String {
        switch state {
        case .authenticationRequired: "AUTHENTICATION_REQUIRED"
        case .challengeRequired: "CHALLENGE_REQUIRED"
        case .completed: "COMPLETED"
        case .failed: "FAILED"
        }
    }

    var transStatus: String? {
        switch state {
        case .authenticationRequired: nil
        case .challengeRequired: "C"
        case .completed(let transStatus, _), .failed(let transStatus, _, _): transStatus
        }
    }

    var failure: Failure? {
        switch state {
        case .failed(_, let failure, _): failure
        case .authenticationRequired, .challengeRequired, .completed: nil
        }
    }

    var isFinal: Bool {
        switch state {
        case .completed, .failed: true
        case .authenticationRequired, .challengeRequired: false
        }
    }

    /// The method's page reached the method notification URL (only while a method is pending).
    mutating func notifyMethod() -> Transition {
        guard method != nil else { return .refused(.outOfOrder("no 3DS Method is pending on this session")) }
        guard !methodNotified else { return .unchanged }
        methodNotified = true
        return .changed
    }

    /// `POST .../authentication`: runs 3-D Secure (frictionless or the start of a challenge). For a
    /// card with a 3DS Method, the issuer decides frictionlessly (`Y`) only when the method's
    /// notification reached the sandbox, the request says `threeDSCompInd` `Y` and its browser data
    /// is EMV's complete set (`browserComplete`); otherwise it challenges.
    mutating func authenticate(
        notificationURL: String, compInd: String? = nil, browserComplete: Bool = false
    ) -> Transition {
        switch state {
        case .authenticationRequired(.method):
            if methodNotified && compInd == "Y" && browserComplete {
                state = .completed(transStatus: "Y", challenged: false)
            } else {
                self.notificationURL = notificationURL
                state = .challengeRequired(.awaitingCode)
            }
            return .changed
        case .authenticationRequired(.frictionless(let transStatus)):
            switch transStatus {
            case "Y", "A", "U":
                state = .completed(transStatus: transStatus, challenged: false)
            case "R":
                state = .failed(
                    transStatus: "R",
                    failure: Failure(
                        code: "AUTHENTICATION_REJECTED", message: "the issuer rejected the authentication"),
                    challenged: false)
            default:
                state = .failed(
                    transStatus: transStatus,
                    failure: Failure(code: "AUTHENTICATION_FAILED", message: "the cardholder was not authenticated"),
                    challenged: false)
            }
            return .changed
        case .authenticationRequired(.challenge):
            self.notificationURL = notificationURL
            state = .challengeRequired(.awaitingCode)
            return .changed
        case .challengeRequired:
            return .unchanged
        case .completed(let transStatus, _), .failed(let transStatus, _, _):
            return transStatus == nil
                ? .refused(.outOfOrder("this session needed no authentication: it is \(status)")) : .unchanged
        }
    }

    /// The buyer's code on the issuer's page: `1234` is `Y`, anything else `N`. One attempt.
    mutating func answerChallenge(code: String) -> Transition {
        switch state {
        case .challengeRequired(.awaitingCode):
            state = .challengeRequired(.answered(transStatus: code == Self.challengeCode ? "Y" : "N"))
            return .changed
        case .challengeRequired(.answered), .challengeRequired(.notified):
            return .unchanged
        case .completed(_, true), .failed(_, _, true):
            return .unchanged
        case .authenticationRequired, .completed(_, false), .failed(_, _, false):
            return .refused(.outOfOrder("no challenge is pending on this session"))
        }
    }

    /// The issuer's result as answered, if it is known.
    var challengeAnswer: String? {
        switch state {
        case .challengeRequired(.answered(let ts)), .challengeRequired(.notified(let ts)): ts
        case .completed(let ts, true), .failed(let ts, _, true): ts
        case .challengeRequired(.awaitingCode), .authenticationRequired, .completed(_, false),
            .failed(_, _, false):
            nil
        }
    }

    /// `cres` reached the notification page.
    mutating func notify(transStatus: String) -> Transition {
        switch state {
        case .challengeRequired(.answered(let answered)):
            guard answered == transStatus else {
                return .refused(.outOfOrder("cres does not match the issuer's result"))
            }
            state = .challengeRequired(.notified(transStatus: answered))
            return .changed
        case .challengeRequired(.notified(let answered)), .completed(let answered?, true),
            .failed(let answered?, _, true):
            return answered == transStatus
                ? .unchanged : .refused(.outOfOrder("cres does not match the issuer's result"))
        case .challengeRequired(.awaitingCode):
            return .refused(.outOfOrder("the challenge has not been answered"))
        case .authenticationRequired, .completed, .failed:
            return .refused(.outOfOrder("no challenge is pending on this session"))
        }
    }

    /// `POST .../challenge-result`: the session's final state once the issuer has the answer.
    ///
    /// As in EMV 3-D Secure 2 (the ACS reports to the 3DS server directly), the result is
    /// known as soon as the buyer answered, whether or not `cres` reached the notification page.
    /// Before the buyer answered it is `challengeNotCompleted` and nothing changes, so a later
    /// answer and a later challenge-result still complete the session. Per state:
    /// `awaitingCode` refused (409 `CHALLENGE_NOT_COMPLETED`); `answered`, `notified` final
    /// (`Y` completed, else failed); final after a challenge: unchanged; no challenge: out of order.
    mutating func challengeResult() -> Transition {
        switch state {
        case .challengeRequired(.answered(let transStatus)), .challengeRequired(.notified(let transStatus)):
            if transStatus == "Y" {
                state = .completed(transStatus: "Y", challenged: true)
            } else {
                state = .failed(
                    transStatus: transStatus,
                    failure: Failure(code: "AUTHENTICATION_FAILED", message: "the challenge was not passed"),
                    challenged: true)
            }
            return .changed
        case .challengeRequired(.awaitingCode):
            return .refused(.challengeNotCompleted)
        case .completed(_, true), .failed(_, _, true):
            return .unchanged
        case .authenticationRequired, .completed(_, false), .failed(_, _, false):
            return .refused(.outOfOrder("no challenge was required on this session"))
        }
    }

    /// The payment was paid by someone else first: a completed session becomes `FAILED`.
    mutating func supersede() {
        switch state {
        case .completed(let transStatus, let challenged):
            state = .failed(
                transStatus: transStatus,
                failure: Failure(code: "PAYMENT_ALREADY_PROCESSED", message: "the payment was already processed"),
                challenged: challenged)
        case .authenticationRequired, .challengeRequired, .failed:
            break
        }
    }
}
