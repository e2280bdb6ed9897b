import Foundation
import Synchronization

/// Prices a sheet for a ``WalletPaymentContext``: answers the buyer's changes (contact, shipping method,
/// coupon) with new summary items. The context calls one method at a time, on the controller's callback
/// queue; each handler may be called from any thread, once.
public protocol WalletPaymentMerchant: AnyObject, Sendable {
    /// The buyer picked a shipping contact (redacted).
    func shippingContactChanged(
        _ contact: Contact, controller: PaymentAuthorizationController,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void)
    /// The buyer picked a shipping method.
    func shippingMethodChanged(
        _ method: ShippingMethod, controller: PaymentAuthorizationController,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void)
    /// The buyer entered a coupon code.
    func couponCodeChanged(
        _ code: String, controller: PaymentAuthorizationController,
        handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void)
}

/// A rule-based merchant: goods lines, a shipping line for the selected method, a coupon line, and the
/// total under the merchant's name. Countries it does not serve and coupon codes are configurable
/// (the REPL's `merchant` commands); answers are given at once, or held for ``releaseHeldAnswer()``.
public final class SimulatedMerchant: WalletPaymentMerchant {
    /// A coupon's effect.
    public enum Coupon: Sendable, Equatable {
        /// A percentage off the goods (10 for 10 %), rounded half up to the currency's fraction digits.
        case percentOff(Decimal)
        /// A fixed amount off the goods (never below zero).
        case amountOff(Decimal)
        /// Known but expired.
        case expired
        /// Known to be invalid (the same as an unknown code).
        case invalid
    }

    private struct State {
        var coupons: [String: Coupon] = [:]
        var unserviceable: Set<String> = []
        var method: ShippingMethod?
        var coupon: (code: String, effect: Coupon)?
        var holdsAnswers = false
        var held: (@Sendable () -> Void)?
    }

    /// The merchant's name (the total's label).
    public let name: String
    /// The goods lines (not shipping, coupon or total).
    public let goods: [PaymentSummaryItem]
    /// The currency (for rounding).
    public let currencyCode: String
    /// The coupon line's label for a code (`Coupon SAVE10` unless the merchant words it in the buyer's
    /// language); called on any thread.
    public let couponLabel: @Sendable (String) -> String
    private let state = Mutex(State())

    /// A merchant selling `goods` in `currencyCode`, shipping with `initialMethod` until the buyer picks one;
    /// `couponLabel` words the coupon line for a code.
    public init(
        name: String, goods: [PaymentSummaryItem], currencyCode: String, initialMethod: ShippingMethod? = nil,
        couponLabel: @escaping @Sendable (String) -> String = { "Coupon \($0)" }
    ) {
        self.name = name
        self.goods = goods
        self.currencyCode = currencyCode
        self.couponLabel = couponLabel
        state.withLock { $0.method = initialMethod }
    }

