import CGLib2
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import GLibMainQueue

/// GTKRuntime where no display is (this suite runs without Xvfb; it unsets DISPLAY and WAYLAND_DISPLAY
/// to be sure): a start fails with `.noDisplay`, again on every later call without asking GTK a second
/// time (GTK aborts on that), other threads are refused, nothing claims to be the GTK thread, and the bridge
/// is not installed by a failed start. The started side is proven by every suite under Xvfb (PaymentUI,
/// WebKitPresenter, egw-checkout), which all start GTK through GTKRuntime.
final class GTKRuntimeTests: XCTestCase {
    func testWithoutADisplayEveryStartFailsTheSameWayAndNothingIsTheGTKThread() {
        unsetenv("DISPLAY")
        unsetenv("WAYLAND_DISPLAY")
        let installedBefore = GLibMainQueue.isInstalled
        XCTAssertEqual(Self.start(), .noDisplay)
        XCTAssertEqual(Self.start(), .noDisplay, "a second start on the same thread")
        let others = Mutex<[GTKRuntime.StartFailure?]>([])
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<4 {
            Thread.detachNewThread {
                let answer = Self.start()
                others.withLock { $0.append(answer) }
                done.signal()
            }
        }
        for _ in 0..<4 { done.wait() }
        XCTAssertEqual(
            others.withLock { $0 }, Array(repeating: .notTheMainThread, count: 4), "GTK starts on the main thread only")
        XCTAssertFalse(GTKRuntime.isStarted)
        XCTAssertFalse(GTKRuntime.isGTKThread)
        XCTAssertEqual(GLibMainQueue.isInstalled, installedBefore, "a failed start installed the bridge")
    }

    /// GLib timeouts take whole milliseconds: a duration is rounded up, never down, so neither `after` nor
    /// `run(timeout:until:)` ends before its time (a 300 ms wait was once a 1 ms one: only whole seconds
    /// were counted). Values worked out by hand.
    func testDurationsBecomeWholeMillisecondsRoundedUp() {
        XCTAssertEqual(GTKRuntime.milliseconds(.milliseconds(300)), 300)
        XCTAssertEqual(GTKRuntime.milliseconds(.seconds(2)), 2000)
        XCTAssertEqual(GTKRuntime.milliseconds(.milliseconds(1500)), 1500)
        XCTAssertEqual(GTKRuntime.milliseconds(.microseconds(1)), 1, "a microsecond is not nothing")
        XCTAssertEqual(GTKRuntime.milliseconds(.microseconds(2001)), 3)
        XCTAssertEqual(GTKRuntime.milliseconds(.zero), 0)
        XCTAssertEqual(GTKRuntime.milliseconds(.milliseconds(-5)), 0)
        XCTAssertEqual(GTKRuntime.milliseconds(.seconds(Int64.max)), UInt32.max)
    }

    /// The failure `start()` throws, or nil when it started.
    private static func start() -> GTKRuntime.StartFailure? {
        do {
            try GTKRuntime.start()
            return nil
        } catch {
            return error
        }
    }
}
