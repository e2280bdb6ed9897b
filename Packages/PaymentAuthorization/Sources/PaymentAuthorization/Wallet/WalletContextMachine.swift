import Foundation
@_spi(LifecycleRuntime) import PaymentFlow

/// The lifecycle of one ``WalletPaymentContext`` as a value: the sheet's phase, the one authorization
/// in hand and where it stands (asking the app's backend, paying), the last EGW result. Events in,
/// effects out; `WalletPaymentContext` performs the effects on one serial queue and feeds back what
/// comes of them (the model is PaymentFlow's `PaymentLifecycle` run by `PaymentExecutor`).
///
/// What it guarantees, by construction (and checked over every interleaving by
/// `WalletContextExplorationTests`):
/// - `paymentFor` counts once per authorization and only within its deadline: a second answer, a late
///   one and one after the sheet ended are reported and change nothing; no card payment starts after
///   the deadline passed or the sheet ended;
/// - a card payment that was started is never abandoned: the sheet may end meanwhile, the result
///   waits for the gateway's answer and is that answer's outcome;
/// - the sheet's authorization is answered exactly once per attempt;
/// - the result is delivered exactly once, after the sheet is gone and no payment runs; `.failed` or
///   `.cancelled` only when no card payment of this context can have moved money;
/// - the sheet is never answered `.failure` once money may have moved: a payment in doubt is answered
///   `.unresolved` (shown as being confirmed), a success `.success`.
struct WalletContextMachine: Lifecycle, Sendable {
    typealias TimerID = UInt64

    struct Settings: Equatable, Sendable {
        /// How long `paymentFor` may take; nil: as long as it likes.
        var paymentForTimeout: TimeInterval? = 60
        /// How many authorizations the buyer may make; the last decline ends the sheet.
        var maximumAttempts: Int = 3
    }

    enum Event: Sendable {
        /// `present` was called.
        case present
        /// The sheet could not be shown (the controller's `present` answered false).
        case sheetNotShown
        /// The sheet's `didAuthorizePayment`, attempt `token`.
        case authorized(token: UInt64, Payment)
        /// `paymentFor` answered for attempt `token`; `sheetEnded`: the controller had already ended the
        /// sheet when the answer arrived (its `didFinish` may still be on its way).
        case paymentForAnswered(
            token: UInt64, Result<CardPaymentRequest, PaymentSourceFailure>, sheetEnded: Bool = false)
        /// `paymentFor`'s deadline for attempt `token`.
        case paymentForDeadline(token: UInt64)
        /// The EGW card payment of attempt `token` delivered.
        case paymentFinished(token: UInt64, PaymentResult)
        /// The sheet's `didFinish`.
        case didFinish
        /// The sheet is gone (the dismissal completed), having ended for `reason`.
        case sheetGone(SheetFinishReason)
    }

    /// The app's `paymentFor` error, kept as its text (the machine is a `Sendable` value).
    struct PaymentSourceFailure: Error, Equatable, Sendable {
        let text: String
    }

    enum Effect: Sendable {
        /// Ask the app's `paymentFor` for attempt `token`.
        case askPaymentFor(token: UInt64, AuthorizedWalletPayment)
        /// Arm `paymentFor`'s deadline for attempt `token`.
        case startPaymentForTimer(token: UInt64, TimeInterval)
        /// Start the EGW card payment of attempt `token` with the wallet card.
        case startCardPayment(token: UInt64, CardPaymentRequest, CardInput)
        /// Answer the sheet's authorization `token`.
        case answerSheet(token: UInt64, PaymentAuthorizationResult)
        /// Take the sheet down (after its `didFinish`).
        case dismissSheet
        /// Tell the context's observer.
        case report(WalletContextReport)
        /// Deliver the one result.
        case deliver(Terminal)
    }

    /// The one result's parts the machine decides (the executor adds the controller's counters).
    struct Terminal: Sendable {
        var outcome: PaymentOutcome
        var order: AuthorizedWalletPayment?
        var payment: PaymentResult?
        var error: WalletPaymentError?
    }

    enum SheetPhase: Equatable, Sendable {
        case notPresented
        case up
        case finishing
        case gone
    }

