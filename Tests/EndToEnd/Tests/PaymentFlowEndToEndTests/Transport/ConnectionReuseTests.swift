import Foundation
import GatewaySandbox
import LatencyProxy
import Testing

@testable import PaymentFlow

/// `CurlTransport` with a `CurlConnectionCache`, counted by a proxy in front of a plain sandbox:
/// which requests reuse a connection (reads, and requests with an `Idempotency-Key`) and which get
/// a fresh one that is closed afterwards (anything else), and that releasing the cache closes them.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ConnectionReuseTests {
    let sandbox: Sandbox
    let proxy: LatencyProxy

    init() throws {
        sandbox = try Sandbox(configuration: .init(seed: 31))
        proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port))
        sandbox.advertise(port: proxy.port)
    }

    func send(_ transport: CurlTransport, _ method: String, _ path: String, headers: [HTTPHeader] = []) async -> Int {
        let url = URL(string: sandbox.merchantBaseURL.absoluteString + path)!
        let request = HTTPRequest(
            method: method, url: url, headers: headers, body: method == "POST" ? Array("{}".utf8) : nil, timeout: 5)
        return await withCheckedContinuation { continuation in
            transport.send(request) { result in continuation.resume(returning: (try? result.get().status) ?? -1) }
        }
    }

    @Test func harmlessToReplayMeansAReadOrAnIdempotencyKey() {
        let url = URL(string: "https://gateway.example/x")!
        #expect(CurlTransport.isHarmlessToReplay(HTTPRequest(method: "GET", url: url)))
        #expect(CurlTransport.isHarmlessToReplay(HTTPRequest(method: "head", url: url)))
        #expect(!CurlTransport.isHarmlessToReplay(HTTPRequest(method: "POST", url: url)))
        #expect(
            CurlTransport.isHarmlessToReplay(
                HTTPRequest(method: "POST", url: url, headers: [HTTPHeader("idempotency-key", "k1")])))
        #expect(
            !CurlTransport.isHarmlessToReplay(
                HTTPRequest(method: "POST", url: url, headers: [HTTPHeader("Idempotency-Key", "  ")])))
    }

    @Test func readsAndKeyedPostsShareOneConnectionOtherPostsGetTheirOwn() async throws {
        defer {
            proxy.stop()
            sandbox.stop()
        }
        let cache = CurlConnectionCache()
        let transport = CurlTransport(connectionCache: cache)
        #expect(await send(transport, "GET", "/sandbox/cards") == 200)
        #expect(await send(transport, "GET", "/sandbox/cards") == 200)
        #expect(proxy.statistics.connections == 1)
        // A POST without a key: a connection of its own, closed when it is done.
        #expect(await send(transport, "POST", "/sandbox/payments") == 201)
        #expect(proxy.statistics.connections == 2)
        // A POST with a key rides the kept connection, and so does the next read.
        #expect(
            await send(transport, "POST", "/sandbox/payments", headers: [HTTPHeader("Idempotency-Key", "k")]) == 201)
        #expect(await send(transport, "GET", "/sandbox/cards") == 200)
        #expect(proxy.statistics.connections == 2)
        #expect(cache.counts.reused == 3)
        #expect(cache.idleCount == 1)

        // Without a cache, every request has its own connection.
        let plain = CurlTransport()
        for _ in 0..<3 { #expect(await send(plain, "GET", "/sandbox/cards") == 200) }
        #expect(proxy.statistics.connections == 5)
    }

    @Test func aConnectionTheServerClosedIsReplacedNotFailed() async throws {
        defer {
            proxy.stop()
            sandbox.stop()
        }
        let transport = CurlTransport(connectionCache: CurlConnectionCache())
        #expect(await send(transport, "GET", "/sandbox/cards") == 200)
        proxy.closeAllConnections()
        let key = [HTTPHeader("Idempotency-Key", "after-close")]
        #expect(await send(transport, "POST", "/sandbox/payments", headers: key) == 201)
        #expect(proxy.statistics.connections == 2)
        #expect(sandbox.requestLog.filter { $0.path == "/sandbox/payments" }.count == 1)
    }

    @Test func releasingTheCacheClosesItsConnections() async throws {
        defer {
            proxy.stop()
            sandbox.stop()
        }
        var transport: CurlTransport? = CurlTransport(connectionCache: CurlConnectionCache())
        #expect(await send(transport!, "GET", "/sandbox/cards") == 200)
        #expect(proxy.statistics.openConnections == 1)
        transport = nil
        // The client's end closes at once; the proxy sees it and lets go of both sides.
        let deadline = Date(timeIntervalSinceNow: 5)
        while proxy.statistics.openConnections > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(proxy.statistics.openConnections == 0)
    }

    @Test func aConnectionOpenedAheadCarriesTheNextKeyedPost() async throws {
        defer {
            proxy.stop()
            sandbox.stop()
        }
        // What a cold-key card payment does for the card-session host: `OPTIONS *` first, then the keyed
        // POST rides that connection (no second TCP connection), even when sent before the answer came.
        let cache = CurlConnectionCache()
        let transport = CurlTransport(connectionCache: cache)
        transport.prepareConnection(to: sandbox.merchantBaseURL)
        let key = [HTTPHeader("Idempotency-Key", "ahead")]
        #expect(await send(transport, "POST", "/sandbox/payments", headers: key) == 201)
        #expect(proxy.statistics.connections == 1)
        #expect(cache.counts.reused == 1)
        let log = sandbox.requestLog
        #expect(log.map(\.method) == ["OPTIONS", "POST"])
        #expect(log.first?.status == 204)
        // A POST without a key still gets a connection of its own: opening ahead changes no reuse rule.
        transport.prepareConnection(to: sandbox.merchantBaseURL)  // one is idle: nothing to open
        #expect(await send(transport, "POST", "/sandbox/payments") == 201)
        #expect(proxy.statistics.connections == 2)
        #expect(sandbox.requestLog.count == 3)
    }
}
