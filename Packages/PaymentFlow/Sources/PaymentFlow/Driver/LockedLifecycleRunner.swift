import Dispatch
import Foundation
import Synchronization

/// A ``Lifecycle`` whose effects (values that cross to the runner's queue) are let through one at a time,
/// each at the moment it is performed.
///
/// Not part of the SDK's API (`@_spi(LifecycleRuntime)`).
@_spi(LifecycleRuntime)
public protocol AdmittingLifecycle: Lifecycle where Effect: Sendable {
    /// What performing an admitted effect needs that only the machine holds at that moment (the page's
    /// handler, a call's completion).
    associatedtype Admission
    /// Called under the runner's lock just before `effect`, decided earlier, is performed: `nil` drops it
    /// (the machine moved on since; a dismissal between two effects of one event silences the rest),
    /// otherwise what the performer gets with it. May record that the effect went out.
    mutating func admit(_ effect: Effect) -> Admission?
}

/// Runs one ``AdmittingLifecycle`` the way ``LifecycleRunner`` runs a lifecycle (one serial queue that
/// performs the effects, a local event queue, one clock for every timer, stale answers the machine's
/// business), for a machine whose callers need a decision *now*: a `dismiss` after which nothing more is
/// heard even when it is called from inside one of the machine's own callbacks, a reply a caller waits
/// for on its own thread.
///
/// - **The machine lives under one lock.** ``decideNow(_:reading:)`` handles an event on the calling
///   thread (any thread), so it has taken effect when the call returns, and reads what the caller needs
///   in the same critical section. Nothing else runs under the lock: no effect, no callback.
/// - **Effects are performed on the queue**, in the order their events were decided (a batch is queued
///   before the lock is let go), each admitted under the lock just before it is performed
///   (``AdmittingLifecycle/admit(_:)``).
/// - **Answers** come back with ``post(_:)`` from anywhere (decided on the queue, after everything queued
///   before them) or ``feed(_:)`` on the queue (behind the current event's remaining effects: no
///   re-entry).
/// - **Timers**, named by the machine's ids, on one injected clock, as ``LifecycleRunner``'s.
///
/// The performer is handed the runner with each effect, so it need not hold its executor: an executor
/// that goes away while work is queued leaves no cycle, and what was queued is still performed.
@_spi(LifecycleRuntime)
public final class LockedLifecycleRunner<Machine: AdmittingLifecycle>: @unchecked Sendable {
    // @unchecked: the machine is under `state`'s lock; everything else below is confined to `queue`
    // (checked in debug builds), and `perform` is set once before the first event.

    /// The queue the effects are performed on.
    public let queue: DispatchQueue
    private let state: Mutex<Machine>
    private let timers: LifecycleTimers<Machine.TimerID, Machine.Event>
    private var perform: ((LockedLifecycleRunner, Machine.Effect, Machine.Admission) -> Void)?
    // Confined to `queue`.
    private let work = LocalWorkQueue<Work>()

    private enum Work {
        case decide(Machine.Event)
        case perform([Machine.Effect])
    }

    /// A runner of `machine`, its effects performed on `queue`, its timers on `schedule`. Call
    /// ``setPerformer(_:)`` before the first event.
    public init(_ machine: Machine, queue: DispatchQueue, schedule: @escaping LifecycleSchedule) {
        state = Mutex(machine)
        self.queue = queue
        timers = LifecycleTimers(queue: queue, schedule: schedule)
        timers.feed = { [weak self] event in self?.feed(event) }
    }

    /// The executor's switch over effects, called on the queue with this runner, each admitted effect and
    /// its admission. Set once, before the first event.
    public func setPerformer(
        _ perform: @escaping (LockedLifecycleRunner, Machine.Effect, Machine.Admission) -> Void
    ) {
        self.perform = perform
    }

    /// Decides `event` now, on the calling thread (any thread, the queue included), and returns what
    /// `reading` reads of the machine right after, in the same critical section. The effects are
    /// performed on the queue, after everything decided before them.
    @discardableResult
    public func decideNow<Value>(_ event: Machine.Event, reading: (Machine) -> Value) -> Value {
        state.withLock { machine in
            let effects = machine.handle(event)
            let value = reading(machine)
            if !effects.isEmpty { queue.async { self.run(.perform(effects)) } }
            return value
        }
    }

    /// Decides `event` now (see ``decideNow(_:reading:)``).
    public func decideNow(_ event: Machine.Event) {
        decideNow(event) { _ in () }
    }

    /// Feeds `event` from any thread: decided on the queue, after everything queued before it.
    public func post(_ event: Machine.Event) {
        queue.async { self.run(.decide(event)) }
    }

    /// Feeds `event` on the queue: decided now, or, while an effect is being performed, once the current
    /// batch's effects are all performed (the local event queue).
    public func feed(_ event: Machine.Event) {
        dispatchPrecondition(condition: .onQueue(queue))
        run(.decide(event))
    }

    /// The machine as it stands, from any thread: for what an executor may read but never decide on.
    public func read<Value>(_ body: (Machine) -> Value) -> Value {
        state.withLock { body($0) }
    }

    private func run(_ item: Work) {
        dispatchPrecondition(condition: .onQueue(queue))
        work.run(item) { next in
            switch next {
            case .decide(let event): performAll(state.withLock { $0.handle(event) })
            case .perform(let effects): performAll(effects)
            }
        }
    }

    private func performAll(_ effects: [Machine.Effect]) {
        for effect in effects {
            // Admitted under the lock, performed outside it.
            guard let admission = state.withLock({ $0.admit(effect) }) else { continue }
            perform?(self, effect, admission)
        }
    }

    /// Starts (or restarts) timer `id`: after `delay` seconds, `event` is fed, unless the timer was
    /// cancelled or restarted first (on the queue).
    public func startTimer(_ id: Machine.TimerID, after delay: TimeInterval, feeding event: Machine.Event) {
        timers.start(id, after: delay, feeding: event)
    }

    /// Cancels timer `id` if it runs (on the queue); a fire already on its way is dropped.
    public func cancelTimer(_ id: Machine.TimerID) { timers.cancel(id) }

    /// How many timers run (on the queue; for tests).
    public var runningTimers: Int { timers.count }
}
