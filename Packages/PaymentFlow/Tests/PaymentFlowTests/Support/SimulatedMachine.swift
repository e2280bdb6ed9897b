import Dispatch
import Foundation
import Synchronization

@testable import PaymentFlow

/// A machine whose clocks tests move by hand, as the kernel moves them: running moves all three
/// (boot, monotonic, wall), a suspend moves the boot and wall clocks only (the monotonic clock and
/// everything scheduled on it do not see it), an NTP step moves the wall clock alone. Wake-ups armed
/// on a clock are called, on the thread that moves time, once that clock reaches them.
final class SimulatedMachine: Sendable {
    private struct Wake {
        var id: Int
        var wallClock: Bool
        var at: UInt64
        var handler: @Sendable () -> Void
    }

    private struct State {
        // Any origin; the wall clock starts far from the others, as on a real machine.
        var boot: UInt64 = 1_000_000_000_000
        var monotonic: UInt64 = 1_000_000_000_000
        var wall: UInt64 = 1_800_000_000_000_000_000
        var wakes: [Wake] = []
        var next = 0
    }

    private let state = Mutex(State())
    /// Told the delay (seconds) of every wake-up armed.
    private let onArm: (@Sendable (TimeInterval) -> Void)?

    init(onArm: (@Sendable (TimeInterval) -> Void)? = nil) {
        self.onArm = onArm
    }

    /// The machine's boot clock, its wall and monotonic wake-ups.
    var source: SuspendAwareTimerSource {
        SuspendAwareTimerSource(
            now: { self.state.withLock { $0.boot } },
            wakeOnWallClock: { nanoseconds, handler in self.arm(wallClock: true, nanoseconds, handler) },
            wakeOnMonotonicClock: { nanoseconds, handler in self.arm(wallClock: false, nanoseconds, handler) })
    }

    /// Wake-ups armed and not yet called or cancelled.
    var pendingWakes: Int { state.withLock { $0.wakes.count } }

    /// Time passes with the machine awake.
    func run(for seconds: TimeInterval) {
        move(boot: seconds, monotonic: seconds, wall: seconds)
    }

    /// The machine sleeps for `seconds` and resumes.
    func suspend(for seconds: TimeInterval) {
        move(boot: seconds, monotonic: 0, wall: seconds)
    }

    /// The wall clock is set by `seconds` (negative: backwards), nothing else moves.
    func stepWallClock(by seconds: TimeInterval) {
        move(boot: 0, monotonic: 0, wall: seconds)
    }

    private func arm(
        wallClock: Bool, _ nanoseconds: UInt64, _ handler: @escaping @Sendable () -> Void
    ) -> SuspendAwareTimerSource.Cancel {
        let id = state.withLock { state -> Int in
            state.next += 1
            let now = wallClock ? state.wall : state.monotonic
            state.wakes.append(Wake(id: state.next, wallClock: wallClock, at: now + nanoseconds, handler: handler))
            return state.next
        }
        onArm?(Double(nanoseconds) / 1e9)
        return { self.state.withLock { $0.wakes.removeAll { $0.id == id } } }
    }

    private func move(boot: TimeInterval, monotonic: TimeInterval, wall: TimeInterval) {
        let due = state.withLock { state -> [Wake] in
            state.boot += UInt64(boot * 1e9)
            state.monotonic += UInt64(monotonic * 1e9)
            state.wall = UInt64(Int64(state.wall) + Int64(wall * 1e9))
            let (wallNow, monotonicNow) = (state.wall, state.monotonic)
            let due = state.wakes.filter { $0.at <= ($0.wallClock ? wallNow : monotonicNow) }
            state.wakes.removeAll { $0.at <= ($0.wallClock ? wallNow : monotonicNow) }
            return due
        }
        due.forEach { $0.handler() }
    }
}
