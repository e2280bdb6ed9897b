internal import CGLibMainQueue

/// Dispatch's main queue inside GLib's main loop: the SDK's one bridge, shared by PaymentUI and
/// WebKitPresenter.
///
/// A GTK app's main thread runs GLib's main loop, and nothing drains `DispatchQueue.main` there by
/// itself, so blocks queued on it (the SDK's results and delegate calls, delivered on `.main` by
/// default, and `@MainActor` work) would never run. ``install()`` attaches a GLib source to the default
/// main context that watches libdispatch's main-queue handle (the eventfd Foundation's run loop
/// watches) and drains the queue whenever it has work: no polling timer.
///
/// Threading: ``install()`` may be called from any thread, any number of times, from any package; the
/// process gets one source. The queue is drained on the thread that iterates the default GLib main
/// context, which must be the main thread (as `gtk_application_run`, `g_main_loop_run` on the default
/// context or `g_main_context_iteration(NULL, ...)` on the main thread do): libdispatch refuses (aborts)
/// a drain of the main queue from any other thread. Call it on that thread before the loop starts, so
/// work queued before the first iteration runs in the first.
public enum GLibMainQueue {
    /// Attaches the source to GLib's default main context, once per process.
    ///
    /// Idempotent and thread-safe: a second call (from this package's users or another's, on any
    /// thread) adds nothing and returns the first call's answer; concurrent first calls wait for one
    /// of them to finish.
    ///
    /// - Returns: whether the source is installed; false only when libdispatch's main-queue handle is
    ///   not available (a libdispatch without run-loop integration), the same on every call.
    @discardableResult
    public static func install() -> Bool {
        egwglib_main_queue_install()
    }

    /// Whether ``install()`` has installed the source (on any thread).
    public static var isInstalled: Bool {
        sourceID != 0
    }

    /// The source's id on the default main context, 0 before ``install()`` succeeded.
    static var sourceID: UInt32 {
        egwglib_main_queue_source_id()
    }
}
