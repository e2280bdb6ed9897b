import Foundation
import Testing

@testable import GatewaySandbox
@testable import LatencyProxy

#if canImport(Glibc)
import Glibc
#endif

extension HTTPTests {
    /// The latency proxy between real clients and a real sandbox.
    @Suite struct Proxy {
        static func plainSandbox() throws -> Sandbox {
            try Sandbox(configuration: .init(), keys: JWECardKeys(key: TestKeys.shared))
        }

        static func request(_ path: String, keepAlive: Bool = false) -> [UInt8] {
            let connection = keepAlive ? "" : "Connection: close\r\n"
            return Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(connection)\r\n".utf8)
        }

        @Test func forwardsBothWaysAndCountsConnectionsAndBytes() throws {
            let sandbox = try Self.plainSandbox()
            let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port))
            defer {
                proxy.stop()
                sandbox.stop()
            }
            var sent = 0
            var received = 0
            for _ in 0..<3 {
                let bytes = Self.request("/sandbox/cards")
                let raw = try RawHTTPClient.roundTrip(port: proxy.port, bytes: bytes)
                #expect(try RawHTTPClient.parse(raw).status == 200)
                sent += bytes.count
                received += raw.count
            }
            let statistics = proxy.statistics
            #expect(statistics.connections == 3)
            #expect(statistics.tlsHandshakes == 0)
            #expect(statistics.bytesToServer == sent)
            #expect(statistics.bytesToClient == received)
            #expect(sandbox.requestLog.count == 3)
        }

        @Test func countsTLSHandshakesAndAgreesWithTheClientOnResumption() throws {
            var configuration = Sandbox.Configuration()
            configuration.tls = Sandbox.TLS()
            let sandbox = try Sandbox(configuration: configuration, keys: JWECardKeys(key: TestKeys.shared))
            let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port))
            defer {
                proxy.stop()
                sandbox.stop()
            }
            var options = TLSTestClient.Options(certificateAuthorityFile: sandbox.tlsTrust?.certificateAuthorityFile)
            var resumedByClient = 0
            for _ in 0..<4 {
                let answer = try TLSTestClient.request(
                    "GET", sandbox.merchantBaseURL, port: proxy.port, options: options)
                #expect(answer.response.status == 200)
                if answer.resumed { resumedByClient += 1 }
                options.session = answer.session
            }
            let statistics = proxy.statistics
            #expect(statistics.connections == 4)
            #expect(statistics.tlsHandshakes == 4)
            // libmicrohttpd never turns GnuTLS's session tickets on, so the sandbox resumes no
            // session (0 here); the proxy must agree with what the client itself saw.
            #expect(statistics.resumedTLSHandshakes == resumedByClient)
        }

        @Test func closeAllConnectionsEndsAKeptAliveConnection() throws {
            let sandbox = try Self.plainSandbox()
            let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port))
            defer {
                proxy.stop()
                sandbox.stop()
            }
            let fd = try RawHTTPClient.connectedSocket(port: proxy.port)
            defer { close(fd) }
            let bytes = Self.request("/sandbox/cards", keepAlive: true)
            #expect(bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count)
            let first = try Self.readOneResponse(fd)
            #expect(first.status == 200)
            #expect(first.isComplete)
            #expect(proxy.statistics.openConnections == 1)

            proxy.closeAllConnections()
            // The client sees the connection end (end of stream or a reset), as if the server closed it.
            var byte: UInt8 = 0
            #expect(recv(fd, &byte, 1, 0) <= 0)
            // New connections are still served.
            let raw = try RawHTTPClient.roundTrip(port: proxy.port, bytes: Self.request("/sandbox/cards"))
            #expect(try RawHTTPClient.parse(raw).status == 200)
            #expect(sandbox.requestLog.count == 2)
        }

        @Test func delaysEachWayAndChargesTheTCPHandshake() throws {
            // A lower bound only (sleeping is never shorter than asked): two one-way delays for
            // the modelled SYN / SYN-ACK, one for the request, one for the response.
            let sandbox = try Self.plainSandbox()
            let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port, oneWayDelay: .milliseconds(15)))
            defer {
                proxy.stop()
                sandbox.stop()
            }
            let clock = ContinuousClock()
            let start = clock.now
            let raw = try RawHTTPClient.roundTrip(port: proxy.port, bytes: Self.request("/sandbox/cards"))
            let elapsed = clock.now - start
            #expect(try RawHTTPClient.parse(raw).status == 200)
            #expect(elapsed >= .milliseconds(60))
        }

        @Test func stopEndsEveryThreadAndFreesThePort() throws {
            // The kernel's own list of this process's threads (/proc/self/task) is the witness;
            // only the proxy's own thread ids are looked at, since other suites run alongside.
            func alive(_ ids: [Int32]) -> [Int32] {
                ids.filter { FileManager.default.fileExists(atPath: "/proc/self/task/\($0)") }
            }
            let sandbox = try Self.plainSandbox()
            defer { sandbox.stop() }
            let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port))
            let port = proxy.port
            var open: [Int32] = []
            for _ in 0..<5 {
                let fd = try RawHTTPClient.connectedSocket(port: port)
                let bytes = Self.request("/", keepAlive: true)
                _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                _ = try Self.readOneResponse(fd)
                open.append(fd)
            }
            // One accept thread and two per connection, each running now.
            let ids = proxy.startedThreadIDs.withLock { $0 }
            #expect(ids.count == 11)
            #expect(Set(ids).count == 11)
            #expect(alive(ids).count == 11)
            proxy.stop()
            proxy.stop()  // idempotent
            // The clients still hold their ends open: stop() itself must end the pumps.
            // It returns once each thread has said it ends; the kernel reaps it right after.
            var left = alive(ids)
            for _ in 0..<200 where !left.isEmpty {
                usleep(10_000)
                left = alive(ids)
            }
            #expect(left.isEmpty, "proxy threads still running after stop: \(left)")
            for fd in open { close(fd) }
            #expect(throws: RawHTTPError.self) { try RawHTTPClient.roundTrip(port: port, bytes: Self.request("/")) }
        }

        @Test func anAdvertisedPortSendsEveryLinkThroughTheProxy() throws {
            let sandbox = try Self.plainSandbox()
            let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port))
            defer {
                proxy.stop()
                sandbox.stop()
            }
            sandbox.advertise(port: proxy.port)
            #expect(sandbox.merchantBaseURL.port == Int(proxy.port))
            #expect(sandbox.checkoutAPIBaseURL.port == Int(proxy.port))
            let payment = sandbox.createPayment()
            #expect(payment.checkoutURL.port == Int(proxy.port))
            #expect(payment.shopRedirectURL.port == Int(proxy.port))
            // The hosted page, fetched through the proxy, posts its form through the proxy too.
            let page = try RawHTTPClient.request("GET", payment.checkoutURL)
            #expect(page.status == 200)
            #expect(page.text.contains("action=\"http://127.0.0.1:\(proxy.port)/gateway-checkout/checkout/pay/"))
            let chosen = try RawHTTPClient.request(
                "POST", payment.checkoutURL, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array("choice=pay".utf8))
            #expect(chosen.status == 303)
            #expect(chosen.header("Location") == payment.shopRedirectURL.absoluteString)
            #expect(proxy.statistics.connections == 2)
            #expect(sandbox.paymentStatus(payment.paymentId) == "SETTLED")
        }

        @Test func refusesATargetThatIsNotANumericAddress() {
            #expect(throws: LatencyProxyError.self) {
                try LatencyProxy(configuration: .init(targetHost: "localhost", targetPort: 1))
            }
        }

        /// Reads one response with a Content-Length off a kept-alive socket.
        static func readOneResponse(_ fd: Int32) throws -> RawResponse {
            var raw: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16 << 10)
            while true {
                if let parsed = try? RawHTTPClient.parse(raw), let declared = parsed.declaredLength,
                    parsed.body.count >= declared
                {
                    return parsed
                }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return try RawHTTPClient.parse(raw) }
                raw += buffer[0..<count]
            }
        }
    }
}
