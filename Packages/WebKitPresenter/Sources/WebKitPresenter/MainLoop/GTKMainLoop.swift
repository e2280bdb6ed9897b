internal import CWebKitShim
import Dispatch
import Foundation
internal import GLibMainQueue

/// GTK's main thread and Dispatch's main queue, made to meet.
///
/// In a GTK app the main thread runs GLib's main loop, so nothing drains
/// Dispatch's main queue: a `PaymentKit` whose `callbackQueue` is `.main`
/// (the default) would never deliver its result. ``start()`` initialises GTK
/// on the calling thread and installs GLibMainQueue's bridge (a GLib source
/// on libdispatch's main-queue handle, the eventfd Foundation's run loop
/// watches), so every block queued on `DispatchQueue.main` runs inside GLib's
/// loop, on the GTK thread, as soon as it is queued: no polling timer. The
/// bridge is the one PaymentUI installs too; the process has one source.
///
/// ```swift
/// try GTKMainLoop.start()          // on the main thread, before any window
/// let app = gtk_application_new(...) // or your own loop: g_main_loop_run, gtk_window_present...
/// ```
///
/// Threading: call ``start()`` on the main thread (the bridge drains the main
/// queue on the thread iterating GLib's default main context, which must be
/// the main thread), once, before creating a ``WebKitPagePresenter``; later
/// calls on that thread do nothing.
public enum GTKMainLoop {
    /// Initialises GTK on the calling thread and bridges Dispatch's main
    /// queue into GLib's default main context.
    ///
    /// - Throws: ``WebKitPresenterError/Code/noDisplay`` when GTK cannot open a
    ///   display (no `DISPLAY` nor `WAYLAND_DISPLAY`, or the server refused);
    ///   ``WebKitPresenterError/Code/wrongThread`` when GTK was already
    ///   started on another thread; ``WebKitPresenterError/Code/mainQueueBridge``
    ///   when libdispatch's main-queue handle is unavailable.
    ///
    /// Nothing on disk, and a first frame without compiling shaders on the CPU: before GTK starts, it
    /// sets (each only when the environment does not already set it) `MESA_SHADER_CACHE_DISABLE=true`
    /// and `__GL_SHADER_DISK_CACHE=0`, so neither this process nor WebKit's (which inherit them) keep a
    /// GPU shader cache under `HOME` or `XDG_CACHE_HOME`; and when OpenGL would be Mesa's software
    /// rasteriser (no GPU render node this process can open, `LIBGL_ALWAYS_SOFTWARE`, or a software
    /// `GALLIUM_DRIVER`), `GSK_RENDERER=cairo` and `WEBKIT_DISABLE_COMPOSITING_MODE=1`: windows and pages
    /// drawn on the CPU without the GL renderer's shaders, which would otherwise be compiled at every
    /// start. With a GPU, GTK's own renderer choice stands. Set `GSK_RENDERER` yourself to choose.
    /// At exit (`exit`, or `main` returning) it removes the records WebKit's process sandbox
    /// (bubblewrap) leaves for each web process under `XDG_RUNTIME_DIR/.flatpak/webkit-<pid>-<n>`;
    /// a process that crashes leaves them.
    public static func start() throws(WebKitPresenterError) {
        if !isStarted {
            StartupEnvironment.current.apply()
            atexit { StartupEnvironment.removeSandboxRecords() }
        }
        do throws(GTKRuntime.StartFailure) {
            try GTKRuntime.start()
        } catch {
            switch error {
            case .noDisplay:
                throw WebKitPresenterError(.noDisplay, "GTK cannot open a display (is DISPLAY or WAYLAND_DISPLAY set?)")
            case .startedOnAnotherThread:
                throw WebKitPresenterError(.wrongThread, "GTK was started on another thread")
            case .notTheMainThread:
                throw WebKitPresenterError(.wrongThread, "GTK starts on the main thread only")
            case .mainQueueBridgeUnavailable:
                throw WebKitPresenterError(.mainQueueBridge, "libdispatch's main-queue handle is not available")
            }
        }
    }

    /// Whether ``start()`` succeeded (on any thread).
    public static var isStarted: Bool { GTKRuntime.isStarted }

    /// Whether the calling thread is the GTK thread (the one that called ``start()``).
    public static var isGTKThread: Bool { GTKRuntime.isGTKThread }

    /// Runs GLib's main loop on the GTK thread until `condition` holds or
    /// `timeout` passes, for programs (a REPL, a test) that have no loop of
    /// their own while they wait; Dispatch's main queue is drained inside it.
    ///
    /// `condition` is checked after every event the loop handles; the loop
    /// blocks between events (a GLib timeout wakes it at the deadline).
    ///
    /// Do not call it from a block running on Dispatch's main queue (a
    /// `DispatchQueue.main.async` body, a kit callback): the main queue is
    /// serial, so no other main-queue block (a result, a wake-up) runs until
    /// that block returns, and the wait would end only at its timeout.
    ///
    /// - Returns: whether `condition` held (false: the timeout passed).
    /// - Precondition: called on the GTK thread after ``start()``.
    @discardableResult
    public static func run(timeout: Duration, until condition: () -> Bool) -> Bool {
        GTKRuntime.run(timeout: timeout, until: condition)
    }
}

/// Runs `body` on the GTK thread, which is the main thread and so the main actor (GTKRuntime's rule):
/// at once when already there, else from GLib's default main context (GTKRuntime's one hop).
func onGTKThread(_ body: @escaping @MainActor @Sendable () -> Void) {
    GTKRuntime.perform { MainActor.assumeIsolated(body) }
}
