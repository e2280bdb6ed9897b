import CGtk4
import CPaymentUIGtk
import CPaymentUITestHooks
import CardFields
import CardValidation
import Foundation
import GLibMainQueue
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
                // Takes the focus, offers no PRIMARY.
                let button = GObjectReference(retaining: UnsafeMutableRawPointer(egwui_button_new("Pay")!))
                let harness = try Harness([
                    number.widgetReference, expiry.widgetReference, code.widgetReference, button,
                ])
                defer { harness.close() }
                let numberWidget = Harness.gtk(number.widgetReference)
                let codeWidget = Harness.gtk(code.widgetReference)
                type(Self.number, into: number.widgetReference)
                type("1230", into: expiry.widgetReference)
                type(Self.code, into: code.widgetReference)
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

                // Issue 34: even while the buyer holds a selection in the focused number entry, GTK's offer of
                // it as PRIMARY is taken back (it was offered until the focus left); the selection stays.
                egwui_widget_grab_focus(numberWidget)
                egwui_editable_select(numberWidget, 0, -1)
                harness.spin(0.05)
                // (Compared with == so that a failure message, written to the captured output, shows no digits.)
                XCTAssertTrue(clipboard(numberWidget, primary: true) == nil, "no PRIMARY while selected")
                XCTAssertEqual(
                    selectionLength(numberWidget), shown(number.widgetReference).count, "the selection stays")
                egwui_widget_grab_focus(Harness.gtk(button))
                harness.spin(0.05)
                XCTAssertTrue(clipboard(numberWidget, primary: true) == nil, "PRIMARY after the focus left")
                // Another entry's offer is left alone: the expiry selects itself on focus and offers "12/30".
                egwui_widget_grab_focus(Harness.gtk(expiry.widgetReference))
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

/// Issue 34: focusing and selecting in the card-number and security-code entries leaves X's PRIMARY
/// selection owned by nobody, as another X client (`xclip -o -selection primary`) reads it; the expiry's
/// offer, read the same way, shows the reading works. And every entry carries `GTK_INPUT_HINT_PRIVATE`,
/// no spell-check and no emoji completion, read back over GTK's API.
final class CardEntriesGiveNothingToTheDesktopTests: XCTestCase {
    static let xclip = "/usr/bin/xclip"

    func testPrimaryIsOwnedByNobodyWhileTheNumberIsSelected() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.xclip), "xclip (make deps) is missing")
        try onMain {
            let number = CardNumberEntry()
            let expiry = CardExpiryEntry()
            let code = CardSecurityCodeEntry()
            let harness = try Harness([number.widgetReference, expiry.widgetReference, code.widgetReference])
            defer { harness.close() }
            type("4111111111111111", into: number.widgetReference)
            type("1230", into: expiry.widgetReference)
            type("737", into: code.widgetReference)
            // The expiry selects itself on focus and offers "12/30": another client reads it.
            egwui_widget_grab_focus(Harness.gtk(expiry.widgetReference))
            harness.spin(0.05)
            XCTAssertEqual(try readPrimary(harness), "12/30", "another X client reads PRIMARY")
            XCTAssertNotEqual(try readPrimary(harness, target: "TARGETS"), "", "an owner lists its targets")
            for widget in [number.widgetReference, code.widgetReference] {
                egwui_widget_grab_focus(Harness.gtk(widget))
                egwui_editable_select(Harness.gtk(widget), 0, -1)
                harness.spin(0.05)
                let read = try readPrimary(harness)
                // (== so that a failure message shows no digits.)
                XCTAssertTrue(read == "", "PRIMARY has an owner that answers with \(read.count) characters")
                // No owner at all: nobody even answers which targets it has.
                XCTAssertEqual(try readPrimary(harness, target: "TARGETS"), "", "PRIMARY has an owner")
                XCTAssertTrue(selectionLength(Harness.gtk(widget)) > 0, "the buyer's selection stays")
            }
            XCTAssertEqual(number.digits, "4111111111111111")
        }
    }

    func testEveryEntryIsPrivateForInputMethods() throws {
        try onMain {
            let number = CardNumberEntry()
            let expiry = CardExpiryEntry()
            let code = CardSecurityCodeEntry()
            let harness = try Harness([number.widgetReference, expiry.widgetReference, code.widgetReference])
            defer { harness.close() }
            for (name, widget) in [
                ("number", number.widgetReference), ("expiry", expiry.widgetReference), ("code", code.widgetReference),
            ] {
                let hints = egwui_entry_input_hints(Harness.gtk(widget)).rawValue
                for hint in [GTK_INPUT_HINT_PRIVATE, GTK_INPUT_HINT_NO_SPELLCHECK, GTK_INPUT_HINT_NO_EMOJI] {
                    XCTAssertNotEqual(hints & hint.rawValue, 0, "\(name) lacks hint \(hint.rawValue)")
                }
                XCTAssertEqual(hints & GTK_INPUT_HINT_SPELLCHECK.rawValue, 0, name)
                XCTAssertEqual(hints & GTK_INPUT_HINT_EMOJI.rawValue, 0, name)
                XCTAssertEqual(hints & GTK_INPUT_HINT_WORD_COMPLETION.rawValue, 0, name)
            }
        }
    }
}

/// What `xclip -o -selection primary [-t target]` prints on this display ("" when PRIMARY has no owner),
/// the GTK loop spinning meanwhile so that this process can answer if it owns the selection.
@MainActor
private func readPrimary(_ harness: Harness, target: String? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CardEntriesGiveNothingToTheDesktopTests.xclip)
    process.arguments = ["-o", "-selection", "primary"] + (target.map { ["-t", $0] } ?? [])
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    for _ in 0..<500 where process.isRunning { harness.spin(0.01) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
}

/// How many characters are selected in `widget` (0: none).
@MainActor
private func selectionLength(_ widget: UnsafeMutablePointer<GtkWidget>) -> Int {
    var start: Int32 = 0
    var end: Int32 = 0
    guard gtk_editable_get_selection_bounds(OpaquePointer(widget), &start, &end) != 0 else { return 0 }
    return Int(end - start)
}

@MainActor
private func clipboard(_ widget: UnsafeMutablePointer<GtkWidget>, primary: Bool) -> String? {
    guard let text = egwui_clipboard_read(widget, primary ? 1 : 0) else { return nil }
    defer { g_free(text) }
    return String(cString: text)
}
