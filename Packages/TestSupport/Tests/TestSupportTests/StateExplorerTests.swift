import StateExplorer
import XCTest

/// The explorer on a world small enough to walk by hand: a number, and two events, +1 and ×2.
/// From 1, three steps reach 2 | 3, 4 | 4, 6, 5, 8: seven distinct numbers with 1, in 2 + 2 + 4 steps
/// (each level expands only the numbers first seen at the level before).
final class StateExplorerTests: XCTestCase {
    private func walk(
        depth: Int = 3, violations: @escaping (Int) -> [String] = { _ in [] },
        expands: @escaping (Int) -> Bool = { _ in true }, stopsAtViolation: Bool = false
    ) -> ExplorationTotals {
        StateExplorer.breadthFirst(
            from: 1, depth: depth, fingerprint: { $0 }, successors: { [$0 + 1, $0 * 2] }, violations: violations,
            expands: expands, stopsAtViolation: stopsAtViolation)
    }

    func testEveryStateIsVisitedOnceAndEveryStepCounted() {
        let totals = walk()
        XCTAssertEqual(totals.states, 7)
        XCTAssertEqual(totals.transitions, 8)
        XCTAssertEqual(totals.violations, [])
    }

    func testViolationsAreFoundAndAViolatingStateCanEndItsBranch() {
        let five = walk(violations: { $0 == 5 ? ["five"] : [] })
        XCTAssertEqual(five.violations, ["five"])
        XCTAssertEqual(five.states, 7, "a violating state is still a state")
        let stopped = walk(violations: { $0 == 5 ? ["five"] : [] }, stopsAtViolation: true)
        XCTAssertEqual(stopped.states, 6, "5 was not walked into")
        XCTAssertEqual(walk(violations: { $0 == 1 ? ["start"] : [] }).violations, ["start"], "the start is checked")
    }

    func testAWorldThatDoesNotExpandEndsItsBranch() {
        // 2 is a dead end: only level one is reached.
        let totals = walk(expands: { $0 != 2 })
        XCTAssertEqual(totals.states, 2)
        XCTAssertEqual(totals.transitions, 2)
    }

    private static func depth(_ n: Int) -> Int { n == 0 ? 0 : 1 + depth(n - 1) }

    func testTheLargeStackHoldsADeepRecursion() {
        XCTAssertEqual(StateExplorer.onLargeStack { Self.depth(200_000) }, 200_000)
    }
}
