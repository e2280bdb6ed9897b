import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The SDK's time: seconds that keep counting while the machine is suspended, and one-shot timers
/// on them.
///
/// `DispatchTime` (and so `asyncAfter` and dispatch timers scheduled with a `deadline:`) reads
/// `CLOCK_MONOTONIC` on Linux, which stops while a laptop, kiosk or terminal sleeps: a 30-second
/// deadline armed before a one-hour suspend would still have 30 seconds to go on resume, against a
/// gateway whose session expired meanwhile. This clock reads `CLOCK_BOOTTIME`, which counts the
/// suspend, and its timers fire on resume when their time passed during the sleep.
///
/// Every deadline of the SDK runs on it: a payment's call and page deadlines, status polls, retry
/// backoffs and the transport's total timeout. Packages that build on PaymentFlow (the headless
/// browser, the wallet sheet) use it for theirs.
///
/// How a timer fires: it asks Dispatch for two wake-ups, one on the wall clock (`DispatchWallTime`,
/// which counts a suspend but can be stepped by NTP or the user) and one on the monotonic clock
/// (which never runs ahead but stops while suspended), and on each wake-up reads `CLOCK_BOOTTIME`:
/// past the deadline, the work runs; early (a wall clock stepped forward), the timer asks again for
/// the time that is left. So it never fires early and fires on resume once a suspend passed its
/// deadline; after a backward step of the wall clock the monotonic wake-up still comes, late by
/// no more than the time the machine slept meanwhile.
///
/// ```swift
/// let timer = SuspendAwareClock.schedule(after: 30, on: queue) { giveUp() }
/// ...
/// timer.cancel()  // the work will not run if it has not started
/// ```
public enum SuspendAwareClock {
    /// Seconds since boot on `CLOCK_BOOTTIME`, suspended time included. Never decreases; only
    /// differences between two readings mean anything. Thread-safe.
    public static func now() -> TimeInterval { TimeInterval(nanoseconds()) / 1_000_000_000 }

    /// Runs `work` once on `queue`, `seconds` from now on this clock (suspended time included),
    /// unless the returned timer is cancelled first.
    ///
    /// A negative or non-finite delay counts as 0 (the work runs soon, never inside this call);
    /// delays beyond a year are shortened to a year. The timer keeps itself alive until it fired
    /// or was cancelled: dropping the returned value does not cancel it. Callable from any thread.
    @discardableResult
    public static func schedule(
        after seconds: TimeInterval, on queue: DispatchQueue = .global(),
        execute work: @escaping @Sendable () -> Void
    ) -> Timer {
        Timer(after: seconds, source: .live, queue: queue, work: work)
    }

