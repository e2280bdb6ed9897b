import Foundation
import LoopbackTestServer
import Synchronization
import Testing

@testable import PaymentFlow

#if canImport(Glibc)
import Glibc
#endif

/// `CurlTransport` against real sockets on loopback. Expected values are the
/// bytes the in-test server was told to send or saw arrive, never the
/// transport's own output.
@Suite struct CurlTransportTests {
    let transport = CurlTransport()

    @Test func getReturnsStatusHeadersAndBody() async throws {
        let server = try LoopbackServer { _ in
            .http(200, [("X-Test", "one"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")], body: Array("hello".utf8))
        }
        defer { server.stop() }
        let result = await send(HTTPRequest(method: "GET", url: server.url("/status?x=1")), over: transport)
        let response = try result.get()
        #expect(response.status == 200)
        #expect(response.body == Array("hello".utf8))
        #expect(response.header("x-test") == "one")
        #expect(response.headers.filter { $0.name == "Set-Cookie" }.map(\.value) == ["a=1", "b=2"])
        #expect(response.url == server.url("/status?x=1"))
        let seen = try #require(server.requests.first)
        #expect(seen.method == "GET")
        #expect(seen.target == "/status?x=1")
    }

    @Test func everyRequestCarriesUserAgentAndRequestID() async throws {
        let server = try LoopbackServer { _ in .http(204) }
        defer { server.stop() }
        _ = try await send(HTTPRequest(method: "GET", url: server.url("/a")), over: transport).get()
        let custom = HTTPRequest(
            method: "GET", url: server.url("/b"),
            headers: [HTTPHeader("User-Agent", "Custom/2"), HTTPHeader("X-Request-Id", "fixed-id")])
        _ = try await send(custom, over: transport).get()
        let seen = server.requests
        try #require(seen.count == 2)
        #expect(seen[0].header("User-Agent") == CurlTransport.defaultUserAgent)
        #expect(CurlTransport.defaultUserAgent.hasPrefix("EGWPay-Linux/"))
        // A UUID v4 in its canonical 36-character text form.
        let id = try #require(seen[0].header("X-Request-Id"))
        #expect(UUID(uuidString: id) != nil)
        #expect(seen[1].header("User-Agent") == "Custom/2")
        #expect(seen[1].headers(named: "X-Request-Id") == ["fixed-id"])
    }

    @Test func postBodyRoundTripsByteForByte() async throws {
        let server = try LoopbackServer { request in
            .http(201, [("Content-Type", request.header("Content-Type") ?? "none")], body: request.body)
        }
        defer { server.stop() }
        // 100 kB with NULs and every byte value: larger than libcurl's 1 kB
        // `Expect: 100-continue` threshold.
        let body = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let request = HTTPRequest(
            method: "POST", url: server.url("/echo"), headers: [HTTPHeader("Content-Type", "application/octet-stream")],
            body: body)
        let response = try await send(request, over: transport).get()
        #expect(response.status == 201)
        #expect(response.body == body)
        let seen = try #require(server.requests.first)
        #expect(seen.method == "POST")
        #expect(seen.header("Content-Length") == "100000")
        #expect(seen.header("Expect") == nil)
        #expect(seen.header("Content-Type") == "application/octet-stream")
    }

    @Test(arguments: ["PUT", "DELETE", "PATCH"])
    func otherMethodsAreSentAsGiven(method: String) async throws {
        let server = try LoopbackServer { request in .http(200, body: request.body) }
        defer { server.stop() }
        let response = try await send(
            HTTPRequest(method: method, url: server.url("/m"), body: Array("{}".utf8)), over: transport
        ).get()
        #expect(response.body == Array("{}".utf8))
        #expect(server.requests.first?.method == method)
    }

    @Test func emptyPostSendsZeroLength() async throws {
        let server = try LoopbackServer { _ in .http(200) }
        defer { server.stop() }
        _ = try await send(HTTPRequest(method: "POST", url: server.url("/p")), over: transport).get()
        #expect(server.requests.first?.header("Content-Length") == "0")
    }

    @Test func serverThatNeverAnswersTimesOut() async throws {
        let server = try LoopbackServer { _ in .hang }
        defer { server.stop() }
        let result = await send(HTTPRequest(method: "GET", url: server.url("/slow"), timeout: 0.3), over: transport)
        #expect(result.failureKind == .timeout)
    }

    @Test func timeSpentQueuedCountsAgainstTheTotalTimeout() throws {
        let server = try LoopbackServer { _ in .http(200) }
        defer { server.stop() }
        // A transfer whose `send` happened 5 s ago (queued behind busy workers)
        // with a 1 s budget fails without connecting.
        let sentAt = SuspendAwareClock.nanoseconds() - 5_000_000_000
        let result = CurlTransport.perform(
            HTTPRequest(method: "GET", url: server.url("/late"), timeout: 1), options: .init(), start: sentAt)
        #expect(result.failureKind == .timeout)
        #expect(server.connectionCount == 0)
    }

    @Test(arguments: [Double.infinity, 1e300])
    func anUnboundedConnectTimeoutIsCappedByTheTotalOne(connectTimeout: Double) throws {
        // 2.5 s remaining is 2500 ms by hand; a connect timeout that is infinite or beyond Int
        // cannot be longer than that.
        let request = HTTPRequest(method: "GET", url: try #require(URL(string: "http://127.0.0.1:1/")))
        let options = CurlTransport.Options(connectTimeout: connectTimeout)
        let hop = try CurlTransport.makeHop(request, options: options, remaining: 2.5).get()
        #expect(hop.totalTimeoutMilliseconds == 2500)
        #expect(hop.connectTimeoutMilliseconds == 2500)
    }

    @Test func closedPortFailsToConnect() async throws {
        let port = try LoopbackServer.closedPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        let result = await send(HTTPRequest(method: "GET", url: url, timeout: 5), over: transport)
        #expect(result.failureKind == .connect)
    }

    @Test func declaredHugeBodyIsRefused() async throws {
        let server = try LoopbackServer { _ in
            .stream(
                head: Array("HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\nConnection: close\r\n\r\n".utf8),
                chunk: [UInt8](repeating: 65, count: 16_384), limit: 700)
        }
        defer { server.stop() }
        let small = CurlTransport(options: .init(maxResponseBytes: 64 * 1024))
        let result = await send(HTTPRequest(method: "GET", url: server.url("/big")), over: small)
        #expect(result.failureKind == .responseTooLarge)
    }

    @Test func undeclaredHugeBodyIsAbortedAtTheCap() async throws {
        // No Content-Length: the body ends when the connection closes, so only
        // the write callback's running count can stop it.
        let server = try LoopbackServer { _ in
            .stream(
                head: Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8),
                chunk: [UInt8](repeating: 66, count: 16_384), limit: 10_000)
        }
        defer { server.stop() }
        let small = CurlTransport(options: .init(maxResponseBytes: 64 * 1024))
        let result = await send(HTTPRequest(method: "GET", url: server.url("/big")), over: small)
        #expect(result.failureKind == .responseTooLarge)
    }

    @Test func bodyExactlyAtTheCapIsAccepted() async throws {
        let body = [UInt8](repeating: 67, count: 1000)
        let server = try LoopbackServer { _ in .http(200, body: body) }
        defer { server.stop() }
        let capped = CurlTransport(options: .init(maxResponseBytes: 1000))
        let response = try await send(HTTPRequest(method: "GET", url: server.url("/")), over: capped).get()
        #expect(response.body == body)
    }

    @Test func connectionClosedMidResponseIsAReset() async throws {
        let server = try LoopbackServer { _ in
            .bytes(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\nonly-part".utf8))
        }
        defer { server.stop() }
        let result = await send(HTTPRequest(method: "GET", url: server.url("/cut")), over: transport)
        #expect(result.failureKind == .reset)
    }

    @Test func connectionClosedWithoutAByteIsAReset() async throws {
        let server = try LoopbackServer { _ in .close }
        defer { server.stop() }
        let result = await send(HTTPRequest(method: "GET", url: server.url("/empty")), over: transport)
        #expect(result.failureKind == .reset)
    }

    @Test func httpIsRefusedWhenHTTPSIsRequired() async throws {
        let server = try LoopbackServer { _ in .http(200) }
        defer { server.stop() }
        let strict = CurlTransport(options: .init(requireHTTPS: true))
        let result = await send(HTTPRequest(method: "GET", url: server.url("/")), over: strict)
        #expect(result.failureKind == .insecureScheme)
        #expect(server.connectionCount == 0)
    }

    @Test(arguments: ["ftp://127.0.0.1/file", "file:///etc/passwd", "gopher://127.0.0.1/"])
    func nonHTTPSchemesAreInvalid(text: String) async throws {
        let url = try #require(URL(string: text))
        let result = await send(HTTPRequest(method: "GET", url: url), over: transport)
        #expect(result.failureKind == .invalidURL)
    }

    @Test func headerInjectionIsRefusedBeforeConnecting() async throws {
        let server = try LoopbackServer { _ in .http(200) }
        defer { server.stop() }
        let request = HTTPRequest(
            method: "GET", url: server.url("/"), headers: [HTTPHeader("X-Evil", "a\r\nHost: elsewhere")])
        let result = await send(request, over: transport)
        #expect(result.failureKind == .invalidURL)
        let badMethod = await send(HTTPRequest(method: "GET /x HTTP/1.1", url: server.url("/")), over: transport)
        #expect(badMethod.failureKind == .invalidURL)
        #expect(server.connectionCount == 0)
    }

    @Test func httpsToAPlainHTTPServerFailsTheHandshake() async throws {
        let server = try LoopbackServer { _ in .http(200) }
        defer { server.stop() }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let result = await send(HTTPRequest(method: "GET", url: url, timeout: 5), over: transport)
        #expect(result.failureKind == .tls)
    }

    @Test func redirectsAreReturnedUnlessFollowingIsAsked() async throws {
        let server = try LoopbackServer { request in
            switch request.path {
            case "/start": return .http(302, [("Location", "/next")])
            default: return .http(200, body: Array("final".utf8))
            }
        }
        defer { server.stop() }
        let unfollowed = try await send(HTTPRequest(method: "GET", url: server.url("/start")), over: transport).get()
        #expect(unfollowed.status == 302)
        #expect(unfollowed.header("Location") == "/next")
        let followed = try await send(
            HTTPRequest(method: "GET", url: server.url("/start"), followRedirects: true), over: transport
        ).get()
        #expect(followed.status == 200)
        #expect(followed.body == Array("final".utf8))
        #expect(followed.url == server.url("/next"))
        #expect(server.requests.map(\.path) == ["/start", "/start", "/next"])
    }

    @Test func redirectMethodRulesFollowTheFetchStandard() async throws {
        // RFC 9110 15.4: 303 -> GET without body; 307/308 keep method and body.
        let server = try LoopbackServer { request in
            switch request.path {
            case "/303": return .http(303, [("Location", "/landing")])
            case "/307": return .http(307, [("Location", "/landing")])
            default: return .http(200, body: Array(request.method.utf8) + request.body)
            }
        }
        defer { server.stop() }
        let body = Array("a=1".utf8)
        let after303 = try await send(
            HTTPRequest(method: "POST", url: server.url("/303"), body: body, followRedirects: true), over: transport
        ).get()
        #expect(after303.body == Array("GET".utf8))
        let after307 = try await send(
            HTTPRequest(method: "POST", url: server.url("/307"), body: body, followRedirects: true), over: transport
        ).get()
        #expect(after307.body == Array("POSTa=1".utf8))
    }

    @Test func redirectLoopsStopAfterTen() async throws {
        let server = try LoopbackServer { _ in .http(302, [("Location", "/loop")]) }
        defer { server.stop() }
        let result = await send(
            HTTPRequest(method: "GET", url: server.url("/loop"), followRedirects: true), over: transport)
        #expect(result.failureKind == .other)
        // The first request plus ten followed redirects.
        #expect(server.requests.count == 11)
    }

    @Test func crossOriginRedirectDropsCredentialHeaders() async throws {
        let target = try LoopbackServer { _ in .http(200) }
        defer { target.stop() }
        let origin = try LoopbackServer { request in
            request.path == "/go" ? .http(302, [("Location", target.url("/landed").absoluteString)]) : .http(200)
        }
        defer { origin.stop() }
        let request = HTTPRequest(
            method: "GET", url: origin.url("/go"),
            headers: [HTTPHeader("Obp-Verification-Key", "secret"), HTTPHeader("X-Keep", "yes")], followRedirects: true)
        _ = try await send(request, over: transport).get()
        #expect(origin.requests.first?.header("Obp-Verification-Key") == "secret")
        let landed = try #require(target.requests.first)
        #expect(landed.header("Obp-Verification-Key") == nil)
        #expect(landed.header("X-Keep") == "yes")
    }

    @Test func completionRunsOnceAndNeverOnTheCallersThread() async throws {
        let server = try LoopbackServer { _ in .http(200) }
        defer { server.stop() }
        // An invalid URL fails before any I/O: the likeliest place for a synchronous completion.
        let requests = [
            HTTPRequest(method: "GET", url: server.url("/")),
            HTTPRequest(method: "GET", url: URL(string: "ftp://127.0.0.1/")!),
        ]
        for request in requests {
            let calls = Mutex<[pthread_t]>([])
            let caller = pthread_self()
            await confirmation(expectedCount: 1) { done in
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    transport.send(request) { _ in
                        calls.withLock { $0.append(pthread_self()) }
                        done()
                        continuation.resume()
                    }
                }
            }
            let threads = calls.withLock { $0 }
            #expect(threads.count == 1)
            #expect(threads.allSatisfy { pthread_equal($0, caller) == 0 })
        }
    }

    @Test func manyConcurrentRequestsAllComplete() async throws {
        let server = try LoopbackServer { request in .http(200, body: Array(request.path.utf8)) }
        defer { server.stop() }
        let paths = (0..<40).map { "/n\($0)" }
        let bodies = await withTaskGroup(of: String.self) { group in
            for path in paths {
                group.addTask {
                    let response = try? await send(HTTPRequest(method: "GET", url: server.url(path)), over: transport)
                        .get()
                    return String(decoding: response?.body ?? [], as: UTF8.self)
                }
            }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(bodies == Set(paths))
    }
}

extension Result where Failure == TransportError {
    /// The failure's kind, or `nil` on success.
    var failureKind: TransportError.Kind? {
        if case .failure(let error) = self { return error.kind }
        return nil
    }
}
