import Dispatch
import Foundation
import LoopbackTestServer
import Synchronization
import Testing

@testable import PaymentFlow

/// The transport's total timeout against a suspend: libcurl's own timeout runs on its monotonic
/// clock, which does not see a sleep, so the transport must end the transfer itself.
@Suite struct SuspendedTransferTests {
    /// A request with an hour to go is in flight (the server read it and never answers) when the boot
    /// clock jumps past its deadline, as on resume from a long suspend: it ends as a timeout that
    /// says the request was sent, while libcurl's own clock still has almost the whole hour left.
    @Test func aTransferThatSleptThroughItsDeadlineEndsAsATimeout() throws {
        let slept = Atomic<UInt64>(0)
        let server = try LoopbackServer { _ in
            slept.store(3_601 * 1_000_000_000, ordering: .sequentiallyConsistent)  // the machine sleeps now
            return .hang
        }
        defer { server.stop() }
        let now: @Sendable () -> UInt64 = {
            SuspendAwareClock.nanoseconds() &+ slept.load(ordering: .sequentiallyConsistent)
        }
        let request = HTTPRequest(method: "POST", url: server.url("/pay"), body: Array("{}".utf8), timeout: 3_600)
        let result = Mutex<Result<HTTPResponse, TransportError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let outcome = CurlTransport.perform(request, options: .init(), start: now(), now: now)
            result.withLock { $0 = outcome }
            done.signal()
        }
        // Not a speed assertion: without the transport's own check the transfer lasts an hour.
        let ended = done.wait(timeout: .now() + 60) == .success
        #expect(ended, "the transfer was still running a minute after the deadline passed")
        guard ended else { return }
        let error = try #require(result.withLock { $0 }?.failure)
        #expect(error.kind == .timeout)
        #expect(error.delivery.requestStarted == true, "the server read the request: it was sent")
    }

    /// The progress callback that checks the deadline also carries the SDK's cancellation (a run that
    /// ended abandons its transfers): a cancelled transfer ends as cancelled, not as a timeout. A guard
    /// on the rewritten callback: it held before too, through the shim's own one.
    @Test func theSameCallbackStillHonoursACancellation() throws {
        let cancellation = TransferCancellation()
        let server = try LoopbackServer { _ in
            cancellation.cancel()  // the run gives up while the server holds the request
            return .hang
        }
        defer { server.stop() }
        let request = HTTPRequest(method: "POST", url: server.url("/pay"), body: Array("{}".utf8), timeout: 3_600)
        let result = Mutex<Result<HTTPResponse, TransportError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let outcome = CurlTransport.perform(request, options: .init(), cancellation: cancellation)
            result.withLock { $0 = outcome }
            done.signal()
        }
        let ended = done.wait(timeout: .now() + 60) == .success  // a hang guard, as above
        #expect(ended, "the cancelled transfer was still running a minute later")
        guard ended else { return }
        let error = try #require(result.withLock { $0 }?.failure)
        #expect(error.kind == .other)
        #expect(error.message.contains("cancelled"))
        #expect(error.delivery.requestStarted == true)
    }
}
