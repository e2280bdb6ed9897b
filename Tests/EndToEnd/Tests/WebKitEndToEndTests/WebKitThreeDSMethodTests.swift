import CGTK4
import Foundation
import GatewaySandbox
import LoopbackTestServer
import PaymentFlow
import Synchronization
import WebKitPresenter
import XCTest

/// The 3-D Secure browser flow through the WebKit presenter under Xvfb (issue 31): the sandbox's
/// method cards (its README's table) with the method loaded in WebKit's invisible view, the browser
/// data the presenter reports compared with what a page in the same presenter, on the same screen,
/// reports of itself, and the challenge window opened at the EMV size the presenter named. The slow
/// method's measured wait is printed, never asserted.
final class WebKitThreeDSMethodTests: WebKitTestCase {
    /// Pays `number` through a WebKit window; returns the result, the sandbox's log of the run (the
    /// session's requests and the issuer's pages), the presenter's events and the seconds spent in the method.
    func pay(
        _ number: String, script: WebBuyer, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (
        PaymentResult, [SandboxRequestLogEntry], [WebKitPagePresenter.Event], Double?
    ) {
        let configuration = sandbox.sdkConfiguration()
        let kit = PaymentKit(configuration: configuration)
        let payment = sandbox.createPayment()
        let events = EventLog()
        let presenter = WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(configuration: configuration), buyer: script, onEvent: events.record)
        let since = sandbox.lastSequence
        let times = Mutex<(start: ContinuousClock.Instant?, end: ContinuousClock.Instant?)>((nil, nil))
        let options = PaymentOptions(observer: { event in
            guard case .transition(let step) = event else { return }
            if step.to == "runningThreeDSMethod" { times.withLock { $0.start = .now } }
            if step.to == "endingThreeDSMethod" { times.withLock { $0.end = .now } }
        })
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        let toplevels = g_list_model_get_n_items(gtk_window_get_toplevels())
        let result = try runPayment(timeout: .seconds(60), presenter: presenter, file: file, line: line) { completion in
            kit.startCardPayment(
                request, card: testCard(number), from: presenter, options: options, completion: completion)
        }
        XCTAssertEqual(
            g_list_model_get_n_items(gtk_window_get_toplevels()), toplevels, "no window left behind", file: file,
            line: line)
        let session = result.sessionId ?? "none"
        let log = sandbox.requestLog.filter { entry in
            entry.sequence > since
                && (entry.path.contains(session) || entry.endpoint == .acsMethod || entry.endpoint == .acsChallenge)
        }
        let waited = times.withLock { times -> Double? in
            guard let start = times.start, let end = times.end else { return nil }
            let elapsed = end - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        return (result, log, events.all, waited)
    }

    static func compInd(_ log: [SandboxRequestLogEntry]) -> String? {
        log.first { $0.endpoint == .authentication }?.threeDSCompInd
    }

    func testAFastMethodInTheInvisibleViewPaysFrictionlesslyWithY() throws {
        // A challenge would be closed: only a frictionless payment succeeds.
        let (result, log, events, waited) = try pay("4000 0000 0000 2107", script: .closeAtFirstPage)
        XCTAssertEqual(result.outcome, .succeeded, "\(log)")
        XCTAssertEqual(Self.compInd(log), "Y")
        XCTAssertTrue(log.contains { $0.endpoint == .acsMethod }, "WebKit loaded the method page")
        XCTAssertTrue(log.contains { $0.endpoint == .methodNotification }, "the method's page posted back")
        XCTAssertFalse(log.contains { $0.endpoint == .acsChallenge }, "frictionless: no challenge page")
        XCTAssertFalse(
            events.contains { if case .presented = $0 { true } else { false } }, "the method is never shown: \(events)")
        XCTAssertFalse(
            events.contains { if case .buyerAsked = $0 { true } else { false } }, "no buyer is asked about the method")
        print("3DS Method (fast) in WebKit took \(waited.map { String(format: "%.3f", $0) } ?? "?") s")
    }

    func testASlowMethodInTheInvisibleViewIsCutAndSaysN() throws {
        let (result, log, events, waited) = try pay("4000 0000 0000 2206", script: .answering(challengeCode: "1234"))
        XCTAssertEqual(result.outcome, .succeeded, "a cut method never fails the payment (challenge, 1234)")
        // The method page answers after 12 s, so its log entry may come after the run: the presenter's
        // own record of the SDK allowing the method's POST says WebKit went to load it.
        XCTAssertTrue(
            events.contains { if case .decided(let url, .allow) = $0 { url.path == "/acs/method" } else { false } },
            "WebKit posted to the method URL: \(events)")
        XCTAssertEqual(Self.compInd(log), "N")
        XCTAssertFalse(log.contains { $0.endpoint == .methodNotification }, "cut before the page posted back")
        XCTAssertTrue(log.contains { $0.endpoint == .acsChallenge })
        print("3DS Method (slow, 12 s) in WebKit cut after \(waited.map { String(format: "%.3f", $0) } ?? "?") s")
    }

    /// A page that reports `script`'s JSON by navigating to `/report?<json>`; the handler records it.
    final class ReportHandler: PageEventHandler {
        private let reported = Mutex<String?>(nil)
        var json: String? { reported.withLock { $0 } }
        func page(decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void) {
            if url.path == "/report", let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.query {
                reported.withLock { $0 = query.removingPercentEncoding }
                decisionHandler(.cancel)
                return
            }
            decisionHandler(.allow)
        }
        func pageDidFinishLoad(_ url: URL) {}
        func pageDidFailLoad(_ url: URL, reason: String) {}
        func pageWasClosedByBuyer() {}
    }

    struct PageFacts: Decodable {
        var screenWidth: Int
        var screenHeight: Int
        var colorDepth: Int
        var language: String
        var timeZoneOffset: Int
        var userAgent: String
        var innerWidth: Int
        var innerHeight: Int
    }

    /// What a page shown by `presenter` (purpose `purpose`) reports of its browser.
    func pageFacts(
        in presenter: WebKitPagePresenter, purpose: PageRequest.Purpose, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> PageFacts {
        let server = try LoopbackServer { _ in
            .html(
                200, [],
                """
                <!DOCTYPE html><html><head><title>Facts</title></head><body>
                <script>window.addEventListener("load", () => setTimeout(() => {
                  const facts = {screenWidth: screen.width, screenHeight: screen.height, colorDepth: screen.colorDepth,
                    language: navigator.language, timeZoneOffset: new Date().getTimezoneOffset(),
                    userAgent: navigator.userAgent, innerWidth: window.innerWidth, innerHeight: window.innerHeight};
                  location.href = "/report?" + encodeURIComponent(JSON.stringify(facts));
                }, 200));</script>
                </body></html>
                """)
        }
        defer { server.stop() }
        let handler = ReportHandler()
        presenter.present(PageRequest(url: server.url("/start"), purpose: purpose), handler: handler) { _ in }
        XCTAssertTrue(
            GTKMainLoop.run(timeout: .seconds(15)) { handler.json != nil }, "the page reported", file: file, line: line)
        let gone = Atomic(false)
        presenter.dismiss { gone.store(true, ordering: .releasing) }
        XCTAssertTrue(
            GTKMainLoop.run(timeout: .seconds(10)) { gone.load(ordering: .acquiring) }, file: file, line: line)
        let json = try XCTUnwrap(handler.json, file: file, line: line)
        return try JSONDecoder().decode(PageFacts.self, from: Data(json.utf8))
    }

    func reported(
        by presenter: WebKitPagePresenter, file: StaticString = #filePath, line: UInt = #line
    ) throws
        -> ThreeDSBrowserData
    {
        let answer = Mutex<ThreeDSBrowserData??>(nil)
        presenter.reportBrowserData { data in answer.withLock { $0 = .some(data) } }
        XCTAssertTrue(GTKMainLoop.run(timeout: .seconds(5)) { answer.withLock { $0 != nil } }, file: file, line: line)
        return try XCTUnwrap(answer.withLock { $0 } ?? nil, "the presenter says what it is", file: file, line: line)
    }

    func testTheReportedBrowserIsWhatAPageInThePresenterSees() throws {
        let presenter = WebKitPagePresenter(host: .ownWindow, trust: PageTrust(allowsPlainHTTP: true))
        let data = try reported(by: presenter)
        let page = try pageFacts(in: presenter, purpose: .hostedCheckout)
        XCTAssertEqual(data.screenWidth, page.screenWidth)
        XCTAssertEqual(data.screenHeight, page.screenHeight)
        XCTAssertEqual(data.colorDepth, page.colorDepth)
        XCTAssertEqual(data.language, page.language)
        XCTAssertEqual(data.timeZoneOffsetMinutes, page.timeZoneOffset)
        XCTAssertEqual(data.userAgent, page.userAgent)
        XCTAssertTrue(data.javascriptEnabled, "the page's script ran")
        XCTAssertEqual(data.javaEnabled, false)
    }

    func testTheChallengeWindowOpensAtTheSizeNamed() throws {
        let presenter = WebKitPagePresenter(host: .ownWindow, trust: PageTrust(allowsPlainHTTP: true))
        let named = try XCTUnwrap(try reported(by: presenter).challengeWindowSize.size, "a window of its own: a size")
        let page = try pageFacts(in: presenter, purpose: .challenge)
        XCTAssertEqual(page.innerWidth, named.width)
        XCTAssertEqual(page.innerHeight, named.height)
    }
}
