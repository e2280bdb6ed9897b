import Foundation
import XCTest

@testable import PaymentAuthorization

/// Seed 004 statements that no other suite pins on their own (the README's P1–P30 map points here).
final class SeedStatementTests: XCTestCase {
    /// P13: `didFinish` is required; a delegate without it does not compile.
    func testP13DidFinishIsRequired() throws {
        let output = try DelegateCompileTests.typecheck(
            DelegateCompileTests.header + """
                final class NoFinish: PaymentAuthorizationControllerDelegate {
                    func paymentAuthorizationController(
                        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
                        handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
                    ) { handler(PaymentAuthorizationResult(status: .success)) }
                }

                """)
        XCTAssertTrue(output.contains("error: type 'NoFinish' does not conform"), output)
        XCTAssertTrue(output.contains("paymentAuthorizationControllerDidFinish"), output)
    }

    /// P18: the method passed to `didSelectShippingMethod` is one of the request's; another is refused
    /// before any delegate call.
    func testP18OnlyARequestsMethodCanBeSelected() {
        let h = Harness()
        h.present()
        XCTAssertEqual(h.act(.selectShippingMethod("overnight")), .refused(.noShippingMethod("overnight")))
        XCTAssertFalse(h.delegate.calls.contains { $0.hasPrefix("didSelectShippingMethod") })
    }

    /// P21: with no address selected, the prefilled one is the payment's (so it is the one to price).
    func testP21ThePrefilledAddressIsUsedWhenNoneWasSelected() {
        var request = Fixtures.request()
        request.shippingContact = Fixtures.home
        let h = Harness(request: request)
        h.present()
        XCTAssertEqual(h.act(.authorize), .accepted)
        let payment = h.delegate.state.withLock { $0.paymentsSeen.first }
        XCTAssertEqual(payment?.shippingContact?.street, "Brivibas iela 1")
        XCTAssertEqual(payment?.shippingContact?.countryCode, "LV")
        XCTAssertNil(payment?.shippingContact?.emailAddress, "only the requested fields")
    }

    /// P26: the methods an address update returns replace the request's (the selection moves to the
    /// first when the selected one is gone).
    func testP26AnAddressUpdatesMethodsReplaceTheRequests() {
        let h = Harness()
        let pickup = ShippingMethod(identifier: "pickup", label: "Pick-up", amount: 0)
        h.delegate.set {
            $0.update = { controller in
                PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems, shippingMethods: [pickup])
            }
        }
        h.present()
        h.act(.selectContact(0))
        XCTAssertEqual(h.controller.shippingMethods, [pickup])
        XCTAssertEqual(h.sheet.current?.selectedShippingMethod, "pickup")
    }
}
