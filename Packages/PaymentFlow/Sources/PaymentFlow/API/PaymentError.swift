internal import BuyerText
import CardValidation
import Foundation

/// The SDK's errors, as they reach the app in ``PaymentResult/error``.
///
/// `PaymentError` is a namespace (as in the iOS SDK): the error itself is an
/// `NSError` in ``domain`` whose `code` is a ``Code`` raw value. Compare codes,
/// not messages:
///
/// ```swift
/// if result.error?.paymentErrorCode == .cardBrandNotAccepted { ... }
/// ```
///
/// Every error carries a `localizedDescription` a developer can act on: what went
/// wrong, why, and what to do (`"<summary>: <reason>. <advice>"`). It never
/// contains card data or the verification key. The summary and the advice
/// (also `localizedRecoverySuggestion`) come from BuyerText's table for the
/// process's locale (English or Latvian, chosen as gettext chooses); the reason
/// (`localizedFailureReason`) is developer detail written in English, so a
/// description in another language carries it only where the table has its
/// words (a card field's problem) and leaves it in `localizedFailureReason`
/// otherwise. A program shipped without BuyerText's resource folder gets the
/// code's name for the summary and no advice, never a crash.
public enum PaymentError {
    /// `"com.egw.egwpay"`, the domain of every error the SDK reports.
    public static let domain = "com.egw.egwpay"

    /// `userInfo` key: the gateway's error code (`String`, e.g. `"CARD_BRAND_NOT_ACCEPTED"`), when the gateway sent one.
    public static let gatewayCodeKey = "EGWGatewayErrorCode"
    /// `userInfo` key: the HTTP status (`Int`) of the response behind the error, when there was one.
    public static let httpStatusKey = "EGWHTTPStatus"
    /// `userInfo` key: where the error came from (`String`, e.g. `"POST card-sessions"`, `"status resolver"`).
    public static let sourceKey = "EGWErrorSource"

    /// The twelve error codes. Raw values are stable across versions.
    public enum Code: Int, Sendable, CaseIterable, CustomStringConvertible {
        /// The request or configuration is unusable, or a second payment was started while one runs.
        case invalidRequest = 1
        /// The presenter could not show the page.
        case presentationFailed = 2
        /// The checkout or challenge page failed to load.
        case pageLoadFailed = 3
        /// Transport failure: connect, TLS, timeout, reset.
        case networkError = 4
        /// The status lookup failed (the outcome is `.unresolved`).
        case statusLookupFailed = 5
        /// The gateway answered something undecodable or out of protocol.
        case invalidResponse = 6
        /// The card input failed validation; nothing was sent.
        case cardValidationFailed = 7
        /// No `checkoutBaseURL`, or the card-encryption key could not be fetched or is unusable.
        case encryptionKeyUnavailable = 8
        /// The card data could not be encrypted.
        case encryptionFailed = 9
        /// The card session could not be created, or it ended failed.
        case cardSessionFailed = 10
        /// 3-D Secure authentication was rejected or failed.
        case authenticationFailed = 11
        /// The gateway does not accept this card brand for this store.
        case cardBrandNotAccepted = 12

        /// The case name, e.g. `"networkError"`.
        public var description: String {
            switch self {
            case .invalidRequest: "invalidRequest"
            case .presentationFailed: "presentationFailed"
            case .pageLoadFailed: "pageLoadFailed"
            case .networkError: "networkError"
            case .statusLookupFailed: "statusLookupFailed"
            case .invalidResponse: "invalidResponse"
            case .cardValidationFailed: "cardValidationFailed"
            case .encryptionKeyUnavailable: "encryptionKeyUnavailable"
            case .encryptionFailed: "encryptionFailed"
            case .cardSessionFailed: "cardSessionFailed"
            case .authenticationFailed: "authenticationFailed"
            case .cardBrandNotAccepted: "cardBrandNotAccepted"
            }
        }
    }

    /// The code of `error` when it is one of the SDK's, else `nil`.
    public static func code(of error: (any Error)?) -> Code? {
        guard let error else { return nil }
        let nsError = error as NSError
        guard nsError.domain == domain else { return nil }
        return Code(rawValue: nsError.code)
    }
}

extension NSError {
    /// The SDK error code when this error is in ``PaymentError/domain``, else `nil`.
    public var paymentErrorCode: PaymentError.Code? { PaymentError.code(of: self) }
}

