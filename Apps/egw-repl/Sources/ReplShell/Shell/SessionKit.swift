import Dispatch
import Foundation
import PaymentFlow
import Synchronization

/// Monotonic time in nanoseconds: the live clock, or a test's.
struct ShellClock: Sendable {
    var now: @Sendable () -> UInt64

    /// `CLOCK_MONOTONIC`.
    static let monotonic = ShellClock { Platform.monotonicNanoseconds() }
}

/// How the shell sleeps while it waits for the SDK, and the queue the SDK calls it back on.
///
/// Live, the SDK delivers on the main queue and the shell keeps the main run loop
/// turning (``mainRunLoop``), or GTK's (``WebKitSupport/eventLoop()``); every report wakes it. A test host whose main queue is
/// drained by `dispatchMain()` cannot turn the run loop from inside a main-queue job, so
/// tests use ``privateQueue()``: the SDK calls back on a private serial queue and the
/// shell sleeps on a semaphore that every report signals.
package struct EventLoop: Sendable {
    /// Where the SDK delivers results and presenter calls.
    package var callbackQueue: DispatchQueue
    /// Wakes a ``wait`` (any thread).
    package var wake: @Sendable () -> Void
    /// Sleeps until woken or `seconds` pass (main thread).
    package var wait: @Sendable (_ seconds: TimeInterval) -> Void

    /// A loop of these three parts (``WebKitSupport/eventLoop()`` builds GTK's).
    package init(
        callbackQueue: DispatchQueue, wake: @escaping @Sendable () -> Void,
        wait: @escaping @Sendable (_ seconds: TimeInterval) -> Void
    ) {
        self.callbackQueue = callbackQueue
        self.wake = wake
        self.wait = wait
    }

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

/// Sends the session kit's log lines to the payment that runs (the log sink is the kit's,
/// not a payment's); lines outside a payment are dropped.
final class LogRelay: Sendable {
    private let target = Mutex<PaymentInbox?>(nil)

    /// Where lines go from now on (`nil`: nowhere).
    func route(to inbox: PaymentInbox?) {
        target.withLock { $0 = inbox }
    }

    /// The sink the kit is built with.
    func sink() -> PaymentLogSink {
        { [self] record in target.withLock { $0 }?.post(.log(record)) }
    }
}

extension Shell {
    /// The session's one ``PaymentKit``: built on first use and rebuilt only when `config set`
    /// changed something the kit is built from (``ShellConfiguration/KitSettings``), so its
    /// card-encryption key cache serves every payment of the session. Observers and step
    /// gates are per payment (`PaymentOptions`).
    func sessionKit() -> PaymentKit {
        if let built = builtKit, built.settings == configuration.kit {
            return built.kit
        }
        var sdk = configuration.sdkConfiguration(logSink: logRelay.sink())
        sdk.callbackQueue = events.callbackQueue
        if let authority = trustedAuthorityFile {
            sdk.transportSecurity = .trusting(certificateAuthorityFile: authority)
        }
        let kit = PaymentKit(configuration: sdk)
        builtKit = (configuration.kit, kit)
        return kit
    }

    /// The kit's configuration as the buyer's pages see it (WebKit's page trust): its environment
    /// and transport security (with --sandbox-tls, the sandbox's CA).
    func pageConfiguration() -> PaymentFlow.Configuration {
        var sdk = configuration.sdkConfiguration(logSink: nil)
        if let authority = trustedAuthorityFile {
            sdk.transportSecurity = .trusting(certificateAuthorityFile: authority)
        }
        return sdk
    }

    /// The buyer's browser transport: the kit's own transport security and environment (https only in
    /// live, its pins), never a bare one; with --sandbox-tls it trusts the sandbox's CA.
    func buyerTransport() -> CurlTransport {
        var sdk = configuration.sdkConfiguration(logSink: logRelay.sink())
        if let authority = trustedAuthorityFile {
            sdk.transportSecurity = .trusting(certificateAuthorityFile: authority)
        }
        return CurlTransport(configuration: sdk)
    }

    /// Sleeps until something happens (the SDK's callbacks, an inbox post, input, Ctrl-C)
    /// or `seconds` pass.
    func waitForEvents(_ seconds: TimeInterval) {
        events.wait(seconds)
    }
}
