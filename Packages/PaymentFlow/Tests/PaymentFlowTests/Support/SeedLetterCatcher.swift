import Dispatch
import Foundation
import PaymentFlow
import Synchronization
import XCTest

/// Records what one `start...` call delivers: every result, whether it came on the main queue (a
/// `dispatchPrecondition`, as STYLE.md asks) and whether it came after `start...` returned.
final class SeedLetterCatcher: Sendable {
    let name: String
    let arrived: XCTestExpectation
    private let checksCallbackQueue: Bool
    private let delivered = Mutex<[PaymentResult]>([])
    private let problems = Mutex<[String]>([])
    private let returned = Atomic<Bool>(false)

    /// `checksCallbackQueue` is false for the `async` overloads, whose result resumes the awaiting task.
    init(_ name: String, in testCase: XCTestCase, checksCallbackQueue: Bool = true) {
        self.name = name
        self.checksCallbackQueue = checksCallbackQueue
        arrived = testCase.expectation(description: name)
        arrived.assertForOverFulfill = false  // counted below, with the name in the message
    }

    var deliver: @Sendable (PaymentResult) -> Void {
        { [self] result in
            if checksCallbackQueue {
                dispatchPrecondition(condition: .onQueue(.main))
                if !returned.load(ordering: .sequentiallyConsistent) {
                    problems.withLock { $0.append("delivered synchronously inside start") }
                }
            }
            delivered.withLock { $0.append(result) }
            arrived.fulfill()
        }
    }

    func startDidReturn() { returned.store(true, ordering: .sequentiallyConsistent) }

    var results: [PaymentResult] { delivered.withLock { $0 } }

    /// Exactly one result, delivered as the callback contract says.
    func checkContract(file: StaticString = #filePath, line: UInt = #line) {
        for problem in problems.withLock({ $0 }) { XCTFail("\(name): \(problem)", file: file, line: line) }
        XCTAssertEqual(results.count, 1, "\(name): exactly one result", file: file, line: line)
    }

    /// Lets everything already queued on the main queue run, so a late second delivery would be seen.
    static func drainMainQueue(_ testCase: XCTestCase) {
        let drained = testCase.expectation(description: "main queue drained")
        DispatchQueue.main.async { DispatchQueue.main.async { drained.fulfill() } }
        testCase.wait(for: [drained], timeout: 10)
    }
}

/// A presenter that shows the page, lets its first load finish, then keeps it open until the test moves
/// it on (`navigate(to:)`): a payment that runs for as long as the test needs.
final class SeedLetterHeldPresenter: PaymentPresenter {
    private struct State {
        var pages: [PageRequest] = []
        var handler: (any PageEventHandler)?
        var dismissCalls = 0
        var shown = false
    }

    private let state = Mutex(State())
    private let loaded: XCTestExpectation?

    init(loaded: XCTestExpectation? = nil) { self.loaded = loaded }

    var presents: Int { state.withLock { $0.pages.count } }
    var dismissCalls: Int { state.withLock { $0.dismissCalls } }
    var pageGone: Bool { state.withLock { !$0.shown } }

    func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
        state.withLock {
            $0.pages.append(page)
            $0.handler = handler
            $0.shown = true
        }
        let loaded = self.loaded
        DispatchQueue.global().async {
            completion(true)
            handler.page(decidePolicyFor: page.url) { decision in
                guard decision == .allow else { return }
                handler.pageDidFinishLoad(page.url)
                loaded?.fulfill()
            }
        }
    }

    /// The page asks to go to `url` (the SDK answers asynchronously).
    func navigate(to url: URL) {
        let handler = state.withLock { $0.handler }
        handler?.page(decidePolicyFor: url) { _ in }
    }

    func dismiss(completion: @escaping @Sendable () -> Void) {
        state.withLock { $0.dismissCalls += 1 }
        DispatchQueue.global().async {
            self.state.withLock {
                $0.shown = false
                $0.handler = nil
            }
            completion()
        }
    }
}
