import Foundation

/// Replaces the SDK's built-in hosted-checkout status lookup with your own.
///
/// Call `completion` exactly once, from any queue, with the platform's raw
/// status string (`"SETTLED"`, `"FAILED"`, ...) and order number, or an error.
/// The SDK maps the status; `nil` status with `nil` error is `.unresolved`; an
/// error makes the outcome `.unresolved` with `statusLookupFailed` (your error
/// as its underlying error). It replaces only the hosted-checkout lookup; the
/// card flow makes none.
///
/// The SDK guards the resolver: a second call of `completion` is ignored, and
/// one that never comes is timed out after ``Configuration/statusResolverTimeout``
/// (`.unresolved`, `statusLookupFailed`). It is called on the callback queue.
public protocol PaymentStatusResolving: AnyObject, Sendable {
    /// Looks up the status of `paymentId` and reports it through `completion`, exactly once.
    func resolveStatus(
        paymentId: String, verificationKey: String,
        completion: @escaping @Sendable (_ status: String?, _ orderNumber: String?, _ error: NSError?) -> Void)
}

/// An alternative to the completion block.
///
/// `paymentDidFinish` is called exactly once per payment, on the main actor
/// (the main queue, whatever ``Configuration/callbackQueue`` is), after the SDK's
/// page is gone, so a `@MainActor` class conforms with its own isolated method.
/// A conformer that is not main-actor isolated may implement it `nonisolated`. ``PaymentKit`` holds the
/// delegate weakly: keep your own strong reference. If the delegate is gone
/// when the result is ready, the result is dropped, not retried.
public protocol PaymentDelegate: AnyObject, Sendable {
    /// The payment ended with `result`. Called on the main actor.
    @MainActor func paymentDidFinish(_ result: PaymentResult)
}
