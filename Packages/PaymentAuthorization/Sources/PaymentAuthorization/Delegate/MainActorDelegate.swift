import Foundation

/// The sheet's delegate for main-actor code: the usual iOS coordinator (a class with mutable state,
/// isolated to the main actor) ports here with `async` forms, as today's PassKit offers them
/// (`paymentAuthorizationController(_:didAuthorizePayment:) async -> PKPaymentAuthorizationResult`).
///
/// Set it with ``PaymentAuthorizationController/mainActorDelegate``. Required, as seed 004 says:
/// `didFinish` and the authorization. Every method with a completion in PassKit has its `async` form
/// here; the updates have defaults (the sheet as it stands; coupons refused).
///
/// Threading: every method runs on the main actor, whatever the controller's callback queue; the
/// controller's rules hold unchanged (one call at a time, `didFinish` once, deadlines). Returning from
/// an `async` method is the answer, so it is given exactly once. The delegate is held weakly; one that
/// is gone answers an authorization `.failure` and leaves updates as they are.
@MainActor
public protocol MainActorPaymentAuthorizationControllerDelegate: AnyObject {
    /// Required. The sheet ended (see ``PaymentAuthorizationControllerDelegate/paymentAuthorizationControllerDidFinish(_:)``).
    func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController)

    /// The buyer authenticated; `didAuthorizePayment` follows.
    func paymentAuthorizationControllerWillAuthorizePayment(_ controller: PaymentAuthorizationController)

    /// Required. Process `payment` and return the result shown on the sheet (a `.failure` with errors
    /// keeps it open for another try).
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment
    ) async -> PaymentAuthorizationResult

    /// The buyer picked a shipping method: return the new items.
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod
    ) async -> PaymentRequestShippingMethodUpdate

    /// The buyer picked a shipping contact (redacted): return the methods and items, or errors.
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact
    ) async -> PaymentRequestShippingContactUpdate

    /// The buyer picked a card (redacted): return the items.
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectPaymentMethod paymentMethod: PaymentMethod
    ) async -> PaymentRequestPaymentMethodUpdate

    /// The buyer entered a coupon code: return the items, or a coupon error.
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String
    ) async -> PaymentRequestCouponCodeUpdate
}

extension MainActorPaymentAuthorizationControllerDelegate {
    /// Does nothing.
    public func paymentAuthorizationControllerWillAuthorizePayment(_ controller: PaymentAuthorizationController) {}

    /// The sheet's items unchanged.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod
    ) async -> PaymentRequestShippingMethodUpdate {
        PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems)
    }

    /// The sheet's methods and items unchanged.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact
    ) async -> PaymentRequestShippingContactUpdate {
        PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems)
    }

    /// The sheet's items unchanged.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectPaymentMethod paymentMethod: PaymentMethod
    ) async -> PaymentRequestPaymentMethodUpdate {
        PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems)
    }

    /// `couponCodeInvalid`: a delegate that does not handle coupons applies none.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String
    ) async -> PaymentRequestCouponCodeUpdate {
        PaymentRequestUpdate(
            errors: [PaymentRequestError.couponCodeInvalid], paymentSummaryItems: controller.summaryItems)
    }
}

/// Runs a ``MainActorPaymentAuthorizationControllerDelegate`` behind the controller's `Sendable`
/// delegate protocol: each call hops onto the main actor, and the `async` method's return is the answer.
/// `target` is read only on the main actor and written once, at `init` (there too), which is why the
/// class can be `@unchecked Sendable`.
final class MainActorDelegateAdapter: PaymentAuthorizationControllerDelegate, @unchecked Sendable {
    private(set) weak var target: (any MainActorPaymentAuthorizationControllerDelegate)?

    @MainActor
    init(_ target: any MainActorPaymentAuthorizationControllerDelegate) {
        self.target = target
    }

    func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
        Task { @MainActor in self.target?.paymentAuthorizationControllerDidFinish(controller) }
    }

    func paymentAuthorizationControllerWillAuthorizePayment(_ controller: PaymentAuthorizationController) {
        // Called from the authorization's own task, so the two keep their order.
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
        handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
    ) {
        Task { @MainActor in
            guard let target = self.target else { return handler(PaymentAuthorizationResult(status: .failure)) }
            target.paymentAuthorizationControllerWillAuthorizePayment(controller)
            handler(await target.paymentAuthorizationController(controller, didAuthorizePayment: payment))
        }
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void
    ) {
        update(controller, handler) {
            await $0.paymentAuthorizationController(controller, didSelectShippingMethod: shippingMethod)
        }
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
    ) {
        update(controller, handler) {
            await $0.paymentAuthorizationController(controller, didSelectShippingContact: contact)
        }
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectPaymentMethod paymentMethod: PaymentMethod,
        handler: @escaping @Sendable (PaymentRequestPaymentMethodUpdate) -> Void
    ) {
        update(controller, handler) {
            await $0.paymentAuthorizationController(controller, didSelectPaymentMethod: paymentMethod)
        }
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String,
        handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void
    ) {
        update(controller, handler) {
            await $0.paymentAuthorizationController(controller, didChangeCouponCode: couponCode)
        }
    }

    /// Asks the target for an update on the main actor and answers with it (the sheet unchanged when the
    /// target is gone).
    private func update(
        _ controller: PaymentAuthorizationController, _ handler: @escaping @Sendable (PaymentRequestUpdate) -> Void,
        _ ask: @escaping @MainActor (any MainActorPaymentAuthorizationControllerDelegate) async -> PaymentRequestUpdate
    ) {
        Task { @MainActor in
            guard let target = self.target else { return handler(Self.unchanged(controller)) }
            handler(await ask(target))
        }
    }

    private static func unchanged(_ controller: PaymentAuthorizationController) -> PaymentRequestUpdate {
        PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems)
    }
}
