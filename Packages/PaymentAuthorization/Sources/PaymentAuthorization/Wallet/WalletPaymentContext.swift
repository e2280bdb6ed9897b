import Dispatch
import Foundation
import PaymentFlow
import Synchronization

/// The amount an authorized sheet is to be paid with: its final total (after shipping and coupon).
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
    /// (`.succeeded`, `.unresolved`) or the sheet completed; `.cancelled` when the buyer (or a deadline,
    /// or the app) ended the sheet with no payment pending or charged.
    public let outcome: PaymentOutcome
    /// The last status the sheet showed (nil: none).
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

    /// One line, without card data.
    public var description: String {
        "WalletPaymentResult(\(outcome), status: \(shownStatus.map { "\($0)" } ?? "-"), finish: "
            + "\(finishReason.rawValue), attempts: \(attempts), total: \(CurrencyExponent.format(total, currencyCode: currencyCode)), payment: "
            + "\(payment.map { "\($0)" } ?? "-"))"
    }
}

/// A ready-made sheet delegate that pays with EGW (like Stripe's `STPApplePayContext`).
///
/// On each authorization it asks the app (`paymentFor`) for the EGW payment of the sheet's final total,
/// runs `startCardPayment` with the wallet card (a 3-D Secure challenge goes through `pagePresenter`,
/// and is gone before the sheet shows its status), and maps the result onto the sheet: success; a
/// failure with a ``WalletCardError`` that keeps the sheet open for another card (declined, brand not
/// accepted, failed authentication); a failure that ends it for everything else (`.unresolved` never
/// offers a retry). A buyer cancel or a deadline while the EGW payment runs ends the sheet but never
/// the payment: the result waits for the gateway's answer. A payment the app hands over after the sheet
/// ended is not started.
///
/// Thread-safe. Keeps itself alive until it delivered.
public final class WalletPaymentContext: PaymentAuthorizationControllerDelegate {
    /// Gives the EGW payment (from the merchant backend) for an amount, or an error.
    public typealias PaymentSource =
        @Sendable (
            _ amount: WalletPaymentAmount,
            _ completion: @escaping @Sendable (Result<CardPaymentRequest, any Error>) -> Void
        ) -> Void

    /// The sheet's controller (its delegate is this context).
    public let controller: PaymentAuthorizationController
    private let paymentKit: PaymentKit
    private let pagePresenter: any PaymentPresenter
    private let paymentFor: PaymentSource
    /// Prices the buyer's changes (nil: the sheet's items stay as they are and coupons are refused).
    public let merchant: (any WalletPaymentMerchant)?

    private struct State {
        var completion: (@Sendable (WalletPaymentResult) -> Void)?
        var keepAlive: WalletPaymentContext?
        var paymentRunning = false
        var sheetGone = false
        var delivered = false
        var last: PaymentResult?
    }

    private let state = Mutex(State())

    /// A context, or nil when the request breaks a rule or the device cannot pay (see the controller).
    public init?(
        paymentRequest: PaymentAuthorizationRequest, sheetPresenter: any WalletSheetPresenter,
        wallet: SimulatedWallet = .default, options: PaymentAuthorizationController.Options = .init(),
        merchant: (any WalletPaymentMerchant)? = nil, paymentKit: PaymentKit, pagePresenter: any PaymentPresenter,
        paymentFor: @escaping PaymentSource
    ) {
        guard
            let controller = PaymentAuthorizationController(
                paymentRequest: paymentRequest, presenter: sheetPresenter, wallet: wallet, options: options)
        else { return nil }
        self.controller = controller
        self.paymentKit = paymentKit
        self.pagePresenter = pagePresenter
        self.paymentFor = paymentFor
        self.merchant = merchant
    }

    /// Shows the sheet; `completion` gets the one result, on the controller's callback queue, after the
    /// sheet is gone and the last EGW payment ended. A context presents once: a second call gets a result
    /// of its own at once (still asynchronously): `.failed`, `.presentationFailed`, no attempt, nothing
    /// shown; the first is untouched.
    public func present(completion: @escaping @Sendable (WalletPaymentResult) -> Void) {
        let first = state.withLock { state -> Bool in
            guard state.completion == nil, !state.delivered else { return false }
            state.completion = completion
            state.keepAlive = self
            return true
        }
        guard first else {
            let refused = WalletPaymentResult(
                outcome: .failed, shownStatus: nil, finishReason: .presentationFailed, attempts: 0,
                total: controller.paymentRequest.paymentSummaryItems.last?.amount ?? 0,
                currencyCode: controller.paymentRequest.currencyCode, payment: nil)
            controller.options.callbackQueue.async { completion(refused) }
            return
        }
        controller.delegate = self
        controller.present { [self] shown in
            if !shown { sheetIsGone() }
        }
    }

