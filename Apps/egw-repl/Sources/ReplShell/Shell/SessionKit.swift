import Dispatch
import Foundation
import PaymentFlow

/// Monotonic time in nanoseconds: the live clock, or a test's.
struct ShellClock: Sendable {
    var now: @Sendable () -> UInt64

    /// `CLOCK_MONOTONIC`.
    static let monotonic = ShellClock { Platform.monotonicNanoseconds() }
}

/// How the shell sleeps while it waits for the SDK, and the queue the SDK calls it back on.
///
/// Live, the SDK delivers on the main queue and the shell keeps the main run loop
/// turning (``mainRunLoop``); every report wakes it. A test host whose main queue is
/// drained by `dispatchMain()` cannot turn the run loop from inside a main-queue job, so
/// tests use ``privateQueue()``: the SDK calls back on a private serial queue and the
/// shell sleeps on a semaphore that every report signals.
struct EventLoop: Sendable {
    /// Where the SDK delivers results and presenter calls.
    var callbackQueue: DispatchQueue
    /// Wakes a ``wait`` (any thread).
    var wake: @Sendable () -> Void
    /// Sleeps until woken or `seconds` pass (main thread).
    var wait: @Sendable (_ seconds: TimeInterval) -> Void

    /// The main queue and `RunLoop.main`.
    static let mainRunLoop = EventLoop(
        callbackQueue: .main, wake: { DispatchQueue.main.async {} },
        wait: { seconds in _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: seconds)) })

    /// A private serial queue and a semaphore.
    static func privateQueue() -> EventLoop {
        let semaphore = DispatchSemaphore(value: 0)
        return EventLoop(
            callbackQueue: DispatchQueue(label: "egw-repl.callbacks"), wake: { semaphore.signal() },
            wait: { seconds in _ = semaphore.wait(timeout: .now() + seconds) })
    }
}

extension Shell {
    /// The kit a payment runs on, with this payment's log sink.
    func paymentKit(for inbox: PaymentInbox) -> PaymentKit {
        var sdk = configuration.sdkConfiguration(logSink: inbox.logSink())
        sdk.callbackQueue = events.callbackQueue
        return PaymentKit(configuration: sdk)
    }

    /// Sleeps until something happens (the SDK's callbacks, an inbox post, input, Ctrl-C)
    /// or `seconds` pass.
    func waitForEvents(_ seconds: TimeInterval) {
        events.wait(seconds)
    }
}
