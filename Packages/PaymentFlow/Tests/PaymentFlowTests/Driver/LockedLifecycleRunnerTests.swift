import Dispatch
import Foundation
import Synchronization
import Testing

@_spi(LifecycleRuntime) @testable import PaymentFlow

/// The deciding form of the one lifecycle runtime (what the headless browser runs on): decisions taken at
/// once on the caller's thread, effects performed on the queue in the order decided and admitted one at a
/// time, answers queued behind the current batch, timers on a stepped clock.
struct LockedLifecycleRunnerTests {
    /// A page that is open or closed. Opening asks for three effects; only an open page admits one.
    struct Door: AdmittingLifecycle {
        enum Event: Sendable, Equatable { case open, close, answered(Int), fired(String) }
        enum Effect: Sendable, Equatable { case greet(Int), answerNow(Int), echo(Int) }
        typealias TimerID = String
        /// How many events were handled when the effect was admitted.
        typealias Admission = Int
        var isOpen = false
        var handled: [Event] = []

        mutating func handle(_ event: Event) -> [Effect] {
            handled.append(event)
            switch event {
            case .open:
                isOpen = true
                return [.greet(1), .answerNow(1), .greet(2)]
            case .close:
                isOpen = false
                return []
            case .answered(let n): return n >= 100 ? [.echo(n)] : []
            case .fired: return []
            }
        }

        mutating func admit(_ effect: Effect) -> Int? {
            isOpen ? handled.count : nil
        }
    }

    /// Everything the performer saw, written on the runner's queue.
    final class Log: @unchecked Sendable {
        var lines: [String] = []
        var echoes: [Int] = []
    }

    func makeRunner(
        _ clock: LifecycleRunnerTests.SteppedSchedule = .init(),
        onGreet: @escaping @Sendable (LockedLifecycleRunner<Door>, Int) -> Void = { _, _ in }
    ) -> (LockedLifecycleRunner<Door>, Log) {
        let runner = LockedLifecycleRunner(Door(), queue: DispatchQueue(label: "test.locked"), schedule: clock.schedule)
        let log = Log()
        runner.setPerformer { runner, effect, handledWhenAdmitted in
            switch effect {
            case .greet(let n):
                log.lines.append("greet(\(n)) after \(handledWhenAdmitted) handled")
                onGreet(runner, n)
            case .answerNow(let n):
                log.lines.append("answerNow(\(n)) after \(handledWhenAdmitted) handled")
                runner.feed(.answered(n))
            case .echo(let n):
                log.echoes.append(n)
            }
        }
        return (runner, log)
    }

    @Test("a decision has taken effect when decideNow returns; its effects wait for the queue")
    func decidedAtOnce() {
        let (runner, log) = makeRunner()
        runner.queue.suspend()
        let open = runner.decideNow(.open) { $0.isOpen }
        #expect(open && runner.read(\.isOpen))
        #expect(runner.read(\.handled) == [.open])
        #expect(log.lines.isEmpty, "nothing is performed on the caller's thread")  // the queue runs nothing yet
        runner.queue.resume()
        runner.queue.sync {}
        #expect(log.lines.count == 3)
    }

    @Test("an answer fed while a batch is performed queues behind the batch's other effects")
    func answersQueueBehindTheBatch() {
        let (runner, log) = makeRunner()
        runner.decideNow(.open)
        runner.queue.sync {}
        #expect(runner.read(\.handled) == [.open, .answered(1)])
        // Re-entry would handle .answered(1) inside answerNow: greet(2) would be admitted after 2 handled.
        #expect(
            log.lines == [
                "greet(1) after 1 handled", "answerNow(1) after 1 handled", "greet(2) after 1 handled",
            ])
    }

    @Test("a close decided from inside an effect silences the rest of that batch")
    func aCloseBetweenTwoEffectsDropsTheRest() {
        let (runner, log) = makeRunner(onGreet: { runner, n in if n == 1 { runner.decideNow(.close) } })
        runner.decideNow(.open)
        runner.queue.sync {}
        #expect(!runner.read(\.isOpen))
        #expect(log.lines == ["greet(1) after 1 handled"], "answerNow(1) and greet(2) came after the close")
    }

    @Test("effects are performed in the order their events were decided, whichever thread decided them")
    func performedInDecidedOrder() async {
        let (runner, log) = makeRunner()
        runner.decideNow(.open)
        await withTaskGroup(of: Void.self) { group in
            for decider in 0..<4 {
                group.addTask {
                    for n in 0..<50 { runner.decideNow(.answered(1000 * (decider + 1) + n)) }
                }
            }
        }
        runner.queue.sync {}
        let decided = runner.read(\.handled).compactMap { event -> Int? in
            guard case .answered(let n) = event, n >= 100 else { return nil }
            return n
        }
        #expect(decided.count == 200)
        #expect(runner.queue.sync { log.echoes } == decided)
    }

    @Test("a timer feeds its event once; a cancelled or restarted one's late fire is dropped")
    func timers() {
        let clock = LifecycleRunnerTests.SteppedSchedule()
        let (runner, _) = makeRunner(clock)
        runner.queue.sync {
            runner.startTimer("load", after: 5, feeding: .fired("first"))
            runner.startTimer("load", after: 6, feeding: .fired("second"))
            runner.startTimer("gone", after: 1, feeding: .fired("gone"))
            runner.cancelTimer("gone")
        }
        #expect(clock.delays == [5, 6, 1] && clock.cancelled == [true, false, true])
        for index in 0..<3 { clock.fire(index) }
        clock.fire(1)
        runner.queue.sync {}
        #expect(runner.read(\.handled) == [.fired("second")])
        #expect(runner.queue.sync { runner.runningTimers } == 0)
    }
}