    // MARK: - Delegate

    /// Dismisses the sheet; the result follows once it is gone and no payment runs.
    public func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
        controller.dismiss { [self] in sheetIsGone() }
    }

    /// Asks the merchant (or keeps the items).
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
    ) {
        guard let merchant else { return handler(PaymentRequestUpdate(summaryItems: controller.summaryItems)) }
        merchant.shippingContactChanged(contact, controller: controller, handler: handler)
    }

    /// Asks the merchant (or keeps the items).
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void
    ) {
        guard let merchant else { return handler(PaymentRequestUpdate(summaryItems: controller.summaryItems)) }
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
                    errors: [PaymentRequestError.couponCodeInvalid], summaryItems: controller.summaryItems))
        }
        merchant.couponCodeChanged(couponCode, controller: controller, handler: handler)
    }

    /// Gets the EGW payment for the total from the app and pays it with the wallet card.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
        handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
    ) {
        let exponent = CurrencyExponent.of(payment.currencyCode) ?? 2
        guard let minor = CurrencyExponent.minorUnits(payment.total, exponent: exponent) else {
            handler(PaymentAuthorizationResult(status: .failure))
            return
        }
        let amount = WalletPaymentAmount(total: payment.total, minorUnits: minor, currencyCode: payment.currencyCode)
        state.withLock { $0.paymentRunning = true }
        paymentFor(amount) { [self] source in
            // The sheet may have ended while the backend answered: then no payment is started.
            let start = state.withLock { state -> Bool in
                if state.sheetGone || controller.finishReason != nil { state.paymentRunning = false }
                return state.paymentRunning
            }
            guard start, case .success(let request) = source else {
                state.withLock { $0.paymentRunning = false }
                handler(PaymentAuthorizationResult(status: .failure))
                deliverIfDone()
                return
            }
            paymentKit.startCardPayment(request, card: payment.token.card, from: pagePresenter) { [self] result in
                state.withLock {
                    $0.last = result
                    $0.paymentRunning = false
                }
                handler(Self.sheetResult(for: result))
                deliverIfDone()
            }
        }
    }

    /// What the sheet shows for an EGW payment's result.
    static func sheetResult(for result: PaymentResult) -> PaymentAuthorizationResult {
        guard result.outcome != .succeeded else { return PaymentAuthorizationResult(status: .success) }
        guard result.outcome == .failed else { return PaymentAuthorizationResult(status: .failure) }
        switch result.error?.paymentErrorCode {
        case .cardSessionFailed: return PaymentAuthorizationResult(status: .failure, errors: [WalletCardError.declined])
        case .cardBrandNotAccepted:
            return PaymentAuthorizationResult(status: .failure, errors: [WalletCardError.brandNotAccepted])
        case .authenticationFailed:
            return PaymentAuthorizationResult(status: .failure, errors: [WalletCardError.authenticationFailed])
        default: return PaymentAuthorizationResult(status: .failure)
        }
    }

    // MARK: - The one result

    private func sheetIsGone() {
        state.withLock { $0.sheetGone = true }
        deliverIfDone()
    }

    private func deliverIfDone() {
        let ready = state.withLock { state -> (@Sendable (WalletPaymentResult) -> Void, PaymentResult?)? in
            guard state.sheetGone, !state.paymentRunning, !state.delivered, let completion = state.completion else {
                return nil
            }
            state.delivered = true
            state.completion = nil
            return (completion, state.last)
        }
        guard let (completion, last) = ready else { return }
        let reason = controller.finishReason ?? .presentationFailed
        let result = WalletPaymentResult(
            outcome: Self.outcome(last: last?.outcome, reason: reason), shownStatus: controller.shownStatus,
            finishReason: reason, attempts: controller.attempts, total: controller.summaryItems.last?.amount ?? 0,
            currencyCode: controller.paymentRequest.currencyCode, payment: last)
        controller.options.callbackQueue.async { [self] in
            completion(result)
            _ = state.withLock { $0.keepAlive.take() }
        }
    }

    /// The outcome: the gateway's truth whenever money may have moved, else what ended the sheet.
    static func outcome(last: PaymentOutcome?, reason: SheetFinishReason) -> PaymentOutcome {
        if let last, last == .succeeded || last == .unresolved || reason == .completed { return last }
        switch reason {
        case .buyerCancelled, .dismissedByApp, .deadline: return .cancelled
        case .completed, .delegateGone, .presentationFailed: return last ?? .failed
        }
    }
}
