import Foundation
import Synchronization
import Testing

@testable import GatewaySandbox

#if canImport(Glibc)
import Glibc
#endif

extension HTTPTests {
    /// Starting, stopping, several servers, and input that must not stop the server.
    @Suite struct Lifecycle {
        static func threadCount() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
        }

        @Test func twoServersAtOnceAreIndependent() throws {
            let a = try TestGateway(seed: 5)
            let b = try TestGateway(seed: 5)
            #expect(a.port != b.port)
            let payment = a.sandbox.createPayment()
            #expect(try a.api("GET", a.statusURL(payment.paymentId), key: payment.verificationKey).status == 200)
            // b knows nothing of a's payment, even with the same seed (payment ids are random per sandbox).
            #expect(try b.api("GET", b.statusURL(payment.paymentId), key: payment.verificationKey).status == 404)
            a.sandbox.inject(SandboxFault(endpoint: .any, kind: .status(500), schedule: .always))
            let other = b.sandbox.createPayment()
            #expect(other.paymentId != payment.paymentId)
            #expect(try b.api("GET", b.statusURL(payment.paymentId), key: payment.verificationKey).status == 404)
            #expect(try b.api("GET", b.statusURL(other.paymentId), key: other.verificationKey).status == 200)
            #expect(try a.api("GET", a.statusURL(payment.paymentId), key: payment.verificationKey).status == 500)
        }

        @Test func startStopAHundredTimesLeaksNoThreadsAndFreesThePort() throws {
            // Warm up once so lazily created runtime threads are counted in the baseline.
            var port: UInt16 = 0
            do {
                let warm = try Sandbox(configuration: .init(), keys: JWECardKeys(key: TestKeys.shared))
                port = warm.port
                _ = try RawHTTPClient.request("GET", warm.merchantBaseURL)
                warm.stop()
            }
            let baseline = Self.threadCount()
            for round in 0..<100 {
                // Every round rebinds the same port: stop() must have released it.
                let sandbox = try Sandbox(configuration: .init(port: port), keys: JWECardKeys(key: TestKeys.shared))
                #expect(sandbox.port == port)
                if round % 10 == 0 {
                    let payment = sandbox.createPayment()
                    let response = try RawHTTPClient.request(
                        "GET",
                        sandbox.apiBaseURL.appendingPathComponent("checkout/api/egw/v1/payments/\(payment.paymentId)"),
                        headers: [("Obp-Verification-Key", payment.verificationKey), ("X-Request-Id", "r\(round)")])
                    #expect(response.status == 200)
                }
                sandbox.stop()
                sandbox.stop()  // idempotent
            }
            // A leak of one thread per start would show as +100; allow a few runtime threads.
            #expect(Self.threadCount() <= baseline + 4)
            // Nothing listens any more.
            #expect(throws: RawHTTPError.connect(ECONNREFUSED)) {
                try RawHTTPClient.request("GET", URL(string: "http://127.0.0.1:\(port)/")!)
            }
        }

        @Test func aBusyPortIsABindError() throws {
            let first = try Sandbox(configuration: .init(), keys: JWECardKeys(key: TestKeys.shared))
            let error = try #require(throws: SandboxError.self) {
                try Sandbox(configuration: .init(port: first.port), keys: JWECardKeys(key: TestKeys.shared))
            }
            #expect(error.code == .bindFailed)
        }

        @Test func aHostNameIsAConfigurationErrorButLocalhostWorks() throws {
            let error = try #require(throws: SandboxError.self) {
                try Sandbox(configuration: .init(host: "gateway.example"), keys: JWECardKeys(key: TestKeys.shared))
            }
            #expect(error.code == .invalidConfiguration)
            let local = try Sandbox(configuration: .init(host: "localhost"), keys: JWECardKeys(key: TestKeys.shared))
            #expect(local.merchantBaseURL.absoluteString == "http://127.0.0.1:\(local.port)")
        }

        @Test func garbageAndOversizedInputKeepTheServerServing() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            func stillServing() throws -> Bool {
                try gateway.api("GET", gateway.statusURL(payment.paymentId), key: payment.verificationKey).status == 200
            }
            // Not HTTP at all: libmicrohttpd answers 400 or closes; either way the next client is served.
            _ = try? RawHTTPClient.roundTrip(port: gateway.port, bytes: Array("\u{1}\u{2}GARBAGE\r\n\r\n".utf8))
            #expect(try stillServing())
            _ = try? RawHTTPClient.roundTrip(port: gateway.port, bytes: Array(repeating: 0xFF, count: 70_000))
            #expect(try stillServing())
            // A declared 1 GiB body is refused without being read.
            let huge = try RawHTTPClient.exchange(
                port: gateway.port,
                bytes: Array(
                    "POST /sandbox/payments HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\nConnection: close\r\n\r\n{"
                        .utf8))
            #expect(huge.status == 400)
            #expect(huge.errorCode == "INVALID_REQUEST")
            #expect(try stillServing())
            // 1 MiB of JSON-ish body to every JSON endpoint: read, discarded, refused.
            let big = "[" + String(repeating: "1,", count: 512 * 1024) + "1]"
            for url in [
                gateway.url("/sandbox/payments"), gateway.sessionsURL(payment.paymentId),
                gateway.url("/sandbox/faults"),
            ] {
                let response = try gateway.api("POST", url, key: payment.verificationKey, json: big)
                #expect(response.status == 400)
                #expect(response.errorCode == "INVALID_REQUEST")
            }
            // Binary junk as JSON.
            let junk = try RawHTTPClient.request(
                "POST", gateway.url("/sandbox/payments"), headers: [("Content-Type", "application/json")],
                body: [0x00, 0xFF, 0xFE, 0x7B])
            #expect(junk.status == 400)
            #expect(try stillServing())
        }

        @Test func headAnswersHeadersOnly() throws {
            let gateway = try TestGateway()
            let response = try RawHTTPClient.request("HEAD", gateway.jwksURL)
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "max-age=300")
            #expect(response.body.isEmpty)
            // Content-Length is the GET body's length.
            #expect(response.declaredLength == (try gateway.get(gateway.jwksURL)).body.count)
        }
    }
}

extension HTTPTests.Lifecycle {
    @Test func stopCutsInjectedLatencyShort() throws {
        let started = DispatchSemaphore(value: 0)
        let slices = Mutex(0)
        var configuration = Sandbox.Configuration(privateKey: TestKeys.shared)
        configuration.sleep = { _ in
            if slices.withLock({ count in
                count += 1
                return count == 1
            }) {
                started.signal()
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        let sandbox = try Sandbox(configuration: configuration)
        sandbox.inject(SandboxFault(endpoint: .jwks, kind: .latency(.seconds(600))))
        let url = URL(string: sandbox.checkoutBaseURL.absoluteString + "/checkout/.well-known/jwks.json")!
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? RawHTTPClient.request("GET", url)
            done.signal()
        }
        // Safety nets, not speed checks: a broken latency fault fails here instead of hanging the run.
        #expect(started.wait(timeout: .now() + 120) == .success)
        sandbox.stop()  // returns once the handler gave up waiting
        #expect(done.wait(timeout: .now() + 120) == .success)
        // 600 s in 20 ms slices would be 30,000 slices; stopping ended the wait long before.
        #expect(slices.withLock { $0 } < 30_000)
    }
}
