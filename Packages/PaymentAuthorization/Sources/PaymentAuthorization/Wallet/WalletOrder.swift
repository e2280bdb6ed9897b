import Foundation
import PaymentFlow

/// What the buyer authorized, as ``WalletPaymentContext`` hands it to the app's `paymentFor` and
/// carries it in ``WalletPaymentResult/order``: the order's data without the card.
///
/// Modelled on Stripe's `STPApplePayContext`, which hands its delegate the whole `PKPayment`. Where it
/// differs: the card itself (our `PKPaymentToken` payment data) stays inside the context, which pays it
/// with an EGW card payment, so the app's backend never holds card data; the card appears only as its
/// network and masked display (`Visa •••• 1111`); the total comes with the currency exponent applied
/// (``WalletPaymentAmount/minorUnits``), as the EGW backend takes it.
public struct AuthorizedWalletPayment: Sendable, Equatable, CustomStringConvertible {
    /// The card: network, masked display (`Visa •••• 1111`), funding type.
    public let paymentMethod: PaymentMethod
    /// The billing contact, only the fields the request required (nil: none required).
    public let billingContact: Contact?
    /// The shipping contact, only the fields the request required (nil: none required).
    public let shippingContact: Contact?
    /// The shipping method the buyer chose (nil: the request offered none).
    public let shippingMethod: ShippingMethod?
    /// The final summary items the buyer saw (the last is the total).
    public let summaryItems: [PaymentSummaryItem]
    /// The final total, in major and minor units.
    public let amount: WalletPaymentAmount
    /// The authorization's identifier (`PKPaymentToken.transactionIdentifier`), fresh per attempt.
    public let transactionIdentifier: String
    /// The request's `applicationData`.
    public let applicationData: Data?

    /// The total in major units (``WalletPaymentAmount/total``).
    public var total: Decimal { amount.total }
    /// The total in minor units, as the EGW backend takes it (``WalletPaymentAmount/minorUnits``).
    public var minorUnits: Int { amount.minorUnits }
    /// The ISO 4217 currency.
    public var currencyCode: String { amount.currencyCode }

    /// The order of `payment`, or nil when its total has more fraction digits than its currency has.
    init?(_ payment: Payment) {
        let exponent = CurrencyExponent.of(payment.currencyCode) ?? 2
        guard let minor = CurrencyExponent.minorUnits(payment.total, exponent: exponent) else { return nil }
        paymentMethod = payment.token.paymentMethod
        billingContact = payment.billingContact
        shippingContact = payment.shippingContact
        shippingMethod = payment.shippingMethod
        summaryItems = payment.summaryItems
        amount = WalletPaymentAmount(total: payment.total, minorUnits: minor, currencyCode: payment.currencyCode)
        transactionIdentifier = payment.token.transactionIdentifier
        applicationData = payment.token.applicationData
    }

    /// `AuthorizedWalletPayment(Visa •••• 1111 (credit), 16.24 EUR, express)`; contacts left out.
    public var description: String {
        "AuthorizedWalletPayment(\(paymentMethod), \(amount)"
            + (shippingMethod.map { ", \($0.identifier)" } ?? "") + ")"
    }
}

/// Why a ``WalletPaymentContext`` ended without the EGW payment's own result, or what it refused.
///
/// Structured: compare the case, not the text.
public enum WalletPaymentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `paymentFor` did not answer within ``WalletPaymentContext/Options/paymentForTimeout`` seconds:
    /// the sheet ended `.failed` and no card payment was started (a later answer is ignored).
    case paymentForTimedOut(seconds: TimeInterval)
    /// `paymentFor` answered with an error (its text, as the app gave it).
    case paymentSourceFailed(String)
    /// The buyer used every attempt ``WalletPaymentContext/Options/maximumAttempts`` allows.
    case attemptsExhausted(Int)
    /// The total has more fraction digits than the currency (never the case for a valid request).
    case amountUnrepresentable
    /// This context was presented before; a context presents once.
    case presentedTwice
    /// The sheet could not be shown.
    case sheetNotShown

    /// One line for a developer.
    public var description: String {
        switch self {
        case .paymentForTimedOut(let seconds): "paymentFor did not answer within \(seconds) s; no payment was started"
        case .paymentSourceFailed(let text): "paymentFor failed: \(text)"
        case .attemptsExhausted(let count): "the buyer used all \(count) attempts"
        case .amountUnrepresentable: "the total does not fit the currency's minor units"
        case .presentedTwice: "this context was presented before"
        case .sheetNotShown: "the sheet could not be shown"
        }
    }
}

/// What a ``WalletPaymentContext`` noticed and did not act on (its ``WalletPaymentContext/Options/observer``).
public enum WalletContextReport: Sendable, Equatable, CustomStringConvertible {
    /// `paymentFor` answered a second time (or more): ignored, nothing was started.
    case paymentForAnsweredAgain(attempt: Int)
    /// `paymentFor` answered after its deadline: ignored, nothing was started.
    case paymentForAnsweredLate(attempt: Int)
    /// `paymentFor` answered after the sheet ended: ignored, nothing was started.
    case paymentForAnsweredAfterTheSheetEnded(attempt: Int)
    /// `paymentFor`'s deadline passed.
    case paymentForDeadlinePassed(attempt: Int)

    /// One line.
    public var description: String {
        switch self {
        case .paymentForAnsweredAgain(let attempt): "ignored a repeated paymentFor answer (attempt \(attempt))"
        case .paymentForAnsweredLate(let attempt): "ignored a paymentFor answer after its deadline (attempt \(attempt))"
        case .paymentForAnsweredAfterTheSheetEnded(let attempt):
            "ignored a paymentFor answer after the sheet ended (attempt \(attempt))"
        case .paymentForDeadlinePassed(let attempt): "paymentFor deadline passed (attempt \(attempt))"
        }
    }
}
