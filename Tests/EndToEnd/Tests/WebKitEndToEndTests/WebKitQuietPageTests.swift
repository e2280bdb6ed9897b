import Foundation
import LoopbackTestServer
import PaymentFlow
import Synchronization
import WebKitPresenter
import XCTest

/// Issue 29 (5): the presenter's WebKit fetches only what the page asks for. A page that names an
/// icon and links to hosts nobody configured gets no icon fetch (no favicon database), and, run under
/// Tests/Interop/test_connections_recorded.py's recorder, no name lookup of the linked hosts (no DNS
/// prefetching). The page's own request for `/done`, sent a while after it loaded, marks the end.
final class WebKitQuietPageTests: WebKitTestCase {
    func testAPageWithAnIconAndForeignLinksFetchesOnlyWhatItAsksFor() throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/quiet":
                return .html(
                    200, [],
                    """
                    <!DOCTYPE html><html><head><title>Quiet</title>
                    <link rel="icon" href="/icon.png"><link rel="apple-touch-icon" href="/touch.png"></head><body>
                    <a href="http://prefetch-probe.egw-quiet.invalid/">one</a>
                    <a href="https://second-probe.egw-quiet.invalid/path">two</a>
                    <script>window.addEventListener("load", () => setTimeout(() => fetch("/done"), 500));</script>
                    </body></html>
                    """)
            default:
                return .http(204)
            }
        }
        defer { server.stop() }
        let handler = RecordingHandler()
        let presenter = WebKitPagePresenter(host: .ownWindow, trust: PageTrust(allowsPlainHTTP: true))
        presenter.present(PageRequest(url: server.url("/quiet"), purpose: .hostedCheckout), handler: handler) { _ in }
        XCTAssertTrue(
            GTKMainLoop.run(timeout: .seconds(15)) { server.requests.contains { $0.path == "/done" } },
            "\(handler.events)")
        // A moment more for anything WebKit would send on its own after the page's last request.
        _ = GTKMainLoop.run(timeout: .milliseconds(300), until: { false })
        XCTAssertEqual(server.requests.map(\.path), ["/quiet", "/done"])
        let gone = Atomic(false)
        presenter.dismiss { gone.store(true, ordering: .releasing) }
        XCTAssertTrue(GTKMainLoop.run(timeout: .seconds(10)) { gone.load(ordering: .acquiring) })
    }

    /// `Configuration.proxy = .url(...)` reaches the page's session: every load goes to that proxy, in
    /// the absolute form, even for a host no resolver knows (WebKit never looked it up itself).
    func testAConfiguredProxyGetsEveryLoadOfThePage() throws {
        let proxy = try LoopbackServer { _ in
            .html(200, [], "<!DOCTYPE html><html><head><title>Via proxy</title></head><body>ok</body></html>")
        }
        defer { proxy.stop() }
        var configuration = PaymentFlow.Configuration(environment: .sandbox)
        configuration.proxy = .url(proxy.baseURL)
        let handler = RecordingHandler()
        let presenter = WebKitPagePresenter(host: .ownWindow, trust: PageTrust(configuration: configuration))
        let page = try XCTUnwrap(URL(string: "http://checkout.egw-proxy-test.invalid/page"))
        presenter.present(PageRequest(url: page, purpose: .hostedCheckout), handler: handler) { _ in }
        XCTAssertTrue(
            GTKMainLoop.run(timeout: .seconds(15)) { handler.events.contains("loaded \(page.absoluteString)") },
            "\(handler.events)")
        XCTAssertEqual(proxy.requests.map(\.target), [page.absoluteString])
        let gone = Atomic(false)
        presenter.dismiss { gone.store(true, ordering: .releasing) }
        XCTAssertTrue(GTKMainLoop.run(timeout: .seconds(10)) { gone.load(ordering: .acquiring) })
    }
}
