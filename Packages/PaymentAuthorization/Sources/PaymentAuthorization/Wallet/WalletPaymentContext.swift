import Dispatch
import Foundation
@_spi(LifecycleRuntime) import PaymentFlow
import Synchronization

/// The amount an authorized sheet is to be paid with: its final total (after shipping and coupon),
/// with the currency's exponent applied.
public struct WalletPaymentAmount: Sendable, Equatable, CustomStringConvertible {
    /// The total in major units (`12.50`).
    public let total: Decimal
    /// The total in minor units (`1250`), as the EGW backend takes it.
    public let minorUnits: Int
    /// The ISO 4217 currency.
    public let currencyCode: String

    /// `12.50 EUR`.
    public var description: String { CurrencyExponent.format(total, currencyCode: currencyCode) }
}

/// Why a card payment's failure lets the buyer try another card (shown on the sheet).
public enum WalletCardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The issuer declined the card (or the card was unusable).
    case declined
    /// The merchant does not accept this card's brand.
    case brandNotAccepted
    /// 3-D Secure authentication failed.
    case authenticationFailed

    /// A short text for the sheet.
    public var description: String {
        switch self {
        case .declined: "card declined"
        case .brandNotAccepted: "card brand not accepted"
        case .authenticationFailed: "authentication failed"
        }
    }
}

/// The one result of a ``WalletPaymentContext``: delivered once, on the callback queue, after the sheet is
/// gone and the last EGW payment ended.
public struct WalletPaymentResult: Sendable, CustomStringConvertible {
    /// What to tell the buyer. The last EGW payment's outcome whenever money may have moved
    /// (`.succeeded`, `.unresolved`) or the sheet completed; `.failed` when the context gave up with
    /// nothing charged (``error`` says why); `.cancelled` when the buyer (or the app, or the sheet's
    /// deadline before any payment started) ended the sheet with no payment pending or charged.
    public let outcome: PaymentOutcome
    /// The last status the sheet showed (nil: none): `.unresolved` when it showed the payment as being
    /// confirmed (then ``outcome`` is `.unresolved` too).
    public let shownStatus: PaymentAuthorizationStatus?
    /// Why the sheet ended.
    public let finishReason: SheetFinishReason
    /// How many times the buyer authorized.
    public let attempts: Int
    /// The sheet's final total.
    public let total: Decimal
    /// The currency of `total`.
    public let currencyCode: String
    /// The last EGW card payment's result (nil: none was started).
    public let payment: PaymentResult?
    /// What the buyer last authorized, as `paymentFor` got it (nil: never authorized): the contacts
    /// with the requested fields, the shipping method, the final items, the masked card.
    public let order: AuthorizedWalletPayment?
    /// Why the context ended the sheet itself (a ``WalletPaymentError``), else the last EGW payment's
    /// error; nil on success and on a cancel with nothing started.
    public let error: (any Error)?

    /// The shipping contact the buyer authorized (requested fields only).
    public var shippingContact: Contact? { order?.shippingContact }
    /// The billing contact the buyer authorized (requested fields only).
    public var billingContact: Contact? { order?.billingContact }
    /// The shipping method the buyer authorized.
    public var shippingMethod: ShippingMethod? { order?.shippingMethod }
    /// The summary items the buyer authorized.
    public var summaryItems: [PaymentSummaryItem] { order?.summaryItems ?? [] }

    /// One line, without card data or contacts.
    public var description: String {
        "WalletPaymentResult(\(outcome), status: \(shownStatus.map { "\($0)" } ?? "-"), finish: "
            + "\(finishReason.rawValue), attempts: \(attempts), total: \(CurrencyExponent.format(total, currencyCode: currencyCode)), payment: "
            + "\(payment.map { "\($0)" } ?? "-")" + (error.map { ", error: \($0)" } ?? "") + ")"
    }
}

