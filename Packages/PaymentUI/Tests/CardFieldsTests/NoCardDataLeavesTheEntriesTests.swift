import CGtk4
import CPaymentUIGtk
import CardFields
import CardValidation
import Foundation
import PaymentUITesting
import XCTest

/// Card data never leaves the entries except into `CardInput`: not onto the clipboard (copy, cut), not
/// onto the PRIMARY selection once the buyer leaves the field, not into an undo history after `clear()`,
/// and not into anything the process writes (its stdout and stderr, GTK's warnings among them, and the
/// entries' descriptions and dumps), which this test captures and scans.
final class NoCardDataLeavesTheEntriesTests: XCTestCase {
    static let number = "378282246310005"
    static let code = "9173"

    func testClipboardPrimaryUndoAndOutput() throws {
        let captured = try OutputCapture()
        let ran = Result {
            try onMain {
                let number = CardNumberEntry()
                let expiry = CardExpiryEntry()
                let code = CardSecurityCodeEntry()
                number.onBrandChange = { code.brand = $0 }
                let button = UnsafeMutableRawPointer(egwui_button_new("Pay")!)  // takes the focus, offers no PRIMARY
                let harness = try Harness([number.widget, expiry.widget, code.widget, button])
                defer { harness.close() }
                let numberWidget = Harness.gtk(number.widget)
                let codeWidget = Harness.gtk(code.widget)
                type(Self.number, into: number.widget)
                type("1230", into: expiry.widget)
                type(Self.code, into: code.widget)
                print(number, expiry, code)
                dump(number)
                dump(code)

                egwui_clipboard_set(numberWidget, "sentinel")
                harness.spin(0.05)
                for widget in [numberWidget, codeWidget] {
                    egwui_widget_grab_focus(widget)
                    egwui_editable_select(widget, 0, -1)
                    egwui_key_copy(widget)
                    egwui_key_cut(widget)
                    harness.spin(0.05)
                    XCTAssertEqual(clipboard(numberWidget, primary: false), "sentinel", "copy and cut are refused")
                }
                XCTAssertEqual(number.digits, Self.number, "cut removed nothing")
                XCTAssertEqual(code.digits, Self.code)

                // While the buyer holds a selection in the focused number entry, GTK offers it as PRIMARY
                // (that is what makes the check below able to fail); once the focus leaves, it is taken back.
                egwui_widget_grab_focus(numberWidget)
                egwui_editable_select(numberWidget, 0, -1)
                harness.spin(0.05)
                // (Compared with == so that a failure message, written to the captured output, shows no digits.)
                XCTAssertTrue(clipboard(numberWidget, primary: true) == "3782 822463 10005", "PRIMARY while selected")
                egwui_widget_grab_focus(Harness.gtk(button))
                harness.spin(0.05)
                XCTAssertTrue(clipboard(numberWidget, primary: true) == nil, "PRIMARY after the focus left")
                // Another entry's offer is left alone: the expiry selects itself on focus and offers "12/30".
                egwui_widget_grab_focus(Harness.gtk(expiry.widget))
                harness.spin(0.05)
                XCTAssertEqual(clipboard(numberWidget, primary: true), "12/30")
                egwui_widget_grab_focus(Harness.gtk(button))
                harness.spin(0.05)
                XCTAssertEqual(clipboard(numberWidget, primary: true), "12/30", "the expiry's offer stays")

                for (widget, clear) in [(numberWidget, number.clear), (codeWidget, code.clear)] {
                    clear()
                    XCTAssertEqual(egwui_editable_undo_enabled(widget), 0)
                    egwui_text_undo(widget)
                    harness.spin(0.02)
                    XCTAssertEqual(String(cString: egwui_editable_text(widget)), "", "nothing to undo back to")
                }
                XCTAssertEqual(number.digits, "")
                XCTAssertEqual(code.digits, "")
            }
        }
        let output = try captured.finish()  // before anything can throw: the output goes back to XCTest
        try ran.get()
        XCTAssertFalse(output.isEmpty, "the capture works: the descriptions above were printed")
        for secret in [Self.number, "3782 822463 10005", "3782822463", Self.code] {
            XCTAssertFalse(output.contains(secret), "the process wrote \(secret.count) secret digits")
        }
    }
}

@MainActor
private func clipboard(_ widget: UnsafeMutablePointer<GtkWidget>, primary: Bool) -> String? {
    guard let text = egwui_clipboard_read(widget, primary ? 1 : 0) else { return nil }
    defer { g_free(text) }
    return String(cString: text)
}
