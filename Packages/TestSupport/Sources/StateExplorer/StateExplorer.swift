import Foundation
import Synchronization

/// What a walk found: how many distinct states it reached, how many steps it took, and every broken
/// rule it met (in the order met).
public struct ExplorationTotals: Sendable {
    /// Distinct states reached (by fingerprint), the start included.
    public var states = 0
    /// Steps taken: one per successor of every world walked from.
    public var transitions = 0
    /// Every broken rule met, in the order met.
    public var violations: [String] = []

    /// Nothing walked yet.
    public init() {}
}

/// The one explorer every lifecycle's exploration uses (payment, browser session, wallet context,
/// sheet): a world is the machine under test plus the model that owns the truth; the explorer knows
/// nothing of either.
public enum StateExplorer {
    /// Walks breadth first from `start` through every ordering of events up to `depth` steps, visiting
    /// each distinct state (by `fingerprint`) once.
    ///
    /// - Parameters:
    ///   - successors: every world one event away (the event applied to a copy).
    ///   - violations: the rules a world breaks (checked on `start` and on every successor).
    ///   - expands: whether to walk on from a world (false for an ended one).
    ///   - stopsAtViolation: a world that breaks a rule is not walked on from (its successors would
    ///     repeat the same finding).
    ///   - maximumViolations: the walk ends (after the world being expanded) once more than this many
    ///     were found.
    public static func breadthFirst<World, Fingerprint: Hashable>(
        from start: World, depth: Int, fingerprint: (World) -> Fingerprint, successors: (World) -> [World],
        violations: (World) -> [String], expands: (World) -> Bool = { _ in true }, stopsAtViolation: Bool = false,
        maximumViolations: Int = .max
    ) -> ExplorationTotals {
        var totals = ExplorationTotals()
        totals.violations = violations(start)
        var seen: Set<Fingerprint> = [fingerprint(start)]
        var frontier = [start]
        walk: for _ in 0..<depth {
            var next: [World] = []
            for world in frontier where expands(world) {
                for successor in successors(world) {
                    totals.transitions += 1
                    let broken = violations(successor)
                    totals.violations += broken
                    if stopsAtViolation && !broken.isEmpty { continue }
                    if seen.insert(fingerprint(successor)).inserted { next.append(successor) }
                }
                if totals.violations.count > maximumViolations { break walk }
            }
            frontier = next
        }
        totals.states = seen.count
        return totals
    }

    /// Runs `walk` on a thread of its own with a 256 MiB stack (a depth-first walk recurses once per
    /// step) and returns its answer; the caller waits.
    public static func onLargeStack<Answer: Sendable>(_ walk: @escaping @Sendable () -> Answer) -> Answer {
        let result = Mutex<Answer?>(nil)
        let done = DispatchSemaphore(value: 0)
        let walker = Thread {
            result.withLock { $0 = walk() }
            done.signal()
        }
        walker.stackSize = 1 << 28
        walker.start()
        done.wait()
        return result.withLock { $0! }
    }
}

/// A world driven by events: the enabled events, applying one, settling (answering everything still
/// pending, to see where the world ends) and the rules broken so far. Its successors and the
/// violations it shows settled or not come with it.
public protocol EventDrivenWorld {
    associatedtype Event
    /// The events that may come next.
    var enabled: [Event] { get }
    /// The rules broken so far.
    var violations: [String] { get }
    mutating func apply(_ event: Event)
    /// Answers everything pending (the world's own notion of the quickest ending).
    mutating func settle()
}

extension EventDrivenWorld {
    /// Every world one enabled event away.
    public var successors: [Self] {
        enabled.map { event in
            var next = self
            next.apply(event)
            return next
        }
    }

    /// The rules this world breaks, and those it breaks once settled.
    public var violationsSettledOrNot: [String] {
        var settled = self
        settled.settle()
        return violations + settled.violations
    }
}
