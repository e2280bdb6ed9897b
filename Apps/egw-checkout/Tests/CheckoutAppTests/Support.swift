import Foundation
import PaymentSheetWindow
import PaymentUITesting
import XCTest

@testable import CheckoutApp

@MainActor
func click(_ shop: CheckoutWindow, _ name: String) {
    guard let widget = UITest.find(name, in: shop.window) else { return XCTFail("no \(name)") }
    UITest.activate(widget)
}

@MainActor
func text(_ shop: CheckoutWindow, _ name: String) -> String? {
    UITest.find(name, in: shop.window).map { UITest.text(of: $0) }
}

@MainActor
func entry(_ shop: CheckoutWindow, _ name: String) throws -> UnsafeMutableRawPointer {
    try XCTUnwrap(UITest.find(name, in: shop.window), name)
}

/// Shows the shop, types the sandbox's challenged Mastercard (5555 5555 5555 4444, GATEWAY.md's test
/// cards) with its name, expiry and code as a buyer would, and presses "Pay by card".
@MainActor
func payWithTheChallengedCard(_ shop: CheckoutWindow) throws {
    shop.present()
    UITest.spin(timeout: 0.2)
    UITest.type("Jane Doe", into: try entry(shop, "cardholder-name"))
    UITest.type("5555555555554444", into: UITest.pointer(shop.number.widgetReference))
    UITest.type("1235", into: UITest.pointer(shop.expiry.widgetReference))
    UITest.type("987", into: UITest.pointer(shop.securityCode.widgetReference))
    click(shop, "pay-card")
}

/// On the shown sheet: the first contact, express shipping, and the coupon SAVE10 (typed, then Enter),
/// each time waiting until the sheet is ready again.
@MainActor
func chooseContactExpressAndSAVE10(on sheet: PaymentSheetWindow) throws {
    UITest.spin { sheet.sheet?.state == .ready }
    for name in ["contact-0", "method-express"] {
        let before = sheet.sheet
        UITest.activate(try XCTUnwrap(UITest.find(name, in: sheet.windowReference), name))
        UITest.spin {
            sheet.sheet?.state == .ready
                && (sheet.sheet?.selectedContact != before?.selectedContact
                    || sheet.sheet?.selectedShippingMethod != before?.selectedShippingMethod)
        }
    }
    let coupon = try XCTUnwrap(UITest.find("coupon", in: sheet.windowReference))
    UITest.type("SAVE10", into: coupon)
    UITest.pressEnter(in: coupon)
    UITest.spin { sheet.sheet?.couponCode == "SAVE10" && sheet.sheet?.state == .ready }
}
