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
