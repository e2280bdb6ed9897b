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
    private var perform: ((Machine.Effect) -> Void)?
    // Confined to `queue`.
    private var machine: Machine
    private let pending = LocalWorkQueue<Machine.Event>()
    private let timers: LifecycleTimers<Machine.TimerID, Machine.Event>

    /// A runner of `machine` on `queue`, its timers on `schedule`. Call ``setPerformer(_:)`` before the
    /// first event.
    public init(_ machine: Machine, queue: DispatchQueue, schedule: @escaping LifecycleSchedule) {
        self.machine = machine
        self.queue = queue
        timers = LifecycleTimers(queue: queue, schedule: schedule)
        timers.feed = { [weak self] event in self?.feed(event) }
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
        pending.run(event) { next in
            let effects = machine.handle(next)
            for effect in effects { perform?(effect) }
        }
    }

    /// The machine as it stands (on the queue): for what an executor may read but never decide on.
    public func read<Value>(_ body: (Machine) -> Value) -> Value {
        dispatchPrecondition(condition: .onQueue(queue))
        return body(machine)
    }

    /// Starts (or restarts) timer `id`: after `delay` seconds, `event` is fed, unless the timer was
    /// cancelled or restarted first (on the queue).
    public func startTimer(_ id: Machine.TimerID, after delay: TimeInterval, feeding event: Machine.Event) {
        timers.start(id, after: delay, feeding: event)
    }

    /// Cancels timer `id` if it runs (on the queue); a fire already on its way is dropped.
    public func cancelTimer(_ id: Machine.TimerID) { timers.cancel(id) }

    /// Cancels every timer (on the queue): a machine that ended leaves none running.
    public func cancelAllTimers() { timers.cancelAll() }

    /// How many timers run (on the queue; for tests).
    public var runningTimers: Int { timers.count }
}

/// A runner's local event queue (confined to the runner's queue): work added while work is being done
/// waits behind it and is done in the same turn, instead of re-entering.
final class LocalWorkQueue<Item> {
    private var items: [Item] = []
    private var head = 0
    private var draining = false

    /// Adds `item`; unless work is being done already, does it and everything added meanwhile with
    /// `body`, in order.
    func run(_ item: Item, _ body: (Item) -> Void) {
        items.append(item)
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while head < items.count {
            let next = items[head]
            head += 1
            body(next)
        }
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}

/// The timers of one runner, named by the machine's ids, confined to the runner's queue (checked in debug
/// builds, which is why the class can be `@unchecked Sendable`): starting an id again replaces its timer,
/// a fire hops onto the queue and feeds the timer's event through ``feed``, and a fire whose arming was
/// cancelled or replaced since is dropped there.
final class LifecycleTimers<ID: Hashable & Sendable, Event: Sendable>: @unchecked Sendable {
    private let queue: DispatchQueue
    private let schedule: LifecycleSchedule
    /// The runner's feed (set once by the runner, holding it weakly).
    var feed: (Event) -> Void = { _ in }
    private var running: [ID: (generation: UInt64, cancel: @Sendable () -> Void)] = [:]
    private var generation: UInt64 = 0

    init(queue: DispatchQueue, schedule: @escaping LifecycleSchedule) {
        self.queue = queue
        self.schedule = schedule
    }

    func start(_ id: ID, after delay: TimeInterval, feeding event: Event) {
        dispatchPrecondition(condition: .onQueue(queue))
        running.removeValue(forKey: id)?.cancel()
        generation += 1
        let armed = generation
        let cancel = schedule(delay) { [weak self] in
            guard let self else { return }
            self.queue.async { self.fired(id, generation: armed, event) }
        }
        running[id] = (armed, cancel)
    }

    private func fired(_ id: ID, generation: UInt64, _ event: Event) {
        guard running[id]?.generation == generation else { return }  // cancelled or restarted since
        running[id] = nil
        feed(event)
    }

    func cancel(_ id: ID) {
        dispatchPrecondition(condition: .onQueue(queue))
        running.removeValue(forKey: id)?.cancel()
    }

    func cancelAll() {
        dispatchPrecondition(condition: .onQueue(queue))
        let armed = running
        running.removeAll()
        for timer in armed.values { timer.cancel() }
    }

    var count: Int {
        dispatchPrecondition(condition: .onQueue(queue))
        return running.count
    }
}

extension FlowClock {
    /// This clock's scheduler, as the lifecycle runner takes it.
    var lifecycleSchedule: LifecycleSchedule {
        let schedule = self.schedule
        return { delay, work in schedule(delay, work).cancel }
    }
}

/// The live scheduler of every lifecycle runner: the boot clock (a deadline that passed while the machine
/// was suspended fires on resume), every timer in the one queue the payments' timers share
/// (``SuspendAwareTimerQueue``), so arming and cancelling a watchdog costs no timer source of its own.
@_spi(LifecycleRuntime)
public let liveLifecycleSchedule: LifecycleSchedule = FlowClock.live.lifecycleSchedule