/// A ready-made sheet delegate that pays with EGW (like Stripe's `STPApplePayContext`).
///
/// On each authorization it hands the app (`paymentFor`) the whole ``AuthorizedWalletPayment`` (final
/// items and total in minor units, contacts with the requested fields, shipping method, masked card)
/// and waits for the EGW payment from the merchant backend, then runs `startCardPayment` with the
/// wallet card (a 3-D Secure challenge goes through `pagePresenter`, and is gone before the sheet shows
/// its status) and maps the result onto the sheet: success; a payment in doubt (`.unresolved`: a lost
/// creation, a step applied whose read-back failed, `PAYMENT_ALREADY_PROCESSED`) as
/// ``PaymentAuthorizationStatus/unresolved`` — shown as being confirmed, never as failed, no retry —
/// and the result `.unresolved`; a failure with a ``WalletCardError`` that keeps the sheet open for
/// another card (declined, brand not accepted, failed authentication) up to
/// ``Options/maximumAttempts``; a failure that ends it for everything else.
///
/// Guarantees (a value machine, `WalletContextMachine`, run on one serial queue, explored exhaustively
/// by its tests):
/// - `paymentFor` is answered once, within ``Options/paymentForTimeout``: a second answer, a late
///   one and one after the sheet ended are ignored and reported to ``Options/observer``; no answer
///   ends the sheet `.failed` with ``WalletPaymentError/paymentForTimedOut(seconds:)``, and no card
///   payment is started after that.
/// - A card payment handed over and started is never abandoned: a buyer cancel while it runs ends the
///   sheet, and the result waits for the gateway's answer. While the context holds an authorization,
///   the sheet's own deadline does not end it (the context's timers and the payment's own deadlines,
///   10 minutes for a challenge, bound it).
/// - One ``WalletPaymentResult``, after the sheet is gone and no payment runs.
///
/// Threading: thread-safe; the app's `paymentFor` and the completion are called on the controller's
/// callback queue; `paymentFor`'s completion may be called from any thread. Keeps itself alive until it
/// delivered.
public final class WalletPaymentContext: PaymentAuthorizationControllerDelegate, @unchecked Sendable {
    /// Gives the EGW payment (from the merchant backend) for the authorized order, or an error.
    /// Answer once; see ``Options/paymentForTimeout``.
    public typealias AuthorizedPaymentSource =
        @Sendable (
            _ payment: AuthorizedWalletPayment,
            _ completion: @escaping @Sendable (Result<CardPaymentRequest, any Error>) -> Void
        ) -> Void

    /// The earlier name of ``AuthorizedPaymentSource`` (it got only the amount; the order has the same
    /// `total`, `minorUnits` and `currencyCode`, so such closures compile unchanged).
    @available(*, deprecated, renamed: "AuthorizedPaymentSource")
    public typealias PaymentSource = AuthorizedPaymentSource

    /// How the context bounds the app and the buyer.
    public struct Options: Sendable {
        /// How long `paymentFor` may take to answer, in seconds (default 60); nil: no bound (stepping).
        public var paymentForTimeout: TimeInterval? = 60
        /// How many times the buyer may authorize (default 3): the decline of the last attempt ends the
        /// sheet (`.failed`, ``WalletPaymentError/attemptsExhausted(_:)``) instead of offering another card.
        public var maximumAttempts: Int = 3
        /// Told, on the callback queue, about ignored `paymentFor` answers and its deadline.
        public var observer: (@Sendable (WalletContextReport) -> Void)?

        /// The defaults: 60 s, 3 attempts, no observer.
        public init() {}
    }

    /// The sheet's controller (its delegate is this context).
    public let controller: PaymentAuthorizationController
    /// The options.
    public let contextOptions: Options
    private let paymentKit: PaymentKit
    private let pagePresenter: any PaymentPresenter
    private let paymentFor: AuthorizedPaymentSource
    /// Prices the buyer's changes (nil: the sheet's items stay as they are and coupons are refused).
    public let merchant: (any WalletPaymentMerchant)?

    /// The machine, run the SDK's one way (PaymentFlow's `LifecycleRunner`): its serial queue is the one
    /// confinement, so the fields below are touched only there (checked in debug builds).
    private let runner: LifecycleRunner<WalletContextMachine>
    private var queue: DispatchQueue { runner.queue }
    private var completion: (@Sendable (WalletPaymentResult) -> Void)?
    private var handlers: [UInt64: @Sendable (PaymentAuthorizationResult) -> Void] = [:]
    private var nextToken: UInt64 = 0
    private var keepAlive: WalletPaymentContext?

    /// A context, or nil when the request breaks a rule or the device cannot pay (see the controller).
    public init?(
        paymentRequest: PaymentAuthorizationRequest, sheetPresenter: any WalletSheetPresenter,
        wallet: SimulatedWallet = .default, options: PaymentAuthorizationController.Options = .init(),
        contextOptions: Options = .init(), merchant: (any WalletPaymentMerchant)? = nil, paymentKit: PaymentKit,
        pagePresenter: any PaymentPresenter, paymentFor: @escaping AuthorizedPaymentSource
    ) {
        guard
            let controller = PaymentAuthorizationController(
                paymentRequest: paymentRequest, presenter: sheetPresenter, wallet: wallet, options: options)
        else { return nil }
        self.controller = controller
        self.contextOptions = contextOptions
        self.paymentKit = paymentKit
        self.pagePresenter = pagePresenter
        self.paymentFor = paymentFor
        self.merchant = merchant
        let machine = WalletContextMachine(
            settings: .init(
                paymentForTimeout: contextOptions.paymentForTimeout,
                maximumAttempts: max(1, contextOptions.maximumAttempts)))
        // The sheet's clock cannot cancel; a cancelled timer's late fire is dropped by the runner.
        let clock = options.clock
        runner = LifecycleRunner(
            machine, queue: DispatchQueue(label: "com.egw.egwpay.wallet-context"),
            schedule: { delay, work in
                clock.schedule(delay, work)
                return {}
            })
        runner.setPerformer { [weak self] effect in self?.perform(effect) }
    }

