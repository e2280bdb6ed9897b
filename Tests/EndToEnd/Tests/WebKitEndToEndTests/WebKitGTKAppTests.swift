import CGTK4
import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentFlow
import Synchronization
import WebKitPresenter
import XCTest

/// The presenter inside a small GTK app: a parent window the challenge is modal over, a box the
/// hosted page is shown in (kiosk), screenshots, and nothing written to HOME, XDG or TMPDIR.
/// The kit's `callbackQueue` is `.main` (the default) throughout: results arrive through the
/// GLib source on Dispatch's main-queue handle, on the GTK thread (checked by `runPayment`).
final class WebKitGTKAppTests: WebKitTestCase {
    /// The app's own window, shown.
    func appWindow(title: String) -> UnsafeMutablePointer<GtkWindow> {
        let widget = gtk_window_new()!
        let window = UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GtkWindow.self)
        gtk_window_set_title(window, title)
        gtk_window_set_default_size(window, 900, 700)
        gtk_window_present(window)
        return window
    }

    func payChallenge(with presenter: WebKitPagePresenter) throws -> (PaymentResult, String?) {
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration())
        let payment = sandbox.createPayment()
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        let result = try runPayment(presenter: presenter) { completion in
            kit.startCardPayment(
                request, card: testCard("5555 5555 5555 4444"), from: presenter, completion: completion)
        }
        return (result, sandbox.paymentStatus(payment.paymentId))
    }

    /// An app whose whole life is the loop (egw-checkout) runs it with GTKRuntime: a quit from another thread
    /// ends the innermost run only, Dispatch's main queue is drained inside the loop, and the outer run
    /// ends on its own quit. A watchdog quits twice after 10 s so that a wrong quit fails instead of hanging.
    func testAnAppsOwnLoopRunsUntilItIsQuitAndAQuitEndsTheInnermostRun() {
        let steps = LoopSteps()
        let note = steps.note
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            note("watchdog")
            GTKRuntime.quit()
            GTKRuntime.quit()
        }
        GTKRuntime.after(.milliseconds(1)) {
            note("inner")
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { GTKRuntime.quit() }
            GTKRuntime.runUntilQuit()
            note("inner ended")
            DispatchQueue.main.async {
                note("main queue")
                GTKRuntime.quit()
            }
        }
        GTKRuntime.runUntilQuit()
        XCTAssertEqual(steps.list.withLock { $0 }, ["inner", "inner ended", "main queue"])
    }

    func testChallengeModalOverTheAppWindow() throws {
        let window = appWindow(title: "Shop")
        defer { gtk_window_destroy(window) }
        let presenter = WebKitPagePresenter(
            host: .window(over: GObjectReference(retaining: UnsafeMutableRawPointer(window))),
            trust: PageTrust(configuration: sandbox.sdkConfiguration()),
            buyer: .answering(challengeCode: "1234"))
        let (result, status) = try payChallenge(with: presenter)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(status, "SETTLED")
        XCTAssertFalse(presenter.isPresenting)
    }

    /// The buyer presses the window's close button (GTK's close request): `pageWasClosedByBuyer`, and the
    /// SDK ends the challenge cancelled. The window is titled with the page's title and its origin.
    func testClosingTheChallengeWindowCancels() throws {
        let window = appWindow(title: "Shop")
        defer { gtk_window_destroy(window) }
        let closer = WindowCloser(parent: window)
        let presenter = WebKitPagePresenter(
            host: .window(over: GObjectReference(retaining: UnsafeMutableRawPointer(window))),
            trust: PageTrust(configuration: sandbox.sdkConfiguration()),
            buyer: WebBuyer(patience: .seconds(1)) { _, respond in
                // Stands for a person who reads the page, then closes the window with its button.
                DispatchQueue.main.async { closer.closeChallengeWindow() }
                respond(.wait)
            })
        let (result, status) = try payChallenge(with: presenter)
        XCTAssertEqual(result.outcome, .cancelled)
        XCTAssertNotEqual(status, "SETTLED")
        let origin =
            "\(sandbox.checkoutAPIBaseURL.scheme ?? "")://\(sandbox.checkoutAPIBaseURL.host ?? ""):\(sandbox.port)"
        XCTAssertEqual(closer.closedTitles, ["Sandbox issuer: confirm your payment — \(origin)"])
    }

    func testHostedPageInsideTheAppsBox() throws {
        let window = appWindow(title: "Kiosk")
        defer { gtk_window_destroy(window) }
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        gtk_window_set_child(window, box)
        let configuration = sandbox.sdkConfiguration()
        let presenter = WebKitPagePresenter(
            host: .container(GObjectReference(retaining: UnsafeMutableRawPointer(box))),
            trust: PageTrust(configuration: configuration),
            buyer: .answering(hosted: .pay))
        let payment = sandbox.createPayment()
        let request = PaymentRequest(
            paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: payment.checkoutURL,
            returnURL: payment.shopRedirectURL)
        let kit = PaymentKit(configuration: configuration)
        let result = try runPayment(presenter: presenter) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
        }
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "SETTLED")
        XCTAssertNil(gtk_widget_get_first_child(box), "the page's view left the box")
    }

    func testScreenshotsOfEveryPageTheBuyerSaw() throws {
        // Kept for a look after the run (replaced by the next one).
        let directory = GTK.privateRoot.appendingPathComponent("screenshots")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let presenter = WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(configuration: sandbox.sdkConfiguration()),
            buyer: .answering(challengeCode: "1234"), options: .init(screenshotsDirectory: directory))
        let (result, _) = try payChallenge(with: presenter)
        XCTAssertEqual(result.outcome, .succeeded)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(files, ["01-sandbox-issuer-confirm-your-payment.png"])
        let png = try Data(contentsOf: directory.appendingPathComponent(files.first ?? "none"))
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertGreaterThan(png.count, 5_000, "a rendered page, not a blank image")
    }

    func testPaymentsWriteNothingToHomeXDGOrTMPDIR() throws {
        let before = Self.files(under: GTK.privateRoot)
        let configuration = sandbox.sdkConfiguration()
        for script in [WebBuyer.answering(challengeCode: "1234"), .closeAtFirstPage] {
            let presenter = WebKitPagePresenter(
                host: .ownWindow, trust: PageTrust(configuration: configuration), buyer: script)
            _ = try payChallenge(with: presenter)
        }
        let presenter = WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(configuration: configuration),
            buyer: .answering(hosted: .pay))
        let payment = sandbox.createPayment()
        let request = PaymentRequest(
            paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: payment.checkoutURL,
            returnURL: payment.shopRedirectURL)
        let kit = PaymentKit(configuration: configuration)
        _ = try runPayment(presenter: presenter) { kit.startPayment(request, from: presenter, completion: $0) }
        let new = Self.files(under: GTK.privateRoot).subtracting(before)
        let found = RuntimeFiles(new, under: GTK.privateRoot)
        XCTAssertEqual(found.written, [], "files written under \(GTK.privateRoot.path)")
        for record in found.sandboxRecords {
            let text = try String(contentsOf: GTK.privateRoot.appendingPathComponent(record), encoding: .utf8)
            XCTAssertFalse(text.contains("127.0.0.1") || text.contains("pay_") || text.contains("cs_"), record)
        }
        // Read by WebKitRuntimeFilesTests, which runs this test in a child process with an AT-SPI bus and
        // checks after the child's exit that these sockets went with it.
        print("EGW-RUNTIME-SOCKETS: \(found.proxySockets.map { $0.components(separatedBy: "/").last ?? $0 }.sorted())")
    }

    /// A dismissed page leaves no web process behind: the count of WebKit web processes below this
    /// one comes back to what it was (found by the bench: a script still awaiting in a page that had
    /// navigated away kept its view, and so its web process, forever).
    func testDismissedPagesLeaveNoWebProcessBehind() throws {
        let presenter = WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(configuration: sandbox.sdkConfiguration()),
            buyer: .answering(challengeCode: "1234"))
        _ = try payChallenge(with: presenter)  // WebKit's shared processes are up
        let settled = { (limit: Int) -> Bool in
            GTKMainLoop.run(timeout: .seconds(15)) {
                // Another process's exit is no event of this loop: look again every 100 ms.
                DispatchQueue.main.asyncAfter(deadline: .now() + 0.1) {}
                return Self.webProcesses() <= limit
            }
        }
        XCTAssertTrue(settled(1), "the first page's web process is gone: \(Self.webProcesses())")
        let before = Self.webProcesses()
        for _ in 0..<3 {
            XCTAssertEqual(try payChallenge(with: presenter).0.outcome, .succeeded)
        }
        XCTAssertTrue(settled(before), "web processes: \(Self.webProcesses()), were \(before)")
    }

    /// WebKit web processes running below this process.
    static func webProcesses() -> Int {
        var parents: [Int32: (parent: Int32, name: String)] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) {
                parents[pid] = (parent, String(stat[stat.index(after: open)..<close]))
            }
        }
        var below: Set<Int32> = [getpid()]
        var changed = true
        while changed {
            changed = false
            for (pid, entry) in parents where !below.contains(pid) && below.contains(entry.parent) {
                below.insert(pid)
                changed = true
            }
        }
        return below.filter { parents[$0]?.name.hasPrefix("WebKitWebProces") == true }.count
    }

    /// Every regular file under `root`, by path relative to it.
    static func files(under root: URL) -> Set<String> {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var found: Set<String> = []
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                found.insert(path)
            }
        }
        return found
    }
}

/// Finds the page's window (the toplevel transient for the app's window) and asks GTK to close
/// it, as its close button does. Main thread only (the GTK thread).
final class WindowCloser: @unchecked Sendable {
    // @unchecked: used on the GTK thread only (main-queue blocks run there through the bridge).
    let parent: UnsafeMutablePointer<GtkWindow>
    var closedTitles: [String] = []

    init(parent: UnsafeMutablePointer<GtkWindow>) { self.parent = parent }

    func closeChallengeWindow() {
        let toplevels = gtk_window_get_toplevels()
        let count = g_list_model_get_n_items(toplevels)
        for index in 0..<count {
            guard let item = g_list_model_get_item(toplevels, index) else { continue }
            defer { g_object_unref(item) }
            let window = item.assumingMemoryBound(to: GtkWindow.self)
            guard gtk_window_get_transient_for(window) == parent else { continue }
            closedTitles.append(gtk_window_get_title(window).map { String(cString: $0) } ?? "")
            gtk_window_close(window)
        }
    }
}

/// What happened, in order, from any thread.
private final class LoopSteps: Sendable {
    let list = Mutex<[String]>([])
    @Sendable func note(_ step: String) { list.withLock { $0.append(step) } }
}
