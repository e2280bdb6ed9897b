internal import CGTKRuntime

/// An owning reference to a GObject the app made (a `GtkWindow *`, a `GtkBox *`): `g_object_ref` when
/// made, `g_object_unref` when the last Swift reference goes, on the GTK thread (through
/// ``GTKRuntime/perform(_:)``), because the last unref of a widget finalizes it and a widget lives on
/// GTK's thread. So a presenter holding the app's window cannot outlive it with a dangling pointer.
///
/// It is how the SDK's GTK-facing API takes and hands out widgets and windows (a card entry's widget, the
/// sheet's window, a page presenter's host), so no other package's public API takes or returns a raw
/// pointer: an app wraps its own `GtkWindow *` with ``init(retaining:)`` and reaches the SDK's widgets
/// for its own GTK calls with ``withUnsafePointer(_:)``.
///
/// Sendable by hand: GLib's reference counts are atomic, so the reference may be made, held, passed
/// and dropped on any thread; the object itself is used on the GTK thread only.
public final class GObjectReference: @unchecked Sendable {
    /// The object (`GObject *`), for the SDK's GTK code on the GTK thread.
    @_spi(GTK) public let pointer: UnsafeMutableRawPointer

    /// Takes a reference to `object`, a `GObject *` (a widget, a window).
    public init(retaining object: UnsafeMutableRawPointer) {
        egwgtk_object_ref(object)
        pointer = object
    }

    /// Runs `body` with the object (`GObject *`) for the app's own GTK calls, on the GTK thread: packing
    /// a card entry into a box, making a window transient for the sheet's. This reference keeps the
    /// object alive during `body`; a pointer kept beyond it needs a reference of its own (`g_object_ref`,
    /// or a `GObjectReference`).
    public func withUnsafePointer<Result, Failure: Error>(
        _ body: (UnsafeMutableRawPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(pointer) }
    }

    /// Remembers which widget of this window (a `GtkWindow`) has the keyboard focus, weakly, before
    /// its controls turn insensitive: GTK drops the focus of an insensitive widget, and a keyboard or
    /// screen-reader buyer would be left nowhere. Nothing when nothing is focused. GTK thread.
    public func keepFocus() {
        precondition(GTKRuntime.isGTKThread, "keepFocus() runs on the GTK thread")
        egwgtk_focus_keep(pointer)
    }

    /// Gives the widget ``keepFocus()`` remembered the focus back, when the window has none and the
    /// widget is sensitive again; then forgets it. GTK thread.
    public func restoreFocus() {
        precondition(GTKRuntime.isGTKThread, "restoreFocus() runs on the GTK thread")
        egwgtk_focus_restore(pointer)
    }

    deinit {
        let address = UInt(bitPattern: pointer)
        GTKRuntime.perform {
            guard let object = UnsafeMutableRawPointer(bitPattern: address) else { return }
            egwgtk_object_unref(object)
        }
    }
}