    /// Shows the sheet; `completion` gets the one result, on the controller's callback queue, after the
    /// sheet is gone and the last EGW payment ended. A context presents once: a second call gets a result
    /// of its own at once (still asynchronously): `.failed`, `.presentationFailed`,
    /// ``WalletPaymentError/presentedTwice``, no attempt, nothing shown; the first is untouched.
    public func present(completion: @escaping @Sendable (WalletPaymentResult) -> Void) {
        queue.async { [self] in
            guard self.completion == nil, runner.read({ $0.sheet }) == .notPresented else {
                let refused = WalletPaymentResult(
                    outcome: .failed, shownStatus: nil, finishReason: .presentationFailed, attempts: 0,
                    total: controller.paymentRequest.paymentSummaryItems.last?.amount ?? 0,
                    currencyCode: controller.paymentRequest.currencyCode, payment: nil, order: nil,
                    error: WalletPaymentError.presentedTwice)
                controller.callbackQueue.async { completion(refused) }
                return
            }
            self.completion = completion
            keepAlive = self
            handle(.present)
            controller.delegate = self
            controller.present { [self] shown in
                if !shown { queue.async { self.handle(.sheetNotShown) } }
            }
        }
    }

    // MARK: - Delegate

    /// Dismisses the sheet; the result follows once it is gone and no payment runs.
    public func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
        queue.async { self.handle(.didFinish) }
    }

    /// Asks the merchant (or keeps the items).
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
    ) {
        guard let merchant else { return handler(PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems)) }
        merchant.shippingContactChanged(contact, controller: controller, handler: handler)
    }

    /// Asks the merchant (or keeps the items).
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void
    ) {
        guard let merchant else { return handler(PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems)) }
        merchant.shippingMethodChanged(shippingMethod, controller: controller, handler: handler)
    }

    /// Asks the merchant (or refuses the coupon).
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String,
        handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void
    ) {
        guard let merchant else {
            return handler(
                PaymentRequestUpdate(
                    errors: [PaymentRequestError.couponCodeInvalid], paymentSummaryItems: controller.summaryItems))
        }
        merchant.couponCodeChanged(couponCode, controller: controller, handler: handler)
    }

    /// Hands the authorized order to the app, then pays the EGW payment it gives with the wallet card.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
        handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
    ) {
        controller.delegateOwnsAuthorizationDeadline()
        queue.async { [self] in
            nextToken += 1
            let token = nextToken
            handlers[token] = handler
            handle(.authorized(token: token, payment))
        }
    }

    /// What the sheet shows for an EGW payment's result.
    static func sheetResult(for result: PaymentResult) -> PaymentAuthorizationResult {
        WalletContextMachine.sheetResult(for: result)
    }

    // MARK: - Executor

    /// Feeds `event` on the queue (behind the event being handled, if any).
    private func handle(_ event: WalletContextMachine.Event) { runner.feed(event) }

    private func perform(_ effect: WalletContextMachine.Effect) {
        switch effect {
        case .askPaymentFor(let token, let order):
            let paymentFor = paymentFor
            controller.callbackQueue.async { [self] in
                paymentFor(order) { [self] answer in
                    let answer = answer.mapError { WalletContextMachine.PaymentSourceFailure(text: "\($0)") }
                    queue.async {
                        let ended = self.controller.finishReason != nil
                        self.handle(.paymentForAnswered(token: token, answer, sheetEnded: ended))
                    }
                }
            }
        case .startPaymentForTimer(let token, let seconds):
            runner.startTimer(token, after: seconds, feeding: .paymentForDeadline(token: token))
        case .startCardPayment(let token, let request, let card):
            // The async form: its result comes on the kit's callback queue, whether or not the host runs
            // the main queue (the completion form's is @MainActor, on the main queue).
            let (kit, presenter) = (paymentKit, pagePresenter)
            Task.detached { [self] in
                let result = await kit.startCardPayment(request, card: card, from: presenter)
                queue.async { self.handle(.paymentFinished(token: token, result)) }
            }
        case .answerSheet(let token, let result):
            handlers.removeValue(forKey: token)?(result)
        case .dismissSheet:
            controller.dismiss { [self] in
                queue.async { self.handle(.sheetGone(self.controller.finishReason ?? .presentationFailed)) }
            }
        case .report(let report):
            if let observer = contextOptions.observer { controller.callbackQueue.async { observer(report) } }
        case .deliver(let terminal):
            guard let completion else { return }
            self.completion = nil
            let result = WalletPaymentResult(
                outcome: terminal.outcome, shownStatus: controller.shownStatus,
                finishReason: controller.finishReason ?? .presentationFailed, attempts: controller.attempts,
                total: controller.summaryItems.last?.amount ?? 0, currencyCode: controller.paymentRequest.currencyCode,
                payment: terminal.payment, order: terminal.order,
                error: terminal.error.map { $0 as any Error } ?? terminal.payment?.error)
            runner.cancelAllTimers()
            let released = keepAlive
            keepAlive = nil
            controller.callbackQueue.async {
                completion(result)
                _ = released  // the self-retention ends after the hand-over
            }
        }
    }
}
