import Foundation

/// The sheet's delegate: the seed's `PKPaymentAuthorizationViewControllerDelegate`, with today's
/// `handler:` forms beside the seed's `completion:` forms.
///
/// Required, as the seed says: ``paymentAuthorizationControllerDidFinish(_:)`` and the authorization,
/// here in today's `handler:` form
/// (``paymentAuthorizationController(_:didAuthorizePayment:handler:)``); a delegate written in the
/// seed's `completion:` form conforms to ``SeedPaymentAuthorizationControllerDelegate`` instead, which
/// requires that form and adapts it. So a delegate without an authorization method, or whose
/// authorization method misses by one label, does not compile (before, a default silently answered
/// `.failure`). The update methods have defaults (the sheet as it stands) and are protocol
/// requirements, so Swift warns when a method in the conforming type nearly matches one (for example
/// iOS 9–11's `didSelectShippingContact:completion:`).
///
/// For an `@MainActor` coordinator with mutable state (the usual iOS port), use
/// ``MainActorPaymentAuthorizationControllerDelegate``, with `async` forms.
///
/// Threading: every method is called on the controller's callback queue (the main queue by default;
/// always serially, in order), one at a time: the controller waits for the answer to one call before it
/// makes the next. `didFinish` is the one exception; it may come at any time, once per presentation.
/// Each answer (handler or completion) may be called from any thread, at once inside the method or
/// later; only its first call counts, and an answer after the deadline or after `didFinish` is ignored
/// and reported. The delegate is held weakly.
public protocol PaymentAuthorizationControllerDelegate: AnyObject, Sendable {
    /// The sheet ended: after the authorization's status was shown, or at once when the buyer cancelled
    /// without authorizing (then it is the only call), or when a deadline passed or the app dismissed it.
    /// Exactly once per presentation. The controller takes the sheet down right after this returns
    /// (calling `dismiss(completion:)` here is how to learn when it is gone).
    func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController)

    /// The buyer authenticated and the payment is about to be authorized; `didAuthorizePayment` follows.
    func paymentAuthorizationControllerWillAuthorizePayment(_ controller: PaymentAuthorizationController)

    /// Required. The buyer authorized `payment` (the requested contact fields, the card in the token):
    /// process it and answer once. A `.failure` with errors keeps the sheet open for another try; one
    /// without errors ends it.
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
        handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void)

    /// The buyer picked a shipping method: answer with the new items (they replace the sheet's).
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void)

    /// The seed's form: a status and the items that replace the sheet's.
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
        completion: @escaping @Sendable (PaymentAuthorizationStatus, [PaymentSummaryItem]) -> Void)

    /// The buyer picked a shipping contact, redacted (city, state, postal code, country): answer with the
    /// methods and items for that address, or errors (which stop authorization until another contact).
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void)

    /// The seed's form (`didSelectShippingAddress`): a status, the methods and the items for the address.
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingAddress address: Contact,
        completion: @escaping @Sendable (PaymentAuthorizationStatus, [ShippingMethod], [PaymentSummaryItem]) -> Void)

    /// The buyer picked a card, redacted (funding type only): answer with the items (e.g. a surcharge).
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectPaymentMethod paymentMethod: PaymentMethod,
        handler: @escaping @Sendable (PaymentRequestPaymentMethodUpdate) -> Void)

    /// The buyer entered a coupon code: answer with the items (and methods), or a coupon error.
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String,
        handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void)
}

extension PaymentAuthorizationControllerDelegate {
    /// Does nothing.
    public func paymentAuthorizationControllerWillAuthorizePayment(_ controller: PaymentAuthorizationController) {}

    /// Calls the seed's `completion:` form.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void
    ) {
        paymentAuthorizationController(controller, didSelectShippingMethod: shippingMethod) { status, items in
            handler(PaymentRequestUpdate(paymentSummaryItems: items, status: status))
        }
    }

    /// Answers `.success` with the sheet's items unchanged.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
        completion: @escaping @Sendable (PaymentAuthorizationStatus, [PaymentSummaryItem]) -> Void
    ) {
        completion(.success, controller.summaryItems)
    }

    /// Calls the seed's `completion:` form (`didSelectShippingAddress`).
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
    ) {
        paymentAuthorizationController(controller, didSelectShippingAddress: contact) { status, methods, items in
            handler(PaymentRequestUpdate(paymentSummaryItems: items, shippingMethods: methods, status: status))
        }
    }

    /// Answers `.success` with the sheet's methods and items unchanged.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingAddress address: Contact,
        completion: @escaping @Sendable (PaymentAuthorizationStatus, [ShippingMethod], [PaymentSummaryItem]) -> Void
    ) {
        completion(.success, controller.shippingMethods, controller.summaryItems)
    }

    /// Answers with the sheet's items unchanged.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectPaymentMethod paymentMethod: PaymentMethod,
        handler: @escaping @Sendable (PaymentRequestPaymentMethodUpdate) -> Void
    ) {
        handler(PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems))
    }

    /// Answers `couponCodeInvalid`: a delegate that does not handle coupons applies none.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String,
        handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void
    ) {
        handler(
            PaymentRequestUpdate(
                errors: [PaymentRequestError.couponCodeInvalid], paymentSummaryItems: controller.summaryItems)
        )
    }
}

/// A delegate written in the seed's form: the authorization is answered with a status 0–4 through
/// `completion` (required, as the seed says); the `handler:` form is adapted from it (2–4 become
/// `.failure` with their ``PaymentRequestError``). Everything else is as ``PaymentAuthorizationControllerDelegate``.
public protocol SeedPaymentAuthorizationControllerDelegate: PaymentAuthorizationControllerDelegate {
    /// Required. The seed's `paymentAuthorizationViewController(_:didAuthorizePayment:completion:)`:
    /// process `payment`, then call `completion` once with a status 0–4.
    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
        completion: @escaping @Sendable (PaymentAuthorizationStatus) -> Void)
}

extension SeedPaymentAuthorizationControllerDelegate {
    /// Calls the seed's `completion:` form and folds its status into a result.
    public func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
        handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
    ) {
        paymentAuthorizationController(controller, didAuthorizePayment: payment) { status in handler(status.result) }
    }
}
