internal import CGTKRuntime
import Foundation

/// GTK's lifecycle, in one place for the whole SDK: GTK started once per process, which thread is the
/// GTK thread, and the one way onto it. PaymentUI, WebKitPresenter and the apps start GTK only through
/// ``start()``.
///
/// The rule, checked here once: GTK starts on the main thread, because GLib's default main context is
/// iterated there and ``GLibMainQueue`` drains Dispatch's main queue (and so runs `@MainActor` work) on
/// it. So the GTK thread, the main queue and the main actor are one.
///
/// Threading: every member may be called from any thread.
public enum GTKRuntime {
    /// Why ``start()`` did not give the calling thread a running GTK.
    public enum StartFailure: Error, Sendable, Equatable {
        /// GTK could not open a display (no `DISPLAY` nor `WAYLAND_DISPLAY`, or the server refused).
        /// Remembered: GTK is never asked a second time, since it does not survive that.
        case noDisplay
        /// GTK runs, started by another thread.
        case startedOnAnotherThread
        /// Called off the main thread, where GTK may not start (see the rule above).
        case notTheMainThread
        /// libdispatch's main-queue handle is not available, so ``GLibMainQueue`` cannot bridge.
        case mainQueueBridgeUnavailable
    }

    /// Starts GTK on the calling thread, the main thread (`gtk_init_check`, once per process, whichever
    /// threads call) and installs ``GLibMainQueue``'s bridge. Later calls on the GTK thread do nothing
    /// and succeed.
    ///
    /// - Throws: ``StartFailure``.
    public static func start() throws(StartFailure) {
        guard Thread.isMainThread else { throw isStarted ? .startedOnAnotherThread : .notTheMainThread }
        switch egwgtk_start() {
        case .started: break
        case .noDisplay: throw .noDisplay
        case .onAnotherThread: throw .startedOnAnotherThread
        }
        guard GLibMainQueue.install() else { throw .mainQueueBridgeUnavailable }
    }

    /// Whether GTK was started (on any thread).
    public static var isStarted: Bool { egwgtk_started() }

    /// Whether the calling thread is the GTK thread.
    public static var isGTKThread: Bool { egwgtk_is_gtk_thread() }

    /// Runs `body` on the GTK thread: at once when called there, else from GLib's default main context
    /// at high idle priority (in order with other hops; never on a thread that merely acquired the
    /// context). Before GTK started, `body` waits for the first iteration of that context.
    public static func perform(_ body: @escaping @Sendable () -> Void) {
        if egwgtk_is_gtk_thread() {
            body()
            return
        }
        egwgtk_invoke(Hop.run, Hop.retained(body))
    }

    /// Runs `body` once on the GTK thread after `delay` (a GLib timeout on the default main context),
    /// at the earliest: the loop must be turning.
    public static func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) {
        _ = egwgtk_timeout_add(milliseconds(delay), Hop.run, Hop.retained(body))
    }

    /// `duration` in whole milliseconds for a GLib timeout, rounded up so that it never fires before
    /// `duration` passed: 0 for none or a negative one, `UInt32.max` (about 49 days) at the most.
    static func milliseconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || (seconds == 0 && attoseconds > 0) else { return 0 }
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return .max }
        return UInt32(clamping: whole + (attoseconds + perMillisecond - 1) / perMillisecond)
    }

    /// Runs GLib's main loop on the GTK thread until `condition` holds or `timeout` passes, for programs
    /// (a REPL, a test) that have no loop of their own while they wait; Dispatch's main queue is drained
    /// inside it. `condition` is checked after every event the loop handles; the loop blocks between
    /// events (a GLib timeout wakes it at the deadline). Not from a block running on Dispatch's main
    /// queue: that queue is serial, so nothing queued on it would run until the timeout.
    ///
    /// - Returns: whether `condition` held (false: the timeout passed).
    /// - Precondition: called on the GTK thread.
    @discardableResult
    public static func run(timeout: Duration, until condition: () -> Bool) -> Bool {
        precondition(egwgtk_is_gtk_thread(), "GTKRuntime.run must be called on the GTK thread after start()")
        let deadline = ContinuousClock.now + timeout
        let expired = Expiry()
        // The loop below ends on the expiry, so it must not come early (rounded up; whole seconds alone
        // once ended a 300 ms wait after 1 ms).
        let source = egwgtk_timeout_add(
            milliseconds(timeout),
            { data in
                guard let data else { return }
                Unmanaged<Expiry>.fromOpaque(data).takeUnretainedValue().expired = true
            }, Unmanaged.passUnretained(expired).toOpaque())
        defer { if !expired.expired { egwgtk_source_remove(source) } }
        while !condition() {
            if expired.expired || ContinuousClock.now >= deadline { return condition() }
            _ = egwgtk_iterate(true)
        }
        return true
    }

    /// Runs GLib's main loop on the GTK thread until ``quit()``, for an app whose whole life is the loop
    /// (a shop window); Dispatch's main queue is drained inside it, as in ``run(timeout:until:)``. Runs
    /// nest: ``quit()`` ends the innermost.
    ///
    /// - Precondition: called on the GTK thread.
    public static func runUntilQuit() {
        precondition(egwgtk_is_gtk_thread(), "GTKRuntime.runUntilQuit must be called on the GTK thread after start()")
        egwgtk_loop_run()
    }

    /// Ends the innermost ``runUntilQuit()`` (from any thread: it hops onto the GTK thread first). Nothing
    /// happens when no such run turns, so a quit before the run is not remembered.
    public static func quit() {
        perform { egwgtk_loop_quit() }
    }

    /// Set by the deadline's GLib timeout; read on the same (GTK) thread.
    private final class Expiry {
        var expired = false
    }

    /// A body handed to GLib: retained until its one call.
    private final class Hop {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }

        static func retained(_ body: @escaping @Sendable () -> Void) -> UnsafeMutableRawPointer {
            Unmanaged.passRetained(Hop(body)).toOpaque()
        }

        static let run: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
            guard let data else { return }
            Unmanaged<Hop>.fromOpaque(data).takeRetainedValue().body()
        }
    }
}
