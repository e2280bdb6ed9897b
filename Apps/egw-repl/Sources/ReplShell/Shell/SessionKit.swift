import Foundation
import PaymentFlow

/// Monotonic time in nanoseconds: the live clock, or a test's.
struct ShellClock: Sendable {
    var now: @Sendable () -> UInt64

    /// `CLOCK_MONOTONIC`.
    static let monotonic = ShellClock { Platform.monotonicNanoseconds() }
}

extension Shell {
    /// The kit a payment runs on, with this payment's log sink.
    func paymentKit(for inbox: PaymentInbox) -> PaymentKit {
        PaymentKit(configuration: configuration.sdkConfiguration(logSink: inbox.logSink()))
    }

    /// Sleeps in the main run loop until something is delivered on the main queue (the
    /// SDK's callbacks, an inbox post, input, Ctrl-C) or `seconds` pass.
    func waitForEvents(_ seconds: TimeInterval) {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: seconds))
    }
}
