internal import CPaymentUIGtk

/// Dispatch's main queue inside GTK's main loop.
///
/// GTK's main loop owns the main thread, and nothing drains `DispatchQueue.main` there by itself, so
/// the SDK's results (delivered on the main queue) and the sheet controller's calls would never run.
/// ``install()`` adds a GLib source on the default main context that drains the main queue on GTK's
/// thread whenever it has work (the eventfd libdispatch signals, as Foundation's run loop uses it).
///
/// Call it once on the main thread before `g_application_run` / the main loop; calling it again does
/// nothing. ``PaymentSheetWindow`` installs it itself.
///
/// This is PaymentUI's own copy until the SDK has one shared bridge (WebKitPresenter needs the same).
public enum GLibMainQueue {
    /// Installs the source (once per process).
    public static func install() {
        _ = egwui_main_queue_source_install()
    }
}