    /// Adds or replaces a coupon code.
    public func setCoupon(_ code: String, _ coupon: Coupon) { state.withLock { $0.coupons[code] = coupon } }
    /// Stops shipping to `countryCode`.
    public func setUnserviceable(_ countryCode: String) { state.withLock { _ = $0.unserviceable.insert(countryCode) } }
    /// With `true`, each answer waits for ``releaseHeldAnswer()`` (the REPL's `merchant answer manual`).
    public func setHoldsAnswers(_ holds: Bool) { state.withLock { $0.holdsAnswers = holds } }
    /// Gives the held answer, if any; returns whether there was one.
    @discardableResult
    public func releaseHeldAnswer() -> Bool {
        let held = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state.held = nil }
            return state.held
        }
        held?()
        return held != nil
    }

    /// The lines for the current method and coupon, total last.
    public var summaryItems: [PaymentSummaryItem] { state.withLock { items(method: $0.method, coupon: $0.coupon) } }

    /// The sheet's lines: goods, shipping (when it costs), coupon discount, total.
    func items(method: ShippingMethod?, coupon: (code: String, effect: Coupon)?) -> [PaymentSummaryItem] {
        let subtotal = goods.reduce(Decimal(0)) { $0 + $1.amount }
        var lines = goods
        var total = subtotal
        if let method, method.amount != 0 {
            lines.append(PaymentSummaryItem(label: method.label, amount: method.amount))
            total += method.amount
        }
        if let coupon {
            let off = min(discount(coupon.effect, on: subtotal), subtotal)
            if off > 0 {
                lines.append(PaymentSummaryItem(label: couponLabel(coupon.code), amount: -off))
                total -= off
            }
        }
        lines.append(PaymentSummaryItem(label: name, amount: total))
        return lines
    }

    private func discount(_ coupon: Coupon, on subtotal: Decimal) -> Decimal {
        switch coupon {
        case .percentOff(let percent):
            var raw = subtotal * percent / 100
            var rounded = Decimal()
            NSDecimalRound(&rounded, &raw, CurrencyExponent.of(currencyCode) ?? 2, .plain)
            return rounded
        case .amountOff(let amount): return amount
        case .expired, .invalid: return 0
        }
    }

    /// The sheet's selection as the controller holds it, which moves only with the price: the method
    /// selected and the coupon applied. Pricing from it (not from the last change the merchant was told
    /// of) keeps a refused update from leaving the merchant's idea of the order behind the sheet's.
    private func sheetSelection(
        _ controller: PaymentAuthorizationController, _ state: State
    ) -> (ShippingMethod?, (code: String, effect: Coupon)?) {
        let sheet = controller.sheet
        let method = controller.shippingMethods.first { $0.identifier == sheet.selectedShippingMethod }
        let coupon = sheet.couponCode.flatMap { code in state.coupons[code].map { (code: code, effect: $0) } }
        return (method, coupon)
    }

    /// Refuses an unserviceable country; otherwise the request's methods and the current items.
    public func shippingContactChanged(
        _ contact: Contact, controller: PaymentAuthorizationController,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
    ) {
        let update = state.withLock { state -> PaymentRequestUpdate in
            (state.method, state.coupon) = sheetSelection(controller, state)
            let items = items(method: state.method, coupon: state.coupon)
            if let country = contact.countryCode, state.unserviceable.contains(country) {
                return PaymentRequestUpdate(
                    errors: [PaymentRequestError.shippingAddressUnserviceable], paymentSummaryItems: items)
            }
            return PaymentRequestUpdate(
                paymentSummaryItems: items, shippingMethods: controller.paymentRequest.shippingMethods)
        }
        answer { handler(update) }
    }

    /// Prices the method.
    public func shippingMethodChanged(
        _ method: ShippingMethod, controller: PaymentAuthorizationController,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void
    ) {
        let update = state.withLock { state -> PaymentRequestUpdate in
            state.coupon = sheetSelection(controller, state).1
            state.method = method
            return PaymentRequestUpdate(paymentSummaryItems: items(method: method, coupon: state.coupon))
        }
        answer { handler(update) }
    }

    /// Applies a known coupon; an expired or unknown one is an error and changes nothing.
    public func couponCodeChanged(
        _ code: String, controller: PaymentAuthorizationController,
        handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void
    ) {
        let update = state.withLock { state -> PaymentRequestUpdate in
            (state.method, state.coupon) = sheetSelection(controller, state)
            switch state.coupons[code] {
            case .expired?:
                return PaymentRequestUpdate(
                    errors: [PaymentRequestError.couponCodeExpired],
                    paymentSummaryItems: items(method: state.method, coupon: state.coupon))
            case .invalid?, nil:
                return PaymentRequestUpdate(
                    errors: [PaymentRequestError.couponCodeInvalid],
                    paymentSummaryItems: items(method: state.method, coupon: state.coupon))
            case let effect?:
                state.coupon = (code, effect)
                return PaymentRequestUpdate(paymentSummaryItems: items(method: state.method, coupon: state.coupon))
            }
        }
        answer { handler(update) }
    }

    private func answer(_ give: @escaping @Sendable () -> Void) {
        let hold = state.withLock { state -> Bool in
            if state.holdsAnswers { state.held = give }
            return state.holdsAnswers
        }
        if !hold { give() }
    }
}
