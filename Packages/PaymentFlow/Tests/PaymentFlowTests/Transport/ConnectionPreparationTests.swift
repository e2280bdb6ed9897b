import Dispatch
import Foundation
import JWE
import LoopbackTestServer
import Synchronization
import Testing

@testable import PaymentFlow

/// Issue 19's cold-key latency: while a card payment with no cached key fetches the key from the
/// checkout host, the card-session host's connection is opened too. The run asks its transport once,
/// before the key request, and only when the two hosts differ; the cache's "opening" registry lets a
/// request wait for that connection, bounded.
@Suite(.timeLimit(.minutes(1)))
struct ConnectionPreparationTests {
    /// Records, in order, the hints and the requests a run gives its transport; answers like a gateway
    /// whose card session completes at once.
    final class PreparingTransport: ConnectionPreparingTransport {
        let events = Mutex<[String]>([])
        let jwks: String

        init() throws {
            // The public members of the test key, read back with Foundation's parser (not the SDK's).
            let jwk = try JWETestKey.key.jwkJSON()
            let members = try JSONSerialization.jsonObject(with: Data(jwk.utf8)) as? [String: Any] ?? [:]
            let n = members["n"] as? String ?? ""
            let e = members["e"] as? String ?? ""
            jwks =
                #"{"keys":[{"kty":"RSA","kid":"test-key","use":"enc","alg":"RSA-OAEP-256","n":"\#(n)","e":"\#(e)"}]}"#
        }

        func prepareConnection(to url: URL) {
            events.withLock { $0.append("prepare \(url.absoluteString)") }
        }

        func send(
            _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
        ) {
            events.withLock { $0.append("\(request.method) \(request.url.host ?? "")\(request.url.path)") }
            let answer: Result<HTTPResponse, TransportError> =
                request.url.path.hasSuffix("jwks.json")
                ? StubTransport.json(200, jwks, url: request.url, headers: [HTTPHeader("Cache-Control", "max-age=60")])
                : StubTransport.json(201, #"{"sessionId":"s1","status":"COMPLETED"}"#, url: request.url)
            DispatchQueue.global().async { completion(answer) }
        }
    }

    func pay(_ kit: PaymentKit) async -> PaymentResult {
        let card = CardInput(
            cardholderName: "Test", cardNumber: "4111111111111111", expiryMonth: "12", expiryYear: "35",
            securityCode: "123")
        return await kit.startCardPayment(
            CardPaymentRequest(paymentId: "p1", verificationKey: "vk"), card: card,
            from: StubPresenter(steps: { _ in [] }))
    }

    func kit(api: String, keys: String, _ transport: PreparingTransport) -> PaymentKit {
        PaymentKit(
            configuration: Configuration(
                checkoutAPIBaseURL: URL(string: api)!, checkoutBaseURL: URL(string: keys)!, environment: .sandbox),
            resolver: nil, dependencies: stubDependencies(transport, retries: true))
    }

    @Test func aColdKeyOnAnotherHostOpensTheSessionHostsConnectionFirst() async throws {
        let transport = try PreparingTransport()
        let kit = kit(api: "https://api.example/gw", keys: "https://keys.example/co", transport)
        #expect(await pay(kit).outcome == .succeeded)
        #expect(
            transport.events.withLock { $0 } == [
                "prepare https://api.example/gw",
                "GET keys.example/co/checkout/.well-known/jwks.json",
                "POST api.example/gw/checkout/api/egw/v1/payments/p1/card-sessions",
            ])
        // The key is cached now: nothing to overlap, so nothing is prepared.
        #expect(await pay(kit).outcome == .succeeded)
        #expect(transport.events.withLock { $0.filter { $0.hasPrefix("prepare") }.count } == 1)
    }

    @Test func oneHostForKeysAndSessionsIsAlreadyOneConnection() async throws {
        let transport = try PreparingTransport()
        // Same scheme, host and port (443 written out on one side): one origin.
        let kit = kit(api: "https://gw.example/api", keys: "https://GW.example:443/keys", transport)
        #expect(await pay(kit).outcome == .succeeded)
        #expect(transport.events.withLock { $0.contains { $0.hasPrefix("prepare") } } == false)
        #expect(transport.events.withLock { $0.count } == 2)
    }

    @Test func aRequestWaitsForAConnectionBeingOpenedAndNoLonger() {
        let cache = CurlConnectionCache()
        let origin = "https://api.example:443"
        // Nothing opening: no wait at all (a 60 s timeout would fail the suite's time limit).
        cache.awaitOpening(origin: origin, timeout: 60)
        #expect(cache.beginOpening(origin: origin, now: 0))
        #expect(!cache.beginOpening(origin: origin, now: 0), "one opening per origin")
        #expect(cache.beginOpening(origin: "https://other.example:443", now: 0), "origins are apart")
        let released = DispatchSemaphore(value: 0)
        Thread {
            cache.awaitOpening(origin: origin, timeout: 60)
            released.signal()
        }.start()
        #expect(released.wait(timeout: .now() + 0.2) == .timedOut, "still opening: the request waits")
        cache.finishOpening(origin: origin)
        #expect(released.wait(timeout: .now() + 30) == .success, "finishing releases the waiter")
        // A connection idle within its window makes opening another one pointless.
        if let handle = CurlEasyHandle() {
            cache.checkin(handle, origin: origin, now: 100)
            #expect(!cache.beginOpening(origin: origin, now: 101))
            #expect(cache.beginOpening(origin: origin, now: 100 + cache.maximumIdleTime + 1), "past the window")
            cache.finishOpening(origin: origin)
        }
    }

    @Test func theConnectionIsOpenedWithOptionsStarAndKeptOnlyIfLeftOpen() throws {
        // The loopback server answers `Connection: close`: the request is seen, the handle is not kept.
        // The answer is held until both hints are given, so the second finds the first still opening
        // (unheld, a preempted test thread could see the first finished and rightly open again).
        let bothHintsGiven = DispatchSemaphore(value: 0)
        let server = try LoopbackServer { _ in
            _ = bothHintsGiven.wait(timeout: .now() + 10)
            return .http(204, [("Allow", "GET, POST")])
        }
        defer { server.stop() }
        let cache = CurlConnectionCache()
        let transport = CurlTransport(connectionCache: cache)
        transport.prepareConnection(to: server.url("/gw/checkout/api"))
        transport.prepareConnection(to: server.url("/another/path"))  // the same origin: one opening
        bothHintsGiven.signal()
        let origin = CurlConnectionCache.origin(of: server.baseURL)
        for _ in 0..<300 where server.requests.isEmpty { Thread.sleep(forTimeInterval: 0.01) }
        cache.awaitOpening(origin: origin, timeout: 10)
        let requests = server.requests
        #expect(requests.count == 1)
        #expect(requests.first?.method == "OPTIONS")
        #expect(requests.first?.target == "*")
        #expect(requests.first?.body.isEmpty == true)
        let names = Set(requests.first?.headers.map { $0.name.lowercased() } ?? [])
        #expect(!names.contains("obp-verification-key") && !names.contains("idempotency-key"))
        #expect(cache.idleCount == 0, "a connection the server closes is not kept")
        #expect(cache.beginOpening(origin: origin, now: CurlTransport.uptime()), "the opening was finished")
        cache.finishOpening(origin: origin)
    }

    @Test func withoutACacheNothingIsOpenedAhead() throws {
        // A transport with no cache has nowhere to keep a connection: the hint is ignored.
        let server = try LoopbackServer { _ in .http(204) }
        defer { server.stop() }
        CurlTransport().prepareConnection(to: server.baseURL)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(server.connectionCount == 0)
    }
}
