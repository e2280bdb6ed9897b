import CGTK4
import Foundation
import GatewaySandbox
import Synchronization
import WebKitPresenter
import XCTest

@testable import PaymentFlow

/// What the page does that no navigation shows, in the real WebKit window against the real sandbox:
/// the `js` checkout's Pay `fetch` held by the gateway while the host cancels, and a web process killed
/// under an open page. Endings from CONTRACT.md 4a, checked against the sandbox's record.
final class WebKitPageActsTests: WebKitTestCase {
    override var sandbox: Sandbox { ScriptPagesTests.scripted }

    /// Where the window is saved at the buyer's press (look at it: the rendered `js` checkout).
    static let screenshots: URL = {
        let directory = GTK.privateRoot.deletingLastPathComponent().appendingPathComponent("page-acts-screenshots")
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }()

    func kit(repollInterval: TimeInterval) -> PaymentKit {
        let configuration = sandbox.sdkConfiguration()
        var dependencies = FlowDependencies.live(configuration: configuration)
        // The lookups after the cancel all end while the gateway still holds the POST.
        dependencies.statusRepollInterval = repollInterval
        return PaymentKit(configuration: configuration, resolver: nil, dependencies: dependencies)
    }

    /// Pays the `js` checkout with the sandbox holding the buyer's choice 1.5 s; `afterPress` runs 0.3 s
    /// after the buyer pressed Pay. The result, and the gateway's status once the held POST landed.
    func payWithTheChoiceHeld(
        host: WebKitPagePresenter.Host = .ownWindow, afterPress: @escaping @Sendable (PaymentKit) -> Void,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (PaymentResult, String?) {
        sandbox.inject(SandboxFault(endpoint: .hostedChoice, kind: .latency(.milliseconds(1500)), schedule: .next(1)))
        let kit = kit(repollInterval: 0.1)
        let payment = sandbox.createPayment()
        let events = EventLog()
        let presenter = WebKitPagePresenter(
            host: host, trust: PageTrust(configuration: sandbox.sdkConfiguration()),
            buyer: .answering(hosted: .pay), options: .init(screenshotsDirectory: Self.screenshots)
        ) { event in
            events.record(event)
            if case .buyerActed = event {
                DispatchQueue.main.asyncAfter(deadline: .now() + 0.3) { afterPress(kit) }
            }
        }
        let request = PaymentRequest(
            paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: payment.checkoutURL,
            returnURL: payment.shopRedirectURL)
        let result = try runPayment(presenter: presenter, file: file, line: line) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
        }
        XCTAssertTrue(events.all.contains(.buyerActed("press(\"pay\")")), "\(events.all)", file: file, line: line)
        XCTAssertTrue(
            events.all.contains { if case .sentRequest(_, "POST") = $0 { true } else { false } },
            "the page's Pay fetch was seen: \(events.all)", file: file, line: line)
        let saved = events.all.compactMap { if case .screenshot(let file) = $0 { file } else { nil } }
        XCTAssertFalse(saved.isEmpty, "the window at the press was saved", file: file, line: line)
        print("WebKitPageActs: the window at the press: \(saved.map(\.path))")
        // The held POST lands: the gateway settles the payment.
        let id = payment.paymentId
        let sandbox = sandbox
        GTKMainLoop.run(timeout: .seconds(10)) { sandbox.paymentStatus(id) == "SETTLED" }
        return (result, sandbox.paymentStatus(id))
    }

    /// Why list: the sandbox held the choice 1.5 s, the host cancelled 0.3 s after the press, and the SDK
    /// said `.cancelled` (status INITIALIZED) while the POST then settled the payment.
    func testACancelWhileTheScriptedPayIsHeldIsUnresolvedWhileTheGatewaySettles() throws {
        let (result, status) = try payWithTheChoiceHeld { kit in kit.cancel() }
        XCTAssertNotEqual(result.outcome, .cancelled)
        XCTAssertEqual(result.outcome, .unresolved, "\(result)")
        XCTAssertEqual(result.paymentStatus, "INITIALIZED", "what the gateway said while it held the POST")
        XCTAssertEqual(status, "SETTLED")
    }

    /// The same with the buyer closing the window (its close button: GTK's close-request) 0.3 s after.
    func testClosingTheWindowWhileTheScriptedPayIsHeldIsUnresolvedWhileTheGatewaySettles() throws {
        let widget = gtk_window_new()!
        let window = UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GtkWindow.self)
        gtk_window_set_title(window, "Shop")
        gtk_window_present(window)
        defer { gtk_window_destroy(window) }
        let closer = WindowCloser(parent: window)
        let (result, status) = try payWithTheChoiceHeld(
            host: .window(over: GObjectReference(retaining: UnsafeMutableRawPointer(window)))
        ) { _ in
            closer.closeChallengeWindow()
        }
        XCTAssertEqual(closer.closedTitles.count, 1, "the checkout window was closed")
        XCTAssertNotEqual(result.outcome, .cancelled)
        XCTAssertEqual(result.outcome, .unresolved, "\(result)")
        XCTAssertEqual(status, "SETTLED")
    }

    /// Why list: a killed web process was reported nowhere; the SDK waited for the buyer to close the
    /// blank window or for the 30-minute page deadline. The buyer here never acts and never closes.
    func testAKilledWebProcessEndsThePaymentAtOnce() throws {
        let kit = kit(repollInterval: 0.1)
        let payment = sandbox.createPayment()
        let killed = Mutex<[pid_t]>([])
        let buyer = WebBuyer { _, respond in
            killed.withLock { $0 += WebProcesses.killAll() }
            respond(.wait)
        }
        let presenter = WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(configuration: sandbox.sdkConfiguration()), buyer: buyer)
        let request = PaymentRequest(
            paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: payment.checkoutURL,
            returnURL: payment.shopRedirectURL)
        let result = try runPayment(timeout: .seconds(30), presenter: presenter) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
        }
        XCTAssertFalse(killed.withLock { $0 }.isEmpty, "a web process was killed")
        XCTAssertEqual(result.outcome, .failed, "\(result)")
        XCTAssertEqual(result.error?.paymentErrorCode, .presentationFailed)
        XCTAssertTrue(
            result.error?.localizedDescription.contains("web process") == true, "\(String(describing: result.error))")
        XCTAssertEqual(result.paymentStatus, "INITIALIZED")
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "INITIALIZED")
    }
}

/// This process's WebKit web processes (WebKitGTK starts them as its descendants).
enum WebProcesses {
    /// Kills (SIGKILL) every `WebKitWebProcess` descending from this process; their pids.
    static func killAll() -> [pid_t] {
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var parents: [pid_t: pid_t] = [:]
        var names: [pid_t: String] = [:]
        for entry in entries {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            names[pid] = String(stat[stat.index(after: open)..<close])
            let rest = stat[stat.index(after: close)...].split(separator: " ")
            if rest.count > 1, let parent = pid_t(rest[1]) { parents[pid] = parent }
        }
        func descends(_ pid: pid_t) -> Bool {
            var current = parents[pid]
            var hops = 0
            while let parent = current, hops < 16 {
                if parent == me { return true }
                current = parents[parent]
                hops += 1
            }
            return false
        }
        let targets = names.filter { $0.value.hasPrefix("WebKitWebProces") && descends($0.key) }.map(\.key)
        for pid in targets { kill(pid, SIGKILL) }
        return targets
    }
}
