import Foundation
@_spi(LifecycleRuntime) import PaymentFlow
import Synchronization
import Testing

@testable import HeadlessBrowser

/// The executor's own timer: a transport that never answers does not leave the page waiting. The
/// watchdog's clock is stepped by the test (no real second passes): the load's timer is armed with the
/// page timeout, and firing it fails the load.
@Suite(.timeLimit(.minutes(1))) struct BrowserExecutorTests {
    @Test func aLoadTheTransportNeverAnswersFailsWhenItsWatchdogFires() async {
        let transport = FakeTransport { _ in .hold }
        let events = EventLog<BrowserEvent>()
        let settings = BrowserSession.Settings(
            pageTimeout: 1, maxRedirects: 1, maxAutomaticSubmissions: 1, loadGrace: 0)
        let clock = SteppedClock()
        let executor = BrowserExecutor(
            session: BrowserSession(settings: settings), script: .always(.wait), transport: transport,
            onEvent: { events.append($0) }, schedule: clock.schedule)
        let handler = RecordingHandler()
        let url = URL(string: "http://gw.example/slow")!
        let shown = await withCheckedContinuation { continuation in
            executor.present(PageRequest(url: url, purpose: .hostedCheckout), handler: handler) {
                continuation.resume(returning: $0)
            }
        }
        #expect(shown)
        // The load went out and waits; its watchdog is armed with the page timeout, and nothing has failed.
        await clock.waitForTimers(1)
        #expect(clock.delays == [1])
        #expect(handler.events == [.decide(url.absoluteString)])
        clock.fireAll()
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

/// A clock the test steps: `schedule` records each timer; `fireAll` runs the live ones (the runner hops
/// onto its own queue).
final class SteppedClock: Sendable {
    private struct Pending {
        let seconds: TimeInterval
        let work: @Sendable () -> Void
        var cancelled = false
    }
    private let pending = Mutex<[Pending]>([])

    var delays: [TimeInterval] { pending.withLock { $0.map(\.seconds) } }

    var schedule: LifecycleSchedule {
        { [self] seconds, work in
            let index = pending.withLock { list in
                list.append(Pending(seconds: seconds, work: work))
                return list.count - 1
            }
            return { [self] in pending.withLock { $0[index].cancelled = true } }
        }
    }

    /// Waits (polling, bounded by the suite's time limit) until `count` timers were scheduled.
    func waitForTimers(_ count: Int) async {
        while pending.withLock({ $0.count }) < count { try? await Task.sleep(for: .milliseconds(1)) }
    }

    func fireAll() {
        for timer in pending.withLock({ $0 }) where !timer.cancelled { timer.work() }
    }
}
