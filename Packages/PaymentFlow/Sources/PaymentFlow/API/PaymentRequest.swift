import Foundation

/// A payment on the hosted checkout page.
///
/// Your backend creates the payment and sends the app its `paymentId`, its
/// `verificationKey`, the checkout URL (`_links.checkoutRedirect.href`) and the
/// `shopRedirectUrl` it used, which is the ``returnURL`` here.
public struct PaymentRequest: Sendable, CustomStringConvertible {
    /// String constants for ``PaymentRequest/preferredMethod``.
    public enum MethodHint {
        /// Opens the page on the card form: `"card"`.
        public static let card = "card"
        /// Opens the page on bank payments: `"bank"`.
        public static let bank = "bank"
        /// Opens the page on Click to Pay: `"click-to-pay"`.
        public static let clickToPay = "click-to-pay"

        /// The hints the SDK passes to the page; any other value is ignored.
        static let known: Set<String> = [card, bank, clickToPay]
    }

    /// The payment's identifier from your backend.
    public let paymentId: String
    /// The per-payment access credential from your backend. Never logged.
    public let verificationKey: String
    /// The `_links.checkoutRedirect.href` value. Must be `http` or `https` (`https` in `.live`).
    public let checkoutURL: URL
    /// The same value your backend sent as `shopRedirectUrl`. Reaching it (same scheme, host, port
    /// and path; query and fragment ignored) ends the page.
    public let returnURL: URL
    /// Opens the page directly on one method (see ``MethodHint``); `nil` shows the method picker.
    /// An unrecognised value is ignored.
    public var preferredMethod: String?

    /// Creates a hosted-checkout request.
    public init(paymentId: String, verificationKey: String, checkoutURL: URL, returnURL: URL) {
        self.paymentId = paymentId
        self.verificationKey = verificationKey
        self.checkoutURL = checkoutURL
        self.returnURL = returnURL
    }

    /// A summary without the verification key.
    public var description: String {
        "PaymentRequest(paymentId: \(paymentId), checkoutURL: \(checkoutURL.absoluteString), "
            + "returnURL: \(returnURL.absoluteString), preferredMethod: \(preferredMethod ?? "nil"))"
    }
}

/// A payment made with your own card form (``CardInput``).
///
/// No checkout URL and no return URL: the buyer never leaves the app. The same
/// `paymentId`/`verificationKey` may be paid by either flow.
public struct CardPaymentRequest: Sendable, CustomStringConvertible {
    /// The payment's identifier from your backend.
    public let paymentId: String
    /// The per-payment access credential from your backend. Never logged.
    public let verificationKey: String

    /// Creates a card-payment request.
    public init(paymentId: String, verificationKey: String) {
        self.paymentId = paymentId
        self.verificationKey = verificationKey
    }

    /// A summary without the verification key.
    public var description: String { "CardPaymentRequest(paymentId: \(paymentId))" }
}
