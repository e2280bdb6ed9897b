import Dispatch
import Foundation
internal import JWE

/// A scheduled piece of work that can be cancelled.
struct FlowTimer: Sendable {
    let cancel: @Sendable () -> Void
}

/// Time, injected: a clock that counts suspended time, and a scheduler on it.
struct FlowClock: Sendable {
    /// Seconds (any origin) that keep counting while the machine is suspended.
    var now: @Sendable () -> TimeInterval
    /// Runs `work` once after `delay` seconds (suspended time included), on any thread, unless cancelled first.
    var schedule: @Sendable (_ delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> FlowTimer

    /// `CLOCK_BOOTTIME` and ``SuspendAwareClock`` timers: a deadline that passed while the machine slept
    /// fires on resume (a cancelled timer releases its work at once). Every payment's timers share one
    /// armed timer (``SuspendAwareTimerQueue``): a watchdog armed and cancelled per call costs no timer
    /// source of its own.
    static let live = FlowClock.queued(SuspendAwareTimerQueue(source: .live))

    /// The clock of `timers`' source, its timers in that one queue.
    static func queued(_ timers: SuspendAwareTimerQueue) -> FlowClock {
        FlowClock(
            now: { TimeInterval(timers.now) / 1_000_000_000 },
            schedule: { delay, work in FlowTimer(cancel: timers.schedule(after: delay, work)) })
    }

    /// The clock and timers of `source` (live: the system's; tests: a simulated machine that sleeps).
    static func suspendAware(_ source: SuspendAwareTimerSource) -> FlowClock {
        FlowClock(
            now: { TimeInterval(source.now()) / 1_000_000_000 },
            schedule: { delay, work in
                let timer = SuspendAwareClock.Timer(after: delay, source: source, queue: .global(), work: work)
                return FlowTimer(cancel: { timer.cancel() })
            })
    }
}

/// Everything a payment run touches outside itself, as small injectable values
/// (live values below; tests build their own).
struct FlowDependencies: Sendable {
    /// The way to the network.
    var transport: any HTTPTransport
    /// Time and timers.
    var clock: FlowClock
    /// `X-Request-Id` values.
    var uuid: @Sendable () -> UUID
    /// Encrypts the card plaintext to the key (compact JWE).
    var encrypt: @Sendable (EncryptionKey, UnsafeRawBufferPointer) throws -> String
    /// How long a presenter may take to answer `present` or `dismiss` before the SDK stops waiting.
    var presenterTimeout: TimeInterval = 60
    /// Seconds between lookups of a status that may still change (CONTRACT.md section 3: 1 s).
    var statusRepollInterval: TimeInterval = 1

    /// The live encryption: the key's reusable JWE encrypter.
    static let liveEncrypt: @Sendable (EncryptionKey, UnsafeRawBufferPointer) throws -> String = { key, plaintext in
        try key.encrypter.encrypt(bytes: plaintext)
    }

    /// The live values: `base` (libcurl unless given) wrapped in bounded, jittered retries for idempotent
    /// reads, the suspend-aware clock, random UUIDs, JWE encryption.
    static func live(configuration: Configuration, transport base: (any HTTPTransport)? = nil) -> FlowDependencies {
        let clock = FlowClock.live
        let transport =
            base
            ?? CurlTransport(configuration: configuration)
        // One deadline per operation: the retries of a read stop where the run's watchdog would fire.
        let policy = RetryPolicy(
            maxAttempts: 3, baseDelay: 0.25, maxDelay: 2,
            unitRandom: { Double.random(in: 0..<1) },
            sleep: { delay, work in _ = clock.schedule(delay, work) },
            budget: CallWatchdog.deadline(requestTimeout: configuration.requestTimeout), now: clock.now)
        return FlowDependencies(
            transport: RetryingTransport(base: transport, policy: policy),
            clock: clock,
            uuid: { UUID() },
            encrypt: liveEncrypt)
    }
}

/// The one deadline of one gateway call: the request timeout plus one grace. A payment's watchdog, the
/// status lookup's and the transport's read-retry budget all read it here, so they fire together.
enum CallWatchdog {
    /// Seconds past `Configuration.requestTimeout` before the SDK stops waiting for a transport that
    /// never answers.
    static let grace: TimeInterval = 5

    /// When a call sent with `requestTimeout` is given up: `requestTimeout` + ``grace``.
    static func deadline(requestTimeout: TimeInterval) -> TimeInterval { requestTimeout + grace }
}
