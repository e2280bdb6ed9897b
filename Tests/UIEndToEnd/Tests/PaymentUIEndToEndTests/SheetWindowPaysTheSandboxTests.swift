import Foundation
import GatewaySandbox
import PaymentAuthorization
import PaymentFlow
import PaymentSheetWindow
import PaymentUITesting
import Synchronization
import XCTest

/// The sheet window paying through `WalletPaymentContext` against the sandbox over loopback HTTP, the
/// buyer using the window's own controls; GTK's main loop is the only loop that runs (the SDK's results
/// reach the main queue through the window's GLib source). Totals computed by hand.
final class SheetWindowPaysTheSandboxTests: XCTestCase {
    static let sandbox: Sandbox = {
        do { return try Sandbox(configuration: .init(seed: 22)) } catch { fatalError("sandbox: \(error)") }
    }()

    /// Book 12.50 + express 4.99 - SAVE10 (10 % of 12.50 = 1.25) = 16.24 EUR: the sandbox records 1624.
    func testPaying1624ThroughTheWindowsOwnButtons() throws {
        let capture = try OutputCapture()
        let ran = Result {
            try MainActor.assumeIsolated { () throws -> Outcome in
                let sandbox = Self.sandbox
                var options = PaymentSheetWindow.Options()
                options.statusDuration = 0.2
                let window = PaymentSheetWindow(options: options)
                let merchant = SimulatedMerchant(
                    name: "Example shop", goods: [PaymentSummaryItem(label: "Book", amount: Decimal(string: "12.50")!)],
                    currencyCode: "EUR", initialMethod: Shop.methods[0])
                merchant.setCoupon("SAVE10", .percentOff(10))
                let created = Mutex<[SandboxPayment]>([])
                let context = try XCTUnwrap(
                    WalletPaymentContext(
                        paymentRequest: Shop.request(merchant), sheetPresenter: window, wallet: Shop.wallet(),
                        merchant: merchant, paymentKit: Shop.kit(sandbox), pagePresenter: NoPage()
                    ) { amount, completion in
                        let payment = sandbox.createPayment(amount: amount.minorUnits, currency: amount.currencyCode)
                        created.withLock { $0.append(payment) }
                        completion(
                            .success(
                                CardPaymentRequest(
                                    paymentId: payment.paymentId, verificationKey: payment.verificationKey)))
                    })
                let results = Mutex<[WalletPaymentResult]>([])
                context.present { result in
                    dispatchPrecondition(condition: .onQueue(.main))
                    results.withLock { $0.append(result) }
                }
                UITest.spin(timeout: 15) { window.sheet?.state == .ready }
                try click(window, "contact-0")
                try click(window, "method-express")
                let coupon = try XCTUnwrap(find(window, "coupon"))
                let before = window.sheet?.total
                UITest.type("SAVE10", into: coupon)
                UITest.pressEnter(in: coupon)
                UITest.spin(timeout: 15) { window.sheet?.total != before && window.sheet?.state == .ready }
                XCTAssertEqual(text(window, "total"), "Total, Example shop: €16.24")
                UITest.activate(try XCTUnwrap(find(window, "pay")))
                var status: String?
                UITest.spin(timeout: 30) {
                    if let shown = text(window, "status"), shown == "Payment complete" { status = shown }
                    return !results.withLock { $0.isEmpty }
                }
                UITest.spin(timeout: 0.3)  // anything late (a second result) would arrive now
                return Outcome(
                    results: results.withLock { $0 }, created: created.withLock { $0 }, status: status,
                    windowGone: !window.isPresenting)
            }
        }
        let output = try capture.finish()  // before anything can throw: the output goes back to XCTest
        let outcome = try ran.get()
        XCTAssertEqual(outcome.results.count, 1, "exactly one result")
        let result = try XCTUnwrap(outcome.results.first)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(result.total, Decimal(string: "16.24"))
        XCTAssertEqual(outcome.created.map(\.amount), [1624], "the sandbox payment is for the sheet's total")
        XCTAssertEqual(Self.sandbox.paymentStatus(outcome.created[0].paymentId), "SETTLED")
        XCTAssertEqual(outcome.status, "Payment complete", "the window showed the status")
        XCTAssertTrue(outcome.windowGone, "the window is gone once the result is delivered")
        XCTAssertFalse(output.isEmpty)
        for secret in ["4111111111111111", "4111 1111 1111 1111", "41111111"] {
            XCTAssertFalse(output.contains(secret), "the process wrote card digits")
        }
    }
}

struct Outcome: Sendable {
    let results: [WalletPaymentResult]
    let created: [SandboxPayment]
    let status: String?
    let windowGone: Bool
}