    /// `CLOCK_BOOTTIME` in nanoseconds.
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        // CLOCK_BOOTTIME exists since Linux 2.6.39; clock_gettime fails only for an unknown clock.
        guard clock_gettime(CLOCK_BOOTTIME, &time) == 0 else {
            return DispatchTime.now().uptimeNanoseconds
        }
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Nanoseconds for a delay in seconds: 0 for a negative or non-finite one, at most a year.
    static func nanoseconds(for seconds: TimeInterval) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(min(seconds, 86_400 * 365) * 1_000_000_000)
    }

    /// A one-shot timer of ``SuspendAwareClock``; see ``SuspendAwareClock/schedule(after:on:execute:)``.
    /// Thread-safe.
    public final class Timer: Sendable {
        private enum State {
            /// Waiting; the cancels of the wake-ups asked for.
            case armed(wakes: [@Sendable () -> Void], work: @Sendable () -> Void)
            /// The deadline passed; the work is queued and runs unless cancelled before it starts.
            case due(work: @Sendable () -> Void)
            /// Fired or cancelled; the work is released.
            case done
        }

        private let state: Mutex<State>
        private let deadline: UInt64
        private let source: SuspendAwareTimerSource
        private let queue: DispatchQueue

        init(
            after seconds: TimeInterval, source: SuspendAwareTimerSource, queue: DispatchQueue,
            work: @escaping @Sendable () -> Void
        ) {
            self.source = source
            self.queue = queue
            self.deadline = source.now() &+ SuspendAwareClock.nanoseconds(for: seconds)
            self.state = Mutex(.armed(wakes: [], work: work))
            check()
        }

        /// Stops the timer: its work does not run unless it already started (a cancel made on the
        /// timer's queue before the work began always wins). Idempotent; releases the work at once.
        public func cancel() {
            let wakes = state.withLock { state -> [@Sendable () -> Void] in
                switch state {
                case .armed(let wakes, _):
                    state = .done
                    return wakes
                case .due, .done:
                    state = .done
                    return []
                }
            }
            wakes.forEach { $0() }
        }

        /// A wake-up (or the start): fire when the deadline passed on the boot clock, else ask to be
        /// woken again for what is left.
        private func check() {
            let now = source.now()
            guard now < deadline else {
                let wakes = state.withLock { state -> [@Sendable () -> Void]? in
                    guard case .armed(let wakes, let work) = state else { return nil }
                    state = .due(work: work)
                    return wakes
                }
                guard let wakes else { return }  // cancelled, or another wake-up got here first
                wakes.forEach { $0() }
                queue.async { self.run() }
                return
            }
            let left = deadline - now
            // Asked outside the lock (a source may call back on another thread at once).
            let fresh = [
                source.wakeOnWallClock(left) { [self] in check() },
                source.wakeOnMonotonicClock(left) { [self] in check() },
            ]
            let stale = state.withLock { state -> [@Sendable () -> Void] in
                guard case .armed(let old, let work) = state else { return fresh }  // cancelled meanwhile
                state = .armed(wakes: fresh, work: work)
                return old
            }
            stale.forEach { $0() }
        }

        private func run() {
            let work = state.withLock { state -> (@Sendable () -> Void)? in
                guard case .due(let work) = state else { return nil }
                state = .done
                return work
            }
            work?()
        }
    }
}

/// Where a ``SuspendAwareClock/Timer`` reads the time and asks to be woken: live, `CLOCK_BOOTTIME`
/// and Dispatch's wall and monotonic timers; in tests, a simulated machine that can sleep.
struct SuspendAwareTimerSource: Sendable {
    /// Cancels a wake-up that has not happened (idempotent).
    typealias Cancel = @Sendable () -> Void

    /// `CLOCK_BOOTTIME` nanoseconds.
    var now: @Sendable () -> UInt64
    /// Calls the handler once, on any thread, the given nanoseconds from now on the wall clock: it
    /// counts a suspend, and may come early or late when the wall clock is stepped.
    var wakeOnWallClock: @Sendable (_ nanoseconds: UInt64, _ handler: @escaping @Sendable () -> Void) -> Cancel
    /// Calls the handler once, on any thread, the given nanoseconds from now on the monotonic clock:
    /// never early, but a suspend does not count.
    var wakeOnMonotonicClock: @Sendable (_ nanoseconds: UInt64, _ handler: @escaping @Sendable () -> Void) -> Cancel

    /// `CLOCK_BOOTTIME` and dispatch timer sources (libdispatch arms wall-clock sources on a
    /// `CLOCK_REALTIME` timerfd with an absolute expiry, so they fire on resume).
    static let live = SuspendAwareTimerSource(
        now: { SuspendAwareClock.nanoseconds() },
        wakeOnWallClock: { nanoseconds, handler in
            let wake = DispatchWake(wallClock: true, nanoseconds: nanoseconds, handler: handler)
            return { wake.cancel() }
        },
        wakeOnMonotonicClock: { nanoseconds, handler in
            let wake = DispatchWake(wallClock: false, nanoseconds: nanoseconds, handler: handler)
            return { wake.cancel() }
        })
}

/// One dispatch timer source, one-shot. Dispatch sources are thread-safe (any thread may cancel),
/// which the compiler cannot see through the protocol existential: hence the checked-by-hand
/// `Sendable`. A cancelled source releases its handler.
private final class DispatchWake: @unchecked Sendable {
    private let source: any DispatchSourceTimer

    init(wallClock: Bool, nanoseconds: UInt64, handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        let interval = DispatchTimeInterval.nanoseconds(Int(clamping: nanoseconds))
        if wallClock {
            source.schedule(wallDeadline: .now() + interval)
        } else {
            source.schedule(deadline: .now() + interval)
        }
        source.setEventHandler { [source] in
            source.cancel()
            handler()
        }
        source.resume()
    }

    func cancel() { source.cancel() }
}
