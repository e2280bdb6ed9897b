import Dispatch
import Foundation
import Synchronization
import Testing

@testable import PaymentFlow

#if canImport(Glibc)
import Glibc
#endif

/// The SDK's timers against a simulated machine that sleeps: a suspend moves the boot and wall
/// clocks while the monotonic clock (the one `DispatchTime` reads on Linux) and every wake-up armed
/// on it stand still. Expected firings follow from the clocks the test moved, nothing else.
@Suite struct SuspendAwareClockTests {
    /// A timer on `machine`, counting its firings on a serial queue the test drains.
    final class Probe: Sendable {
        let queue = DispatchQueue(label: "suspend-aware-clock-tests")
        final class Count: Sendable { let value = Mutex(0) }
        private let count = Count()
        let timer: SuspendAwareClock.Timer

        init(_ machine: SimulatedMachine, after seconds: TimeInterval) {
            let count = self.count
            timer = SuspendAwareClock.Timer(after: seconds, source: machine.source, queue: queue) {
                count.value.withLock { $0 += 1 }
            }
        }

        /// Firings so far, once the work already queued has run.
        var fired: Int {
            queue.sync {}
            return count.value.withLock { $0 }
        }
    }

    @Test func aDeadlineThatASuspendPassedFiresOnResume() {
        let machine = SimulatedMachine()
        let probe = Probe(machine, after: 30)
        machine.run(for: 10)
        #expect(probe.fired == 0)
        machine.suspend(for: 3600)  // 20 s were left; the monotonic clock still says so
        #expect(probe.fired == 1)
        machine.run(for: 30)
        #expect(probe.fired == 1, "one-shot")
        #expect(machine.pendingWakes == 0, "nothing left armed")
    }

    @Test func aSuspendShorterThanWhatIsLeftCountsTowardsIt() {
        let machine = SimulatedMachine()
        let probe = Probe(machine, after: 30)
        machine.suspend(for: 25)
        #expect(probe.fired == 0)
        machine.run(for: 4.9)
        #expect(probe.fired == 0)
        machine.run(for: 0.2)  // 25 s asleep + 5.1 s awake: past 30 s
        #expect(probe.fired == 1)
    }

    @Test func aWallClockSteppedForwardDoesNotFireEarly() {
        let machine = SimulatedMachine()
        let probe = Probe(machine, after: 30)
        machine.stepWallClock(by: 3600)  // the wall wake-up comes, the boot clock says 30 s are left
        #expect(probe.fired == 0)
        machine.run(for: 29.9)
        #expect(probe.fired == 0)
        machine.run(for: 0.2)
        #expect(probe.fired == 1)
    }

    @Test func aWallClockSteppedBackwardDoesNotDelayIt() {
        let machine = SimulatedMachine()
        let probe = Probe(machine, after: 30)
        machine.stepWallClock(by: -3600)
        machine.run(for: 30.1)  // the monotonic wake-up fires it
        #expect(probe.fired == 1)
    }

    @Test func aCancelledTimerNeverFiresAndReleasesItsWakeUps() {
        let machine = SimulatedMachine()
        let probe = Probe(machine, after: 30)
        probe.timer.cancel()
        #expect(machine.pendingWakes == 0)
        machine.suspend(for: 3600)
        machine.run(for: 60)
        #expect(probe.fired == 0)
    }

    /// A cancel made on the timer's queue after the deadline passed but before the work started wins,
    /// as it does for a cancelled `DispatchWorkItem`.
    @Test func aCancelOnTheQueueBeforeTheWorkStartsWins() {
        let machine = SimulatedMachine()
        let probe = Probe(machine, after: 30)
        let held = DispatchSemaphore(value: 0)
        probe.queue.async { held.wait() }  // the queue is busy when the deadline passes
        machine.suspend(for: 3600)
        probe.timer.cancel()  // after the deadline, before the queue reached the work
        held.signal()
        #expect(probe.fired == 0)
    }

    /// The flow's own clock over the same machine: what a payment's watchdog sees.
    @Test func theFlowClockCountsASuspend() {
        let machine = SimulatedMachine()
        let clock = FlowClock.suspendAware(machine.source)
        let before = clock.now()
        let done = DispatchSemaphore(value: 0)
        _ = clock.schedule(35) { done.signal() }
        machine.suspend(for: 600)
        #expect(clock.now() - before == 600)
        // A hang guard, not a speed assertion: without the suspend counted, the timer never fires.
        #expect(done.wait(timeout: .now() + 30) == .success)
    }

    /// The live clock: `CLOCK_BOOTTIME` and real dispatch wake-ups (this machine cannot be suspended
    /// by a test: a smoke test that the live wiring fires at all).
    @Test func theLiveClockReadsBoottimeAndItsTimersFire() {
        var before = timespec()
        var after = timespec()
        clock_gettime(CLOCK_BOOTTIME, &before)
        let now = SuspendAwareClock.now()
        clock_gettime(CLOCK_BOOTTIME, &after)
        #expect(now >= Double(before.tv_sec) + Double(before.tv_nsec) / 1e9 - 1e-6)
        #expect(now <= Double(after.tv_sec) + Double(after.tv_nsec) / 1e9 + 1e-6)
        let fired = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "live-timer")
        SuspendAwareClock.schedule(after: 0.01, on: queue) {
            dispatchPrecondition(condition: .onQueue(queue))
            fired.signal()
        }
        #expect(fired.wait(timeout: .now() + 30) == .success, "a hang guard, not a speed assertion")
    }
}
