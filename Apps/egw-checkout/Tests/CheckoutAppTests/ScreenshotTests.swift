import Foundation
import PaymentUITesting
import XCTest

@testable import CheckoutApp

/// The README's pictures (`make screenshots` sets `EGW_SCREENSHOTS` to docs/screenshots), taken by playing
/// a buyer on the real window: the empty card form, a half-typed Amex, an expired card with its error,
/// the wallet sheet with shipping and a coupon, and a result. Without the variable it is a plain test of
/// the same steps.
final class ScreenshotTests: XCTestCase {
    func testTheREADMEsScreenshots() throws {
        try MainActor.assumeIsolated {
            let folder = ProcessInfo.processInfo.environment["EGW_SCREENSHOTS"]
            if let folder { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            @MainActor func shoot(_ window: UnsafeMutableRawPointer?, _ name: String) throws {
                UITest.spin(timeout: 0.5)  // drawn
                guard let folder else { return }
                XCTAssertTrue(UITest.savePNG(of: try XCTUnwrap(window), to: "\(folder)/\(name).png"), name)
            }
            let shop = try CheckoutWindow(options: CheckoutOptions())
            shop.present()
            try shoot(shop.window, "card-form-empty")

            UITest.type("37828224", into: UITest.pointer(shop.number.widgetReference))
            XCTAssertEqual(UITest.text(of: UITest.pointer(shop.number.widgetReference)), "3782 8224")
            XCTAssertEqual(shop.securityCode.maximumLength, 4, "the code follows the Amex")
            try shoot(shop.window, "card-form-half-typed-amex")

            shop.number.clear()
            UITest.type("Jane Doe", into: try entry(shop, "cardholder-name"))
            UITest.type("4111111111111111", into: UITest.pointer(shop.number.widgetReference))
            UITest.type("0120", into: UITest.pointer(shop.expiry.widgetReference))
            UITest.type("123", into: UITest.pointer(shop.securityCode.widgetReference))
            click(shop, "pay-card")
            UITest.spin { !shop.result.isEmpty }
            XCTAssertEqual(shop.expiry.validationMessage, "The card has expired.")
            try shoot(shop.window, "card-form-invalid-expiry")

            shop.clearCardForm()
            click(shop, "pay-wallet")
            UITest.spin { shop.sheet != nil }
            let sheet = try XCTUnwrap(shop.sheet)
            try chooseContactExpressAndSAVE10(on: sheet)
            try shoot(sheet.windowReference.map(UITest.pointer), "sheet-shipping-coupon")

            let finished = shop.finished  // the refused card counted as one
            UITest.activate(try XCTUnwrap(UITest.find("pay", in: sheet.windowReference)))
            UITest.spin(timeout: 30) { shop.finished > finished }
            XCTAssertEqual(shop.result, "Paid €23.44 with the wallet.")
            try shoot(shop.window, "result-wallet-paid")
            UITest.destroy(window: shop.window)
        }
    }
}
