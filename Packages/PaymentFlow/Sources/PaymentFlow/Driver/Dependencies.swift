import Dispatch
import Foundation
internal import JWE

/// A scheduled piece of work that can be cancelled.
struct FlowTimer: Sendable {
    let cancel: @Sendable () -> Void
}

/// Time, injected: a monotonic clock and a scheduler.
struct FlowClock: Sendable {
    /// Monotonic seconds (any origin).
    var now: @Sendable () -> TimeInterval
    /// Runs `work` once after `delay` seconds, on any thread, unless cancelled first.
    var schedule: @Sendable (_ delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> FlowTimer

    /// `DispatchTime` and dispatch timer sources (a cancelled source releases its work at once).
    static let live = FlowClock(
        now: { TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000 },
        schedule: { delay, work in
            let timer = DispatchTimer(delay: delay, work: work)
            return FlowTimer(cancel: { timer.cancel() })
        })
}

/// A one-shot dispatch timer source. Dispatch sources are thread-safe (any
/// thread may cancel), which the compiler cannot see through the protocol
/// existential: hence the checked-by-hand `Sendable`.
private final class DispatchTimer: @unchecked Sendable {
    private let source: any DispatchSourceTimer

    init(delay: TimeInterval, work: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + max(0, min(delay, 86_400 * 365)))
        source.setEventHandler { [source] in
            source.cancel()
            work()
        }
        source.resume()
    }

    /// Cancelling releases the work at once (unlike a cancelled `asyncAfter` item).
    func cancel() { source.cancel() }
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
    /// reads, the system clock, random UUIDs, JWE encryption.
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
