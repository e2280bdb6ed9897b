import Foundation
import PaymentFlow
import Testing

@testable import HeadlessBrowser

/// The executor's own timer: a transport that never answers does not leave the page waiting.
@Suite(.timeLimit(.minutes(1))) struct BrowserExecutorTests {
    @Test func aLoadTheTransportNeverAnswersFailsWhenItsWatchdogFires() async {
        let transport = FakeTransport { _ in .hold }
        let events = EventLog<BrowserEvent>()
        let settings = BrowserSession.Settings(
            pageTimeout: 1, maxRedirects: 1, maxAutomaticSubmissions: 1, loadGrace: 0)
        let executor = BrowserExecutor(
            session: BrowserSession(settings: settings), script: .always(.wait), transport: transport,
            onEvent: { events.append($0) })
        let handler = RecordingHandler()
        let url = URL(string: "http://gw.example/slow")!
        let shown = await withCheckedContinuation { continuation in
            executor.present(PageRequest(url: url, purpose: .hostedCheckout), handler: handler) {
                continuation.resume(returning: $0)
            }
        }
        #expect(shown)
        await handler.waitForEnd()
        #expect(
            handler.events == [
                .decide(url.absoluteString), .failed(url.absoluteString, "timeout: no answer within 1 s"),
            ])

        // The failure's own BrowserEvent follows the handler's call on the same queue: wait for it, so the
        // dismiss below cannot come between the two (a dismiss there drops it, as documented).
        await events.wait(until: { $0.contains { $0.description.hasPrefix("failed ") } })

        // The transport's late answer finds the load given up: nothing more is heard.
        transport.releaseHeld(
            with: .success(HTTPResponse(status: 200, body: Array(TestPages.plain.utf8), url: url)))
        await withCheckedContinuation { continuation in executor.dismiss { continuation.resume() } }
        #expect(handler.events.count == 2)
        #expect(transport.requests.count == 1)
        #expect(
            events.items.map(\.description) == [
                "navigation GET http://gw.example/slow: allowed",
                "failed http://gw.example/slow: timeout: no answer within 1 s", "dismissed",
            ])
    }
}
