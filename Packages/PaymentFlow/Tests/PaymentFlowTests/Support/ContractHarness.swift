import Foundation
import Synchronization
import XCTest

@testable import PaymentFlow

/// Runs one payment and checks the callback contract on its way out: exactly
/// one result, on the main queue, after the page is gone, never inside `start`.
/// XCTest's `wait(for:)` drains the main queue on the main thread.
struct ContractHarness {
    final class Box: Sendable {
        let results = Mutex<[PaymentResult]>([])
        let violations = Mutex<[String]>([])
        let startReturned = Atomic<Bool>(false)
        func violation(_ text: String) { violations.withLock { $0.append(text) } }
    }

    /// Starts a payment through `start` (given the completion to pass on) and returns its result.

    static func run(
        _ testCase: XCTestCase, timeout: TimeInterval = 30, pageGone: @escaping @Sendable () -> Bool = { true },
        file: StaticString = #filePath, line: UInt = #line,
        _ start: (@escaping @Sendable (PaymentResult) -> Void) -> Void
    ) -> PaymentResult? {
        let box = Box()
        let delivered = testCase.expectation(description: "one result")
        start { result in
            dispatchPrecondition(condition: .onQueue(.main))
            if !box.startReturned.load(ordering: .sequentiallyConsistent) {
                box.violation("delivered synchronously inside start")
            }
            if !pageGone() { box.violation("delivered before the page was dismissed") }
            box.results.withLock { $0.append(result) }
            delivered.fulfill()  // over-fulfilment fails the test: a second result
        }
        box.startReturned.store(true, ordering: .sequentiallyConsistent)
        testCase.wait(for: [delivered], timeout: timeout)
        // Let anything already queued behind the result run, so a second delivery would be seen.
        let drained = testCase.expectation(description: "main queue drained")
        DispatchQueue.main.async { DispatchQueue.main.async { drained.fulfill() } }
        testCase.wait(for: [drained], timeout: timeout)
        for violation in box.violations.withLock({ $0 }) { XCTFail(violation, file: file, line: line) }
        let results = box.results.withLock { $0 }
        XCTAssertEqual(results.count, 1, "exactly one result", file: file, line: line)
        return results.first
    }
}

/// Test dependencies: the given transport as is (no retries unless asked), a clock, sequential UUIDs.
func stubDependencies(
    _ transport: any HTTPTransport, clock: FlowClock = .live, retries: Bool = false, presenterTimeout: TimeInterval = 60
) -> FlowDependencies {
    let counter = Atomic<UInt64>(0)
    let wrapped: any HTTPTransport =
        retries
        ? RetryingTransport(base: transport, policy: RetryPolicy(maxAttempts: 3, baseDelay: 0.001, maxDelay: 0.002))
        : transport
    return FlowDependencies(
        transport: wrapped, clock: clock,
        uuid: {
            let n = counter.wrappingAdd(1, ordering: .relaxed).newValue
            return UUID(uuidString: String(format: "00000000-0000-4000-8000-%012llx", n))!
        },
        encrypt: FlowDependencies.liveEncrypt, presenterTimeout: presenterTimeout)
}
