import Dispatch
import Foundation
import Synchronization
import Testing

@_spi(LifecycleRuntime) @testable import PaymentFlow

/// The one lifecycle runtime on its own, with a machine that records what it was given: the order of
/// events and effects (the local event queue), and timers on a stepped clock (no real time waited).
struct LifecycleRunnerTests {
    /// Writes down every event it handles; `.go` asks for an effect that answers at once, then another.
    struct Recorder: Lifecycle {
        enum Event: Sendable, Equatable { case go, answered(Int), fired(String) }
        enum Effect: Equatable { case answerNow(Int), after }
        typealias TimerID = String
        var handled: [Event] = []
        mutating func handle(_ event: Event) -> [Effect] {
            handled.append(event)
            return event == .go ? [.answerNow(1), .after] : []
        }
    }

    /// A clock the test steps: every scheduled work is kept until the test fires it.
    final class SteppedSchedule: Sendable {
        private let works = Mutex<[(delay: TimeInterval, work: @Sendable () -> Void, cancelled: Bool)]>([])
        var schedule: LifecycleSchedule {
            { delay, work in
                let index = self.works.withLock { works in
                    works.append((delay, work, false))
                    return works.count - 1
                }
                return { self.works.withLock { $0[index].cancelled = true } }
            }
        }
        var delays: [TimeInterval] { works.withLock { $0.map(\.delay) } }
        var cancelled: [Bool] { works.withLock { $0.map(\.cancelled) } }
        /// Fires work `index` even if it was cancelled (a fire already on its way when the cancel came).
        func fire(_ index: Int) { works.withLock { $0[index].work }() }
    }

    /// Everything the test looks at, written on the runner's queue.
    final class Log: @unchecked Sendable {
        var lines: [String] = []
    }

    func makeRunner(_ clock: SteppedSchedule = SteppedSchedule()) -> (LifecycleRunner<Recorder>, Log) {
        let runner = LifecycleRunner(Recorder(), queue: DispatchQueue(label: "test.runner"), schedule: clock.schedule)
        let log = Log()
        runner.setPerformer { [unowned runner] effect in
            log.lines.append("\(effect) after \(runner.read(\.handled).count) handled")
            if case .answerNow(let n) = effect { runner.feed(.answered(n)) }
        }
        return (runner, log)
    }

    @Test("an effect that answers at once queues behind the current event's other effects, never re-enters")
    func answersQueueBehindTheCurrentEvent() {
        let (runner, log) = makeRunner()
        runner.queue.sync { runner.feed(.go) }
        #expect(runner.queue.sync { runner.read(\.handled) } == [.go, .answered(1)])
        // Re-entry would handle .answered(1) inside the first effect: `after` would see 2 events handled.
        #expect(log.lines == ["answerNow(1) after 1 handled", "after after 1 handled"])
    }

    @Test("posts from any thread are handled one at a time, each poster's in order")
    func postsAreSerial() async {
        let (runner, _) = makeRunner()
        await withTaskGroup(of: Void.self) { group in
            for poster in 0..<4 {
                group.addTask {
                    for n in 0..<50 { runner.post(.answered(poster * 1000 + n)) }
                }
            }
        }
        let handled = runner.queue.sync { runner.read(\.handled) }
        #expect(handled.count == 200)
        for poster in 0..<4 {
            let mine = handled.compactMap { event -> Int? in
                guard case .answered(let n) = event, n / 1000 == poster else { return nil }
                return n % 1000
            }
            #expect(mine == Array(0..<50))
        }
    }

    @Test("a timer feeds its event once, on the stepped clock, with the delay asked for")
    func timerFires() {
        let clock = SteppedSchedule()
        let (runner, _) = makeRunner(clock)
        runner.queue.sync { runner.startTimer("deadline", after: 30, feeding: .fired("deadline")) }
        #expect(clock.delays == [30])
        clock.fire(0)
        clock.fire(0)  // a clock that fires twice still feeds once
        let handled = runner.queue.sync { runner.read(\.handled) }
        #expect(handled == [.fired("deadline")])
        #expect(runner.queue.sync { runner.runningTimers } == 0)
    }

    @Test("a cancel wins over a fire already on its way; a restart drops the first timer's fire")
    func cancelAndRestartWin() {
        let clock = SteppedSchedule()
        let (runner, _) = makeRunner(clock)
        runner.queue.sync {
            runner.startTimer("a", after: 1, feeding: .fired("a"))
            runner.cancelTimer("a")
        }
        #expect(clock.cancelled == [true])
        clock.fire(0)
        runner.queue.sync {
            runner.startTimer("b", after: 1, feeding: .fired("b first"))
            runner.startTimer("b", after: 2, feeding: .fired("b second"))
        }
        #expect(clock.cancelled == [true, true, false], "the restart cancelled the first b")
        clock.fire(1)
        clock.fire(2)
        let handled = runner.queue.sync { runner.read(\.handled) }
        #expect(handled == [.fired("b second")])
    }

    @Test("cancelAllTimers cancels every running timer; none feeds afterwards")
    func cancelAll() {
        let clock = SteppedSchedule()
        let (runner, _) = makeRunner(clock)
        runner.queue.sync {
            runner.startTimer("1", after: 1, feeding: .fired("1"))
            runner.startTimer("2", after: 2, feeding: .fired("2"))
            runner.cancelAllTimers()
        }
        #expect(clock.cancelled == [true, true])
        clock.fire(0)
        clock.fire(1)
        #expect(runner.queue.sync { runner.read(\.handled) } == [])
    }
}
