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

/// On the shown sheet: the first contact, express shipping, and the coupon SAVE10 (typed, then Enter),
/// each time waiting until the sheet is ready again.
@MainActor
func chooseContactExpressAndSAVE10(on sheet: PaymentSheetWindow) throws {
    UITest.spin { sheet.sheet?.state == .ready }
    for name in ["contact-0", "method-express"] {
        let before = sheet.sheet
        UITest.activate(try XCTUnwrap(UITest.find(name, in: sheet.window), name))
        UITest.spin {
            sheet.sheet?.state == .ready
                && (sheet.sheet?.selectedContact != before?.selectedContact
                    || sheet.sheet?.selectedShippingMethod != before?.selectedShippingMethod)
        }
    }
    let coupon = try XCTUnwrap(UITest.find("coupon", in: sheet.window))
    UITest.type("SAVE10", into: coupon)
    UITest.pressEnter(in: coupon)
    UITest.spin { sheet.sheet?.couponCode == "SAVE10" && sheet.sheet?.state == .ready }
}