/// The SDK's internal structured error: a code, a reason a developer can act
/// on, and where it came from. Machines carry it (it is `Equatable`, so tests
/// compare codes); the terminal funnel turns it into the `NSError` the app sees.
struct FlowError: Error, Equatable, Sendable, CustomStringConvertible {
    var code: PaymentError.Code
    /// Developer-facing reason, already free of card data and secrets.
    var reason: String
    /// Where it came from, e.g. `"GET status"`.
    var source: String?
    var httpStatus: Int?
    var gatewayCode: String?
    /// A lower-level cause (an SDK error with another code, or the host resolver's error).
    var underlying: Underlying?
    /// Whether money may have moved although the SDK could not confirm it (the outcome is `.unresolved`):
    /// the advice then says to ask the backend, never to retry.
    var inDoubt = false
    /// For `cardValidationFailed`: the issue CardValidation found, carried as the value itself to the app's
    /// `NSError` (`NSError.cardValidationIssue`; also as raw values under the older field and reason keys).
    var cardIssue: CardValidationIssue?

    /// A cause, kept comparable.
    enum Underlying: Equatable, Sendable {
        case flow(Box)
        case foreign(domain: String, code: Int, message: String)
    }

    /// Indirection so `FlowError` can nest.
    final class Box: Equatable, Sendable {
        let error: FlowError
        init(_ error: FlowError) { self.error = error }
        static func == (a: Box, b: Box) -> Bool { a.error == b.error }
    }

    init(
        _ code: PaymentError.Code, _ reason: String, source: String? = nil, httpStatus: Int? = nil,
        gatewayCode: String? = nil, underlying: Underlying? = nil
    ) {
        self.code = code
        self.reason = reason
        self.source = source
        self.httpStatus = httpStatus
        self.gatewayCode = gatewayCode
        self.underlying = underlying
    }

    /// This error as the cause of a new one with another code.
    func wrapped(as code: PaymentError.Code, _ reason: String) -> FlowError {
        FlowError(
            code, reason, source: source, httpStatus: httpStatus, gatewayCode: gatewayCode,
            underlying: .flow(Box(self)))
    }

    var description: String { "\(code) (\(code.rawValue)): \(reason)" }

    /// The advice of every error that comes with an `.unresolved` outcome where money may have moved.
    static func inDoubtAdvice(in text: BuyerText = .current) -> String {
        text.text("sdk.error.inDoubt.advice") ?? ""
    }

    /// This error, marked as leaving the payment in doubt.
    var markedInDoubt: FlowError {
        var copy = self
        copy.inDoubt = true
        return copy
    }

    /// The `NSError` the app sees, in the locale's language.
    var nsError: NSError { nsError(in: .current) }

    /// What the description says in `text`'s language: the summary, the reason where that language has
    /// words for it, the advice.
    func localizedDescription(in text: BuyerText) -> String {
        let summary = text.text("sdk.error.\(code.rawValue).summary") ?? "\(code)"
        let advice = advice(in: text)
        let shownReason: String? =
            if text.language == "en" {
                reason
            } else if let cardIssue {
                text.text("card.error.\(cardIssue.field).\(cardIssue.reason.rawValue)").map {
                    String($0.dropLast($0.hasSuffix(".") ? 1 : 0))
                }
            } else {
                nil
            }
        let head = shownReason.map { "\(summary): \($0)" } ?? summary
        return advice.isEmpty ? "\(head)." : "\(head). \(advice)"
    }

    private func advice(in text: BuyerText) -> String {
        inDoubt ? Self.inDoubtAdvice(in: text) : text.text("sdk.error.\(code.rawValue).advice") ?? ""
    }

    /// The `NSError` the app sees, its description and advice in `text`'s language.
    func nsError(in text: BuyerText) -> NSError {
        let advice = advice(in: text)
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: localizedDescription(in: text),
            NSLocalizedFailureReasonErrorKey: reason,
            NSLocalizedRecoverySuggestionErrorKey: advice,
        ]
        if let source { info[PaymentError.sourceKey] = source }
        if let httpStatus { info[PaymentError.httpStatusKey] = httpStatus }
        if let gatewayCode { info[PaymentError.gatewayCodeKey] = gatewayCode }
        if let cardIssue {
            info[CardValidationIssue.issueUserInfoKey] = cardIssue
            info[CardValidationIssue.fieldUserInfoKey] = cardIssue.field.rawValue
            info[CardValidationIssue.reasonUserInfoKey] = cardIssue.reason.rawValue
        }
        switch underlying {
        case .flow(let box): info[NSUnderlyingErrorKey] = box.error.nsError(in: text)
        case .foreign(let domain, let code, let message):
            info[NSUnderlyingErrorKey] = NSError(
                domain: domain, code: code, userInfo: [NSLocalizedDescriptionKey: message])
        case nil: break
        }
        return NSError(domain: PaymentError.domain, code: code.rawValue, userInfo: info)
    }
}
