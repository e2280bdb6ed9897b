import Dispatch
import Foundation
import Synchronization

/// Many one-shot timers on one ``SuspendAwareClock/Timer``: the live clock of every payment.
///
/// A payment arms a watchdog for each call and cancels it when the answer comes, a few times per
/// payment; each ``SuspendAwareClock/Timer`` is two dispatch timer sources made, armed and cancelled
/// (libdispatch wakes its timer thread for each). Here the deadlines wait in one queue ordered by
/// deadline on the boot clock, and one timer is armed, for the earliest: a deadline later than the
/// armed one costs an insertion; a cancel only forgets the deadline (the armed timer, when it fires
/// with nothing due, arms again for the earliest left, or nothing).
///
/// Same guarantees as ``SuspendAwareClock/Timer``, which it runs on: never early (a fire runs only
/// the works whose deadline the boot clock has reached), on resume for deadlines a suspend passed,
/// and a cancel before the work starts wins. Works run on the given queue, each once. Thread-safe.
final class SuspendAwareTimerQueue: Sendable {
    private struct Pending {
        var deadline: UInt64
        var work: @Sendable () -> Void
    }

    private struct State {
        /// The works still to run, by id.
        var pending: [UInt64: Pending] = [:]
        /// (deadline, id), a binary min-heap; ids no longer pending are dropped when they surface.
        var heap: [(deadline: UInt64, id: UInt64)] = []
        var nextID: UInt64 = 0
        /// The one arming, for `deadline`; `arming` tells its fire from a replaced timer's late one. Its
        /// timer is recorded once made (nil until then: the arming is recorded first, so a timer that
        /// fires at once finds itself armed and clears it).
        var armed: (deadline: UInt64, timer: SuspendAwareClock.Timer?, arming: Arming)?
    }

    /// Which arming a fire belongs to (compared by identity).
    private final class Arming: Sendable {}

    private let state = Mutex(State())
    private let source: SuspendAwareTimerSource
    private let queue: DispatchQueue

    /// Timers read `source`; their works run on `queue` (the global queue, live).
    init(source: SuspendAwareTimerSource, queue: DispatchQueue = .global()) {
        self.source = source
        self.queue = queue
    }

    /// Runs `work` once on the queue `seconds` from now on the boot clock, unless the returned
    /// cancel is called first.
    func schedule(after seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let deadline = source.now() &+ SuspendAwareClock.nanoseconds(for: seconds)
        let (id, earliest) = state.withLock { state -> (UInt64, Bool) in
            state.nextID += 1
            state.pending[state.nextID] = Pending(deadline: deadline, work: work)
            Self.push((deadline, state.nextID), into: &state.heap)
            if state.heap.count > 64 && state.heap.count > 4 * state.pending.count { Self.compact(&state) }
            return (state.nextID, state.armed.map { deadline < $0.deadline } ?? true)
        }
        if earliest { arm(for: deadline) }
        return { [weak self] in _ = self?.state.withLock { $0.pending.removeValue(forKey: id) } }
    }

    /// The source's boot clock, in nanoseconds.
    var now: UInt64 { source.now() }

    /// How many works wait (for tests).
    var waiting: Int { state.withLock { $0.pending.count } }

    /// Arms the one timer for `deadline` unless one is armed for an earlier one. The arming is recorded
    /// before its timer is made, and the timer made outside the lock (a source may call back at once):
    /// a timer that fires before it is recorded still clears its own arming, so a spent timer is never
    /// left as the armed one (which would leave every later deadline unarmed).
    private func arm(for deadline: UInt64) {
        let arming = Arming()
        let replaced = state.withLock { state -> SuspendAwareClock.Timer?? in
            if let armed = state.armed, armed.deadline <= deadline { return .none }  // an earlier one stands
            defer { state.armed = (deadline, nil, arming) }
            return .some(state.armed?.timer)
        }
        guard case .some(let superseded) = replaced else { return }
        superseded?.cancel()
        let now = source.now()
        let seconds = deadline > now ? Double(deadline - now) / 1_000_000_000 : 0
        let timer = SuspendAwareClock.Timer(after: seconds, source: source, queue: queue) { [weak self] in
            self?.fire(arming)
        }
        let recorded = state.withLock { state -> Bool in
            guard state.armed?.arming === arming else { return false }  // fired already, or replaced since
            state.armed?.timer = timer
            return true
        }
        if !recorded { timer.cancel() }
    }

    /// A timer fired: run what is due; when it was the armed one, arm for the earliest deadline left (a
    /// replaced timer whose cancel came too late leaves the armed one as it is).
    private func fire(_ arming: Arming) {
        let now = source.now()
        let (due, next) = state.withLock { state -> ([@Sendable () -> Void], UInt64?) in
            if state.armed?.arming === arming { state.armed = nil }
            var due: [@Sendable () -> Void] = []
            while let top = state.heap.first, top.deadline <= now {
                Self.pop(from: &state.heap)
                if let pending = state.pending.removeValue(forKey: top.id) { due.append(pending.work) }
            }
            while let top = state.heap.first, state.pending[top.id] == nil { Self.pop(from: &state.heap) }
            return (due, state.armed == nil ? state.heap.first?.deadline : nil)
        }
        if let next { arm(for: next) }
        for work in due { work() }
    }

    // MARK: The heap

    private static func push(_ entry: (deadline: UInt64, id: UInt64), into heap: inout [(deadline: UInt64, id: UInt64)])
    {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func pop(from heap: inout [(deadline: UInt64, id: UInt64)]) {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count, heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }

    /// Rebuilds the heap from the works still pending (cancelled watchdogs pile up between fires).
    private static func compact(_ state: inout State) {
        state.heap = []
        for (id, pending) in state.pending { push((pending.deadline, id), into: &state.heap) }
    }
}
