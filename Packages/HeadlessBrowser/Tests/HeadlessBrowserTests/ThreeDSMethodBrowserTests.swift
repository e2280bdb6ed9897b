import Foundation
import LoopbackTestServer
import PaymentFlow
import Testing

@testable import HeadlessBrowser

/// The 3DS Method in the headless browser: a form POST of `threeDSMethodData`, then only what the
/// ACS's page submits by itself; the browser data it reports is what it really sends.
@Suite struct ThreeDSMethodBrowserTests {
    static let html = [("Content-Type", "text/html; charset=utf-8")]
    static func autoPost(_ action: String) -> String {
        """
        <!doctype html><html><body><form method="post" action="\(action)" id="m">
        <input type="hidden" name="threeDSMethodData" value="ZG9uZQ"></form>
        <script>document.getElementById("m").submit();</script></body></html>
        """
    }

    func load(_ presenter: HeadlessBrowserPresenter, _ method: ThreeDSMethodRequest, _ handler: RecordingHandler) async
        -> Bool
    {
        await withCheckedContinuation { continuation in
            presenter.loadThreeDSMethod(method, handler: handler) { continuation.resume(returning: $0) }
        }
    }

    func end(_ presenter: HeadlessBrowserPresenter) async {
        await withCheckedContinuation { continuation in presenter.endThreeDSMethod { continuation.resume() } }
    }

    @Test func theMethodIsPostedAndItsPageEndsItselfWithoutTheBuyer() async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/acs/method": .html(200, Self.html, Self.autoPost("/gw/checkout/3ds/method-notification/s1"))
            case "/gw/checkout/3ds/method-notification/s1": .html(200, Self.html, "<p>ok</p>")
            default: .html(404, Self.html, "<h1>Not found</h1>")
            }
        }
        defer { server.stop() }
        let asked = EventLog<String>()
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { page, respond in
                asked.append(page.url.absoluteString)
                respond(.close)
            })
        let handler = RecordingHandler()
        let method = ThreeDSMethodRequest(
            url: server.url("/acs/method"), formFields: [(name: "threeDSMethodData", value: "bWV0aG9k")])
        #expect(await load(presenter, method, handler))
        let notification = server.url("/gw/checkout/3ds/method-notification/s1").absoluteString
        await handler.log.wait { $0.contains(.finished(notification)) }
        await end(presenter)
        let requests = server.requests
        #expect(requests.map(\.path) == ["/acs/method", "/gw/checkout/3ds/method-notification/s1"])
        #expect(String(decoding: requests[0].body, as: UTF8.self) == "threeDSMethodData=bWV0aG9k")
        #expect(handler.events.contains(.decide(notification)))
        #expect(asked.items.isEmpty, "no buyer is asked about an invisible page")
        // What the browser reports is what it sent.
        let report = presenter.browserData
        #expect(report.userAgent == requests[0].header("User-Agent"))
        #expect(report.acceptHeader == requests[0].header("Accept"))
        #expect(requests[0].header("Accept-Language")?.hasPrefix(report.language + ",") == true)
        #expect(!report.javascriptEnabled)
        #expect(report.screenWidth == nil && report.colorDepth == nil)
        #expect(report.timeZoneOffsetMinutes == -TimeZone.current.secondsFromGMT() / 60)
    }

    @Test func aMethodPageThatNeverPostsBackLeavesTheBrowserIdleUntilEnded() async throws {
        let server = try LoopbackServer { _ in .html(200, Self.html, "<p>collecting</p>") }
        defer { server.stop() }
        let presenter = HeadlessBrowserPresenter(script: .closeAtFirstPage)
        let handler = RecordingHandler()
        let method = ThreeDSMethodRequest(url: server.url("/acs/method"), formFields: [(name: "threeDSMethodData", value: "x")])
        #expect(await load(presenter, method, handler))
        await handler.log.wait { $0.contains(.finished(server.url("/acs/method").absoluteString)) }
        await end(presenter)
        #expect(!handler.events.contains(.closed), "the buyer never closes an invisible page")
        #expect(server.requests.count == 1)
        // A shown page is independent of the method's browser.
        #expect(!presenter.isPresenting)
    }
}
