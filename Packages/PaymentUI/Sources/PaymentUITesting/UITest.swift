internal import CGtk4
internal import CPaymentUIGtk
internal import CPaymentUITestHooks
import Foundation
public import GLibMainQueue
internal import PaymentUIDisplay

/// Proof only: the buyer's hands and eyes for tests of PaymentUI and of apps built on it (and the
/// README's screenshots). No shipped product should depend on it.
///
/// Widgets are `GtkWidget *` as raw pointers, as PaymentUI hands them out. Every input goes through the
/// signal GTK's own key bindings and clicks emit, so what a test does is what a keystroke does.
/// Main thread only (GTK's thread).
@MainActor
public enum UITest {
    /// Starts GTK on this thread (GLibMainQueue's GTKRuntime); false without a display.
    public static func initialize() -> Bool { PaymentUIDisplay.start() }

    /// The first widget named `name` (`gtk_widget_set_name`) under `root`, depth first; nil when none.
    public static func find(_ name: String, in root: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let root else { return nil }
        return egwui_find_named(gtk(root), name).map { UnsafeMutableRawPointer($0) }
    }

    /// `gtk_widget_activate`: clicks a button (GtkButton emits `clicked` after a short press, so spin
    /// afterwards), toggles a check button.
    public static func activate(_ widget: UnsafeMutableRawPointer) { egwui_widget_activate(gtk(widget)) }

    /// Types `text` into an entry one key at a time (the text's `insert-at-cursor` binding).
    public static func type(_ text: String, into entry: UnsafeMutableRawPointer) {
        for character in text { egwui_key_insert(gtk(entry), String(character)) }
    }

    /// Enter in an entry (the text's `activate` binding).
    public static func pressEnter(in entry: UnsafeMutableRawPointer) { egwui_key_enter(gtk(entry)) }

    /// The text of a label or an editable.
    public static func text(of widget: UnsafeMutableRawPointer) -> String {
        let widget = gtk(widget)
        return String(cString: textOf(widget))
    }

    private static func textOf(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafePointer<CChar> {
        egwui_widget_is_label(widget) != 0 ? egwui_label_text(widget) : egwui_editable_text(widget)
    }

    /// Iterates GLib's default main context (and nothing else: the main queue runs only through
    /// PaymentUI's GLib source) until `condition` holds or `timeout` seconds passed.
    public static func spin(timeout: Double = 10, until condition: () -> Bool = { false }) {
        let end = Date().addingTimeInterval(timeout)
        while !condition() && Date() < end {
            egwui_iterate()
            usleep(1000)
        }
    }

    /// CLIPBOARD (or PRIMARY) as text, nil when empty.
    public static func clipboard(of widget: UnsafeMutableRawPointer, primary: Bool = false) -> String? {
        guard let text = egwui_clipboard_read(gtk(widget), primary ? 1 : 0) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// Saves what `widget` (a shown window) draws as a PNG; false when it could not.
    public static func savePNG(of widget: UnsafeMutableRawPointer, to path: String) -> Bool {
        egwui_snapshot_png(gtk(widget), path) != 0
    }

    /// `gtk_window_destroy`, then a short spin.
    public static func destroy(window: UnsafeMutableRawPointer) {
        egwui_window_destroy(gtk(window))
        spin(timeout: 0.05)
    }

    // The same, for the widgets and windows PaymentUI hands out as references.

    /// The object `reference` holds, for the raw-pointer helpers above and a test's own GTK calls; valid
    /// while something holds a reference to it.
    public static func pointer(_ reference: GObjectReference) -> UnsafeMutableRawPointer {
        reference.withUnsafePointer { $0 }
    }

    /// ``find(_:in:)`` under a referenced root (a sheet's `windowReference`).
    public static func find(_ name: String, in root: GObjectReference?) -> UnsafeMutableRawPointer? {
        root?.withUnsafePointer { find(name, in: $0) }
    }

    /// ``type(_:into:)`` into a referenced entry (a card entry's `widgetReference`).
    public static func type(_ text: String, into entry: GObjectReference) {
        entry.withUnsafePointer { type(text, into: $0) }
    }

    /// ``text(of:)`` of a referenced widget.
    public static func text(of widget: GObjectReference) -> String {
        widget.withUnsafePointer { text(of: $0) }
    }

    /// ``clipboard(of:primary:)`` of a referenced widget.
    public static func clipboard(of widget: GObjectReference, primary: Bool = false) -> String? {
        widget.withUnsafePointer { clipboard(of: $0, primary: primary) }
    }

    /// ``savePNG(of:to:)`` of a referenced window.
    public static func savePNG(of widget: GObjectReference, to path: String) -> Bool {
        widget.withUnsafePointer { savePNG(of: $0, to: path) }
    }

    private static func gtk(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<GtkWidget> {
        pointer.assumingMemoryBound(to: GtkWidget.self)
    }
}

/// Sends this process's stdout and stderr (GTK's and GLib's messages among them) into a file until
/// ``finish()``, which restores them and returns everything written, for a test to scan for card data.
/// XCTest failure lines written meanwhile are printed again after the restore. Finish it before anything
/// can throw, or the rest of the run's output is lost.
public final class OutputCapture {
    private let path = NSTemporaryDirectory() + "paymentui-output-\(getpid())-\(UUID().uuidString).txt"
    private let savedOut = dup(STDOUT_FILENO)
    private let savedErr = dup(STDERR_FILENO)

    /// Starts capturing (and prints one line, so that an empty capture means a broken one).
    public init() throws {
        fflush(nil)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        dup2(fd, STDOUT_FILENO)
        dup2(fd, STDERR_FILENO)
        close(fd)
        print("output capture started")
    }

    /// Restores stdout and stderr; what was written meanwhile.
    public func finish() throws -> String {
        fflush(nil)
        dup2(savedOut, STDOUT_FILENO)
        dup2(savedErr, STDERR_FILENO)
        close(savedOut)
        close(savedErr)
        defer { unlink(path) }
        let output = try String(contentsOfFile: path, encoding: .utf8)
        for line in output.split(separator: "\n") where line.contains(": error: ") { print(line) }
        return output
    }
}
