import Foundation
import GatewaySandbox
import PaymentFlow
import Synchronization
import WebKitPresenter
import XCTest

/// GTK on XCTest's main thread, once, with Dispatch's main queue bridged into GLib's loop.
///
/// Before GTK and WebKit read them, HOME, the XDG directories and TMPDIR point into one fresh
/// directory (``GTK/privateRoot``), inherited by WebKit's processes, so a test can list every
/// file the browser wrote there.
enum GTK {
    static let privateRoot: URL = {
        // Under this package's .build (ignored by git), replaced at every run; a child run of this
        // bundle (WebKitRuntimeFilesTests) is given its own in EGW_WEBKIT_PRIVATE_ROOT.
        let root =
            ProcessInfo.processInfo.environment["EGW_WEBKIT_PRIVATE_ROOT"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../.build/webkit-private-root"
            ).standardizedFileURL
        try? FileManager.default.removeItem(at: root)
        for (variable, name) in [
            ("HOME", "home"), ("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"),
            ("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "runtime"), ("TMPDIR", "tmp"),
        ] {
            let directory = root.appendingPathComponent(name)
            try? FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            setenv(variable, directory.path, 1)
        }
        return root
    }()

    static let started: Bool = {
        _ = privateRoot
        do {
            try GTKMainLoop.start()
            return true
        } catch {
            return false
        }
    }()
}

/// The WebKit suites' base: GTK started (never skipped: without a display the test fails; make
/// test runs these under xvfb-run -a), and the shared sandbox's faults cleared around each test.
class WebKitTestCase: XCTestCase {
    var sandbox: Sandbox { SharedSandbox.instance }

    override func setUpWithError() throws {
        XCTAssertTrue(GTK.started, "GTK cannot open a display: run under xvfb-run -a")
        continueAfterFailure = GTK.started
        sandbox.clearFaults()
    }

    override func tearDown() { sandbox.clearFaults() }
}

/// The sandbox the WebKit suites share (XCTest runs them one after another).
enum SharedSandbox {
    static let instance: Sandbox = {
        do {
            return try Sandbox(configuration: .init(seed: 20))
        } catch {
            fatalError("the sandbox did not start: \(error)")
        }
    }()
}

extension Sandbox {
    func sdkConfiguration() -> PaymentFlow.Configuration {
        var configuration = PaymentFlow.Configuration(
            apiBaseURL: apiBaseURL, checkoutAPIBaseURL: checkoutAPIBaseURL, checkoutBaseURL: checkoutBaseURL,
            environment: .sandbox)
        configuration.requestTimeout = 5
        return configuration
    }

    var lastSequence: Int { requestLog.last?.sequence ?? 0 }
}

func testCard(_ number: String, code: String = "123") -> CardInput {
    CardInput(cardholderName: "Jane Doe", cardNumber: number, expiryMonth: "12", expiryYear: "35", securityCode: code)
}

/// Runs one payment with the GTK loop turning on this (main) thread and checks the callback
/// contract: exactly one result, on the main queue and the GTK thread, after the page is gone.
func runPayment(
    timeout: Duration = .seconds(40), presenter: WebKitPagePresenter, file: StaticString = #filePath,
    line: UInt = #line, _ start: (@escaping @Sendable (PaymentResult) -> Void) -> Void
) throws -> PaymentResult {
    try runPayment(timeout: timeout, pageGone: { !presenter.isPresenting }, file: file, line: line, start)
}

/// ``runPayment(timeout:presenter:file:line:_:)`` for any presenter: `pageGone` says whether its page is gone.
func runPayment(
    timeout: Duration = .seconds(40), pageGone: @escaping @Sendable () -> Bool, file: StaticString = #filePath,
    line: UInt = #line, _ start: (@escaping @Sendable (PaymentResult) -> Void) -> Void
) throws -> PaymentResult {
    let results = Mutex<[PaymentResult]>([])
    let violations = Mutex<[String]>([])
    start { result in
        dispatchPrecondition(condition: .onQueue(.main))
        if !GTKMainLoop.isGTKThread { violations.withLock { $0.append("result off the GTK thread") } }
        if !pageGone() { violations.withLock { $0.append("result before the page was gone") } }
        results.withLock { $0.append(result) }
    }
    let delivered = GTKMainLoop.run(timeout: timeout) { results.withLock { !$0.isEmpty } }
    XCTAssertTrue(delivered, "no result within \(timeout)", file: file, line: line)
    // Let what is queued behind the result run, so a second delivery would be seen.
    let settled = Atomic(false)
    DispatchQueue.main.async { DispatchQueue.main.async { settled.store(true, ordering: .releasing) } }
    GTKMainLoop.run(timeout: .seconds(5)) { settled.load(ordering: .acquiring) }
    for violation in violations.withLock({ $0 }) { XCTFail(violation, file: file, line: line) }
    let all = results.withLock { $0 }
    XCTAssertEqual(all.count, 1, "exactly one result", file: file, line: line)
    return try XCTUnwrap(all.first, file: file, line: line)
}

/// Collects a presenter's events.
final class EventLog: Sendable {
    private let events = Mutex<[WebKitPagePresenter.Event]>([])
    func record(_ event: WebKitPagePresenter.Event) { events.withLock { $0.append(event) } }
    var all: [WebKitPagePresenter.Event] { events.withLock { $0 } }
}
