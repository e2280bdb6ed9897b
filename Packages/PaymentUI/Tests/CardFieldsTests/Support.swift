import CGtk4
import CPaymentUIGtk
import CPaymentUITestHooks
import CardFields
import Foundation
import GLibMainQueue
import PaymentUITesting
import XCTest

/// The entries in a real window under the test's display (Xvfb in `make test`), and the keystrokes GTK's
/// key bindings emit on an entry's text: `insert-at-cursor` (a typed key), `backspace`,
/// `delete-from-cursor`, `paste-clipboard`, `copy-clipboard`, `cut-clipboard`.
@MainActor
final class Harness {
    let window: UnsafeMutablePointer<GtkWidget>

    init(_ widgets: [GObjectReference]) throws {
        guard UITest.initialize() else { throw XCTSkip("no display") }
        window = egwui_window_new("CardFieldsTests", nil, 0)
        let box = egwui_box_new(1, 6)
        egwui_widget_set_margins(box, 12)
        for widget in widgets { egwui_box_append(box, Self.gtk(widget)) }
        egwui_window_set_child(window, box)
        egwui_window_present(window)
        spin(0.2)
    }

    /// The entry's `GtkWidget *` (valid while the entry, or the reference, lives).
    static func gtk(_ widget: GObjectReference) -> UnsafeMutablePointer<GtkWidget> {
        UITest.pointer(widget).assumingMemoryBound(to: GtkWidget.self)
    }

    func close() {
        egwui_window_destroy(window)
        spin(0.05)
    }

    /// Iterates GLib's main context for `seconds`.
    func spin(_ seconds: Double) {
        UITest.spin(timeout: seconds)
    }
}

/// One key at a time, as the buyer types.
@MainActor
func type(_ text: String, into widget: GObjectReference) {
    for character in text { egwui_key_insert(Harness.gtk(widget), String(character)) }
}

@MainActor
func shown(_ widget: GObjectReference) -> String {
    String(cString: egwui_editable_text(Harness.gtk(widget)))
}

@MainActor
func position(_ widget: GObjectReference) -> Int {
    Int(egwui_editable_position(Harness.gtk(widget)))
}

@MainActor
func moveCaret(_ widget: GObjectReference, to offset: Int) {
    egwui_editable_set_position(Harness.gtk(widget), Int32(offset))
}

/// Puts `text` on the clipboard and pastes it with the entry's paste-clipboard binding (Ctrl+V), which
/// reads the clipboard asynchronously; waits until the entry changed or 2 s passed.
@MainActor
func paste(_ text: String, into widget: GObjectReference, harness: Harness) {
    egwui_clipboard_set(Harness.gtk(widget), text)
    let before = shown(widget)
    egwui_key_paste(Harness.gtk(widget))
    UITest.spin(timeout: 2) { shown(widget) != before }  // the clipboard answers on a later iteration
}

/// GTK's accessible test API: nil when the widget's state/property has the value, else GTK's message.
func accessibleMismatch(_ message: UnsafeMutablePointer<CChar>?) -> String? {
    guard let message else { return nil }
    defer { g_free(message) }
    return String(cString: message)
}

/// Runs a test body on the main actor: XCTest on Linux runs every test on the main thread, but cannot
/// call a `@MainActor` test method itself.
func onMain<T: Sendable>(_ body: @MainActor () throws -> T) throws -> T {
    try MainActor.assumeIsolated(body)
}