    /// The authorization in hand.
    enum Attempt: Sendable {
        case none
        case askingBackend(token: UInt64, Payment, AuthorizedWalletPayment)
        case paying(token: UInt64, AuthorizedWalletPayment)
    }

    let settings: Settings
    private(set) var sheet = SheetPhase.notPresented
    private(set) var attempt = Attempt.none
    private(set) var attempts = 0
    private(set) var last: PaymentResult?
    private(set) var order: AuthorizedWalletPayment?
    private(set) var error: WalletPaymentError?
    private(set) var delivered = false
    private(set) var finishReason: SheetFinishReason?
    /// Why each attempt's backend answer is no longer awaited.
    private var spent: [UInt64: WalletContextReport] = [:]

    init(settings: Settings) {
        self.settings = settings
    }

    /// Whether a card payment was started and has not answered.
    var isPaying: Bool {
        if case .paying = attempt { return true }
        return false
    }

    mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .present:
            guard sheet == .notPresented else { return [] }
            sheet = .up
            return []
        case .sheetNotShown:
            error = error ?? .sheetNotShown
            sheet = .gone
            finishReason = .presentationFailed
            return deliverIfDone()
        case .authorized(let token, let payment):
            return authorized(token, payment)
        case .paymentForAnswered(let token, let answer, let sheetEnded):
            if sheetEnded, case .askingBackend(let awaited, _, _) = attempt, awaited == token {
                attempt = .none
                spent[token] = .paymentForAnsweredAfterTheSheetEnded(attempt: Int(token))
                return [.report(.paymentForAnsweredAfterTheSheetEnded(attempt: Int(token)))] + deliverIfDone()
            }
            return paymentForAnswered(token, answer)
        case .paymentForDeadline(let token):
            guard case .askingBackend(let awaited, _, _) = attempt, awaited == token else { return [] }
            attempt = .none
            spent[token] = .paymentForAnsweredLate(attempt: Int(token))
            let seconds = settings.paymentForTimeout ?? 0
            error = .paymentForTimedOut(seconds: seconds)
            return [
                .report(.paymentForDeadlinePassed(attempt: Int(token))),
                .answerSheet(token: token, PaymentAuthorizationResult(status: .failure)),
            ]
        case .paymentFinished(let token, let result):
            guard case .paying(let awaited, _) = attempt, awaited == token else { return [] }
            attempt = .none
            last = result
            var effects: [Effect] = []
            if sheet == .up { effects.append(.answerSheet(token: token, sheetResult(for: result))) }
            return effects + deliverIfDone()
        case .didFinish:
            guard sheet == .up else { return [] }
            sheet = .finishing
            if case .askingBackend(let token, _, _) = attempt {
                // No card payment was started: none will be, whatever the backend answers.
                attempt = .none
                spent[token] = .paymentForAnsweredAfterTheSheetEnded(attempt: Int(token))
            }
            return [.dismissSheet]
        case .sheetGone(let reason):
            guard sheet != .gone else { return [] }
            sheet = .gone
            finishReason = reason
            if case .askingBackend(let token, _, _) = attempt {
                attempt = .none
                spent[token] = .paymentForAnsweredAfterTheSheetEnded(attempt: Int(token))
            }
            return deliverIfDone()
        }
    }

    private mutating func authorized(_ token: UInt64, _ payment: Payment) -> [Effect] {
        if let last, Self.moneyMayHaveMoved(last) {
            // The controller never asks again after a success or an unresolved payment (neither offers
            // a retry); if it did, the sheet must still not say "failed": it repeats what is true.
            return [.answerSheet(token: token, Self.sheetResult(for: last))]
        }
        guard sheet == .up, case .none = attempt else {
            // The controller asks once at a time and only while the sheet is up; refuse anything else.
            return [.answerSheet(token: token, PaymentAuthorizationResult(status: .failure))]
        }
        attempts += 1
        guard let authorized = AuthorizedWalletPayment(payment) else {
            error = .amountUnrepresentable
            return [.answerSheet(token: token, PaymentAuthorizationResult(status: .failure))]
        }
        order = authorized
        attempt = .askingBackend(token: token, payment, authorized)
        // The deadline is armed before the backend is asked: `paymentFor` runs on the callback queue and may
        // answer (or the clock may pass) before the context's queue would reach a timer armed after it.
        var effects: [Effect] = []
        if let timeout = settings.paymentForTimeout { effects.append(.startPaymentForTimer(token: token, timeout)) }
        effects.append(.askPaymentFor(token: token, authorized))
        return effects
    }

    private mutating func paymentForAnswered(
        _ token: UInt64, _ answer: Result<CardPaymentRequest, PaymentSourceFailure>
    ) -> [Effect] {
        guard case .askingBackend(let awaited, let payment, let authorized) = attempt, awaited == token else {
            return [.report(spent[token] ?? .paymentForAnsweredAgain(attempt: Int(token)))]
        }
        spent[token] = .paymentForAnsweredAgain(attempt: Int(token))
        switch answer {
        case .success(let request):
            attempt = .paying(token: token, authorized)
            return [.startCardPayment(token: token, request, payment.token.card)]
        case .failure(let failure):
            attempt = .none
            error = .paymentSourceFailed(failure.text)
            return [.answerSheet(token: token, PaymentAuthorizationResult(status: .failure))]
        }
    }

    /// What the sheet shows for an EGW payment's result; a retryable decline on the last allowed
    /// attempt ends the sheet instead.
    private mutating func sheetResult(for result: PaymentResult) -> PaymentAuthorizationResult {
        let shown = Self.sheetResult(for: result)
        if !shown.errors.isEmpty && attempts >= settings.maximumAttempts {
            error = .attemptsExhausted(settings.maximumAttempts)
            return PaymentAuthorizationResult(status: .failure)
        }
        return shown
    }

    /// Whether an EGW result says money may have moved (the gateway's truth is "charged" or unknown).
    static func moneyMayHaveMoved(_ result: PaymentResult) -> Bool {
        switch result.outcome {
        case .succeeded, .unresolved: true
        case .failed, .cancelled: false
        }
    }

    /// The sheet's answer for an EGW result: success; `.unresolved` for a payment in doubt (shown as
    /// being confirmed, never as failed; no retry); a retryable failure with a ``WalletCardError``; a
    /// failure that ends the sheet for every other failure or cancel (nothing was charged).
    static func sheetResult(for result: PaymentResult) -> PaymentAuthorizationResult {
        switch result.outcome {
        case .succeeded: return PaymentAuthorizationResult(status: .success)
        case .unresolved: return PaymentAuthorizationResult(status: .unresolved)
        case .cancelled: return PaymentAuthorizationResult(status: .failure)
        case .failed: break
        }
        guard let code = result.error?.paymentErrorCode else { return PaymentAuthorizationResult(status: .failure) }
        switch code {
        case .cardSessionFailed: return PaymentAuthorizationResult(status: .failure, errors: [WalletCardError.declined])
        case .cardBrandNotAccepted:
            return PaymentAuthorizationResult(status: .failure, errors: [WalletCardError.brandNotAccepted])
        case .authenticationFailed:
            return PaymentAuthorizationResult(status: .failure, errors: [WalletCardError.authenticationFailed])
        case .invalidRequest, .presentationFailed, .pageLoadFailed, .networkError, .statusLookupFailed,
            .invalidResponse, .cardValidationFailed, .encryptionKeyUnavailable, .encryptionFailed:
            return PaymentAuthorizationResult(status: .failure)
        }
    }

    private mutating func deliverIfDone() -> [Effect] {
        guard sheet == .gone, !isPaying, !delivered else { return [] }
        if case .askingBackend = attempt { return [] }
        delivered = true
        return [
            .deliver(
                Terminal(outcome: outcome(), order: order, payment: last, error: error))
        ]
    }

    /// The gateway's truth whenever money may have moved (`.succeeded`, `.unresolved`); otherwise
    /// nothing moved: `.failed` when the context gave up (``WalletPaymentError``) or the sheet completed
    /// on a failure, `.cancelled` when the buyer, the sheet's deadline or the app ended the sheet.
    private func outcome() -> PaymentOutcome {
        if let last, Self.moneyMayHaveMoved(last) { return last.outcome }
        if error != nil { return .failed }
        switch finishReason ?? .presentationFailed {
        case .completed: return last?.outcome ?? .failed
        case .buyerCancelled, .dismissedByApp, .deadline: return .cancelled
        case .delegateGone, .presentationFailed: return last?.outcome ?? .failed
        }
    }
}
