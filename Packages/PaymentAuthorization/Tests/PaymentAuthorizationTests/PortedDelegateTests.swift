import Foundation
import XCTest

@testable import PaymentAuthorization

// The README's "after" port of a typical iOS `PKPaymentAuthorizationControllerDelegate` (shipping, a
// coupon, a backend call), compiled here twice: as an `@MainActor` class and as a plain class (which
// conforming to the main-actor protocol makes main-actor isolated). Keep the README's text in step.

/// The app's backend: charges an order, answers after a suspension point.
actor Backend {
    private(set) var charged: [Decimal] = []
    func charge(_ total: Decimal, shipTo contact: Contact?) async -> Bool {
        charged.append(total)
        return contact?.countryCode == "LV"
    }
}

// README-BEGIN
@MainActor
final class CheckoutCoordinator: MainActorPaymentAuthorizationControllerDelegate {
    private let backend: Backend
    private var shipping = Decimal(0)
    private var discount = Decimal(0)
    private(set) var paid = false
    private(set) var finished = false

    init(backend: Backend) { self.backend = backend }

    private var items: [PaymentSummaryItem] {
        var items = [PaymentSummaryItem(label: "Book", amount: Decimal(string: "12.50")!)]
        if shipping != 0 { items.append(PaymentSummaryItem(label: "Shipping", amount: shipping)) }
        if discount != 0 { items.append(PaymentSummaryItem(label: "Coupon", amount: -discount)) }
        items.append(PaymentSummaryItem(label: "Example shop", amount: Decimal(string: "12.50")! + shipping - discount))
        return items
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod
    ) async -> PaymentRequestShippingMethodUpdate {
        shipping = shippingMethod.amount
        return PaymentRequestShippingMethodUpdate(paymentSummaryItems: items)
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String
    ) async -> PaymentRequestCouponCodeUpdate {
        guard couponCode == "SAVE1" else {
            return PaymentRequestCouponCodeUpdate(
                errors: [PaymentRequestError.couponCodeInvalid], paymentSummaryItems: items)
        }
        discount = 1
        return PaymentRequestCouponCodeUpdate(errors: nil, paymentSummaryItems: items)
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment
    ) async -> PaymentAuthorizationResult {
        paid = await backend.charge(payment.total, shipTo: payment.shippingContact)
        return PaymentAuthorizationResult(status: paid ? .success : .failure, errors: nil)
    }

    func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
        finished = true
        controller.dismiss()
    }
}
// README-END

/// The same coordinator without `@MainActor` written on it.
final class PlainCheckoutCoordinator: MainActorPaymentAuthorizationControllerDelegate {
    private let backend: Backend
    private var shipping = Decimal(0)
    private(set) var paid = false
    private(set) var finished = false

    init(backend: Backend) { self.backend = backend }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod
    ) async -> PaymentRequestShippingMethodUpdate {
        shipping = shippingMethod.amount
        let total = Decimal(string: "12.50")! + shipping
        return PaymentRequestShippingMethodUpdate(paymentSummaryItems: [
            PaymentSummaryItem(label: "Book", amount: Decimal(string: "12.50")!),
            PaymentSummaryItem(label: "Shipping", amount: shipping),
            PaymentSummaryItem(label: "Example shop", amount: total),
        ])
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment
    ) async -> PaymentAuthorizationResult {
        paid = await backend.charge(payment.total, shipTo: payment.shippingContact)
        return PaymentAuthorizationResult(status: paid ? .success : .failure, errors: nil)
    }

    func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
        finished = true
        controller.dismiss()
    }
}

/// Issue 21 Why "Swift 6 porting friction": before the change the delegate protocol required `Sendable`
/// and had no `async` forms, so neither coordinator compiled (nor `errors: nil`, nor `.masterCard`).
final class PortedDelegateTests: XCTestCase {
    /// Drains the harness's queue and lets the main actor run until `done` or a bounded number of turns.
    @MainActor
    private func run(_ h: Harness, until done: @MainActor () async -> Bool) async {
        for _ in 0..<2000 {
            h.callbacks.drain()
            if await done() { return }
            try? await Task.sleep(nanoseconds: 500_000)
        }
    }

    @MainActor
    func testTheMainActorCoordinatorFromTheReadmePays() async {
        var request = Fixtures.request()
        request.supportedNetworks = [.visa, .masterCard]
        let h = Harness(request: request)
        let backend = Backend()
        let coordinator = CheckoutCoordinator(backend: backend)
        h.controller.mainActorDelegate = coordinator
        h.present()
        h.act(.selectContact(0))
        await run(h) { h.sheet.current?.state == .ready }
        h.act(.selectShippingMethod("express"))
        await run(h) { h.sheet.current?.total == Decimal(string: "17.49") }
        XCTAssertEqual(h.sheet.current?.total, Decimal(string: "17.49"), "12.50 + 4.99")
        h.act(.enterCouponCode("SAVE1"))
        await run(h) { h.sheet.current?.total == Decimal(string: "16.49") }
        XCTAssertEqual(h.sheet.current?.total, Decimal(string: "16.49"), "12.50 + 4.99 - 1")
        XCTAssertEqual(h.act(.authorize), .accepted)
        await run(h) { coordinator.finished && !h.sheet.isPresenting }
        XCTAssertTrue(coordinator.paid)
        XCTAssertTrue(coordinator.finished)
        XCTAssertEqual(h.sheet.statusesShown, [.success])
        let charged = await backend.charged
        XCTAssertEqual(charged, [Decimal(string: "16.49")!])
    }

    @MainActor
    func testThePlainClassCoordinatorPays() async {
        let h = Harness()
        let backend = Backend()
        let coordinator = PlainCheckoutCoordinator(backend: backend)
        h.controller.mainActorDelegate = coordinator
        h.present()
        h.act(.selectContact(0))
        await run(h) { h.sheet.current?.state == .ready }
        h.act(.selectShippingMethod("express"))
        await run(h) { h.sheet.current?.total == Decimal(string: "17.49") }
        XCTAssertEqual(h.act(.authorize), .accepted)
        await run(h) { coordinator.finished && !h.sheet.isPresenting }
        XCTAssertTrue(coordinator.paid)
        XCTAssertEqual(h.sheet.statusesShown, [.success])
        let charged = await backend.charged
        XCTAssertEqual(charged, [Decimal(string: "17.49")!])
    }
}
