import CGTK4
import Foundation
import LoopbackTestServer
import PaymentFlow
import Synchronization
import WebKitPresenter
import XCTest

/// Pop-ups never open a window the SDK does not know: a `target=_blank` link and `window.open`
/// load in the same view, through the same decision as any navigation. Pages from a small
/// loopback server (HeadlessBrowser's test server), driven by the page's own script.
final class WebKitPopupTests: WebKitTestCase {
    func check(popup script: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/start":
                return .html(
                    200, [],
                    """
                    <!DOCTYPE html><html><head><title>Start</title></head><body>
                    <a id="out" href="/popup" target="_blank">Open</a>
                    <script>window.addEventListener("load", () => setTimeout(() => { \(script) }, 50));</script>
                    </body></html>
                    """)
            default:
                return .html(200, [], "<!DOCTYPE html><html><head><title>Popup</title></head><body>ok</body></html>")
            }
        }
        defer { server.stop() }
        let handler = RecordingHandler()
        let toplevels = g_list_model_get_n_items(gtk_window_get_toplevels())
        let presenter = WebKitPagePresenter(host: .ownWindow, trust: PageTrust(allowsPlainHTTP: true))
        presenter.present(PageRequest(url: server.url("/start"), purpose: .hostedCheckout), handler: handler) { _ in }
        let popup = server.url("/popup").absoluteString
        XCTAssertTrue(
            GTKMainLoop.run(timeout: .seconds(15)) { handler.events.contains("loaded \(popup)") }, "\(handler.events)",
            file: file, line: line)
        XCTAssertEqual(
            handler.events,
            [
                "asked \(server.url("/start").absoluteString)", "loaded \(server.url("/start").absoluteString)",
                "asked \(popup)", "loaded \(popup)",
            ], file: file, line: line)
        XCTAssertEqual(
            g_list_model_get_n_items(gtk_window_get_toplevels()), toplevels + 1, "only the page's own window",
            file: file, line: line)
        let gone = Atomic(false)
        presenter.dismiss { gone.store(true, ordering: .releasing) }
        XCTAssertTrue(GTKMainLoop.run(timeout: .seconds(10)) { gone.load(ordering: .acquiring) })
    }

    func testTargetBlankLoadsInTheSameView() throws {
        try check(popup: #"document.getElementById("out").click();"#)
    }

    func testWindowOpenLoadsInTheSameView() throws {
        try check(popup: #"window.open("/popup", "_blank");"#)
    }
}
