import CGLib2
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import GLibMainQueue

/// The bridge against a bare GLib loop (no display): only `g_main_context_iteration` turns on the main
/// thread (XCTest on Linux runs every test there) and nothing else drains the main queue (no run loop,
/// no XCTest wait). The source is process-wide and permanent, so one test walks the order: before the
/// install, a block queued from another thread stays queued while GLib iterates; after it, the same
/// block runs, on the main thread; installing again, from many threads at once, is the same source.
final class GLibMainQueueTests: XCTestCase {
    func testTheMainQueueRunsInsideGLibsLoopOnceInstalledAndOnlyThen() {
        XCTAssertTrue(Thread.isMainThread)
        XCTAssertFalse(GLibMainQueue.isInstalled, "nothing in this process installed the source yet")

        let seen = Seen()
        let queued = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            DispatchQueue.main.async {
                seen.onMainThread.withLock { $0 = Thread.isMainThread }
                seen.runs.withLock { $0 += 1 }
            }
            queued.signal()
        }
        queued.wait()

        // Without the bridge: GLib iterates for half a second and the block does not run.
        iterate(for: 0.5) { seen.runs.withLock { $0 } > 0 }
        XCTAssertEqual(seen.runs.withLock { $0 }, 0, "the main queue ran with no bridge installed")

        // Installed from eight threads at once: one source, every caller told it is there.
        let answers = Mutex<[Bool]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let installed = GLibMainQueue.install()
            answers.withLock { $0.append(installed) }
        }
        XCTAssertEqual(answers.withLock { $0 }, Array(repeating: true, count: 8))
        let source = GLibMainQueue.sourceID
        XCTAssertNotEqual(source, 0)
        XCTAssertTrue(GLibMainQueue.install())
        XCTAssertEqual(GLibMainQueue.sourceID, source, "a second install added another source")

        // With it: the block already queued runs while GLib iterates, on the main thread, once.
        iterate(for: 5) { seen.runs.withLock { $0 } > 0 }
        XCTAssertEqual(seen.runs.withLock { $0 }, 1, "the queued block did not run inside GLib's loop")
        XCTAssertTrue(seen.onMainThread.withLock { $0 }, "the block ran off the main thread")

        // And work queued later, from another thread, wakes the loop again (the eventfd re-signals).
        let later = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            DispatchQueue.main.async { seen.runs.withLock { $0 += 1 } }
            later.signal()
        }
        later.wait()
        iterate(for: 5) { seen.runs.withLock { $0 } > 1 }
        XCTAssertEqual(seen.runs.withLock { $0 }, 2, "a block queued after the first drain did not run")
    }

    /// Iterates the default main context on this thread until `done` holds or `seconds` pass; a GLib
    /// timeout every 10 ms keeps a blocking iteration from waiting past the deadline.
    private func iterate(for seconds: Double, until done: () -> Bool) {
        let tick = g_timeout_add(10, { _ in gboolean(1) }, nil)
        defer { g_source_remove(tick) }
        let deadline = Date().addingTimeInterval(seconds)
        while !done() && Date() < deadline {
            _ = g_main_context_iteration(nil, 1)
        }
    }
}

/// What the queued blocks saw, shared between the test, the queuing threads and the main queue.
private final class Seen: Sendable {
    let runs = Mutex(0)
    let onMainThread = Mutex(false)
}
