import Dispatch
import Foundation

/// A lifecycle as a value: events in, effects out, no I/O. What the SDK's payment, wallet-context
/// and page lifecycles have in common, so that one ``LifecycleRunner`` runs them all.
///
/// Not part of the SDK's API (`@_spi(LifecycleRuntime)`): the SDK's own packages run their machines
/// with it.
@_spi(LifecycleRuntime)
public protocol Lifecycle: Sendable {
    associatedtype Event: Sendable
    associatedtype Effect
    /// What names the machine's timers.
    associatedtype TimerID: Hashable, Sendable
    /// The machine's step: what `event` does to it and what to perform because of it, in order.
    mutating func handle(_ event: Event) -> [Effect]
}

/// A cancellable scheduler: runs `work` once after `delay` seconds, on any thread, unless the returned
/// cancel is called first. Live runs use the boot clock (a deadline that passed while the machine was
/// suspended fires on resume); tests step their own.
@_spi(LifecycleRuntime)
public typealias LifecycleSchedule =
    @Sendable (_ delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void

/// Runs one ``Lifecycle`` the one way every lifecycle of the SDK is run:
///
/// - **One serial queue** owns the machine: a private queue, or the main queue (the GTK thread once
///   GLibMainQueue is installed). Everything below happens on it (checked in debug builds), which is why
///   the class can be `@unchecked Sendable`.
/// - **A local event queue.** An event fed while the runner is handling another (an effect that answers
///   at once, such as the card's encryption) waits behind the current event's remaining effects, then
///   is handled in the same turn of the queue: no re-entry into the machine, and no hop.
/// - **One clock** for every timer. A timer is named by the machine's own id; starting it again
///   replaces it, cancelling it wins over a fire already on its way, and ``cancelAllTimers()`` ends
///   them all. Stale answers are the machine's business: the runner keeps no tokens.
///
/// `perform` is the executor's switch over effects; it is called on the queue with the runner, through
/// which it feeds answers (``feed(_:)`` on the queue, ``post(_:)`` from anywhere) and starts timers.
@_spi(LifecycleRuntime)
public final class LifecycleRunner<Machine: Lifecycle>: @unchecked Sendable {
    /// The queue everything runs on.
    public let queue: DispatchQueue
    private let schedule: LifecycleSchedule
    private var perform: ((Machine.Effect) -> Void)?
    // Confined to `queue`.
    private var machine: Machine
    private var pending: [Machine.Event] = []
    private var pendingHead = 0
    private var draining = false
    private var timers: [Machine.TimerID: (generation: UInt64, cancel: @Sendable () -> Void)] = [:]
    private var timerGeneration: UInt64 = 0

    /// A runner of `machine` on `queue`, its timers on `schedule`. Call ``setPerformer(_:)`` before the
    /// first event.
    public init(_ machine: Machine, queue: DispatchQueue, schedule: @escaping LifecycleSchedule) {
        self.machine = machine
        self.queue = queue
        self.schedule = schedule
    }

    /// The executor's switch over effects (called on the queue). Set once, before the first event.
    /// The executor owns its runner, so the closure holds the executor `unowned` (or weakly).
    public func setPerformer(_ perform: @escaping (Machine.Effect) -> Void) {
        self.perform = perform
    }

    /// Feeds `event` from any thread: it is handled on the queue, after everything posted before it.
    public func post(_ event: Machine.Event) {
        queue.async { self.feed(event) }
    }

    /// Feeds `event` on the queue: handled now, or, when the runner is already handling an event, once
    /// that event's effects are all performed (the local event queue).
    public func feed(_ event: Machine.Event) {
        dispatchPrecondition(condition: .onQueue(queue))
        pending.append(event)
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while pendingHead < pending.count {
            let next = pending[pendingHead]
            pendingHead += 1
            let effects = machine.handle(next)
            for effect in effects { perform?(effect) }
        }
        pending.removeAll(keepingCapacity: true)
        pendingHead = 0
    }

    /// The machine as it stands (on the queue): for what an executor may read but never decide on.
    public func read<Value>(_ body: (Machine) -> Value) -> Value {
        dispatchPrecondition(condition: .onQueue(queue))
        return body(machine)
    }

    /// Starts (or restarts) timer `id`: after `delay` seconds, `event` is fed, unless the timer was
    /// cancelled or restarted first (on the queue).
    public func startTimer(_ id: Machine.TimerID, after delay: TimeInterval, feeding event: Machine.Event) {
        dispatchPrecondition(condition: .onQueue(queue))
        timers.removeValue(forKey: id)?.cancel()
        timerGeneration += 1
        let generation = timerGeneration
        let cancel = schedule(delay) { [weak self] in
            guard let self else { return }
            self.queue.async { self.timerFired(id, generation: generation, event) }
        }
        timers[id] = (generation, cancel)
    }

    private func timerFired(_ id: Machine.TimerID, generation: UInt64, _ event: Machine.Event) {
        guard timers[id]?.generation == generation else { return }  // cancelled or restarted since
        timers[id] = nil
        feed(event)
    }

    /// Cancels timer `id` if it runs (on the queue); a fire already on its way is dropped.
    public func cancelTimer(_ id: Machine.TimerID) {
        dispatchPrecondition(condition: .onQueue(queue))
        timers.removeValue(forKey: id)?.cancel()
    }

    /// Cancels every timer (on the queue): a machine that ended leaves none running.
    public func cancelAllTimers() {
        dispatchPrecondition(condition: .onQueue(queue))
        let running = timers
        timers.removeAll()
        for timer in running.values { timer.cancel() }
    }

    /// How many timers run (on the queue; for tests).
    public var runningTimers: Int {
        dispatchPrecondition(condition: .onQueue(queue))
        return timers.count
    }
}

extension FlowClock {
    /// This clock's scheduler, as the lifecycle runner takes it.
    var lifecycleSchedule: LifecycleSchedule {
        let schedule = self.schedule
        return { delay, work in schedule(delay, work).cancel }
    }
}
