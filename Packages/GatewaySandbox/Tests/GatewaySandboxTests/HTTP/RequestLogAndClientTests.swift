import Foundation
import Synchronization
import Testing

@testable import GatewaySandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPTests {
    /// The request log, a library HTTP client (URLSession), and concurrent clients.
    @Suite struct RequestLogAndClients {
        @Test func logRecordsMethodPathStatusEndpointAndRequestId() throws {
            let seen = Mutex<[SandboxRequestLogEntry]>([])
            var configuration = Sandbox.Configuration(privateKey: TestKeys.shared)
            configuration.requestObserver = { entry in seen.withLock { $0.append(entry) } }
            let sandbox = try Sandbox(configuration: configuration)
            defer { sandbox.stop() }
            let payment = sandbox.createPayment()
            let statusURL = sandbox.apiBaseURL.appendingPathComponent(
                "checkout/api/egw/v1/payments/\(payment.paymentId)")
            _ = try RawHTTPClient.request(
                "GET", statusURL,
                headers: [("Obp-Verification-Key", payment.verificationKey), ("X-Request-Id", "req-1")])
            _ = try RawHTTPClient.request("GET", statusURL, headers: [("X-Request-Id", "req-2")])
            _ = try RawHTTPClient.request("GET", sandbox.merchantBaseURL.appendingPathComponent("nowhere"))

            let log = sandbox.requestLog
            #expect(log.map(\.method) == ["GET", "GET", "GET"])
            #expect(log.map(\.path) == [statusURL.path, statusURL.path, "/nowhere"])
            #expect(log.map(\.status) == [200, 401, 404])
            #expect(log.map(\.endpoint) == [.statusLookup, .statusLookup, nil])
            #expect(log.map(\.requestId) == ["req-1", "req-2", nil])
            #expect(log.map(\.sequence) == [1, 2, 3])
            #expect(seen.withLock { $0 } == log)

            // Over HTTP; reading the log is not itself logged.
            let token = [("X-Sandbox-Token", sandbox.controlToken)]
            let body = try RawHTTPClient.request(
                "GET", sandbox.merchantBaseURL.appendingPathComponent("sandbox/log"), headers: token
            ).json()
            let entries = try #require(body["requests"] as? [[String: Any]])
            #expect(entries.count == 3)
            #expect(entries[0]["endpoint"] as? String == "status")
            #expect(entries[1]["status"] as? Int == 401)
            #expect(entries[2]["endpoint"] is NSNull)
            #expect(entries[0]["durationMs"] is Int)
            let cleared = try RawHTTPClient.request(
                "DELETE", sandbox.merchantBaseURL.appendingPathComponent("sandbox/log"), headers: token)
            #expect(cleared.status == 200)
            #expect(sandbox.requestLog.map(\.path) == ["/sandbox/log"])  // the DELETE itself
        }

        @Test func urlSessionPaysOnTheHostedPageFollowingThe303() async throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            var request = URLRequest(url: payment.checkoutURL)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data("choice=pay&method=card".utf8)
            request.timeoutInterval = 10
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }
            let (data, response) = try await session.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            // URLSession followed the 303 with a GET to shopRedirectUrl.
            #expect(http.statusCode == 200)
            #expect(http.url == payment.shopRedirectURL)
            #expect(Page(String(decoding: data, as: UTF8.self)).meta("egw-page") == "shop-return")
            #expect(gateway.sandbox.paymentStatus(payment.paymentId) == "SETTLED")

            var lookup = URLRequest(url: gateway.statusURL(payment.paymentId))
            lookup.setValue(payment.verificationKey, forHTTPHeaderField: "Obp-Verification-Key")
            lookup.setValue(UUID().uuidString, forHTTPHeaderField: "X-Request-Id")
            let (statusData, _) = try await session.data(for: lookup)
            let status = try JSONSerialization.jsonObject(with: statusData) as? [String: Any]
            #expect(status?["paymentStatus"] as? String == "SETTLED")
        }

        @Test func concurrentClientsKeepStateConsistent() throws {
            let gateway = try TestGateway()
            let flows = (0..<16).map { _ in CardFlow(gateway) }
            let key = try flows[0].fetchKey()
            let sealed = try flows.map { try $0.seal(CardFlow.cardJSON("5200828282828210"), to: key) }
            let results = Mutex<[Int: Int]>([:])
            DispatchQueue.concurrentPerform(iterations: flows.count) { index in
                let status = (try? flows[index].create(encryptedCard: sealed[index]).status) ?? -1
                results.withLock { $0[index] = status }
            }
            #expect(results.withLock { $0.values.allSatisfy { $0 == 201 } })
            #expect(flows.allSatisfy { gateway.sandbox.paymentStatus($0.payment.paymentId) == "SETTLED" })
            #expect(Set(flows.map(\.payment.paymentId)).count == flows.count)

            // Many sessions racing on one payment: exactly one settles it, the others are refused or superseded.
            let shared = CardFlow(gateway)
            let tokens = try (0..<8).map { _ in try shared.seal(CardFlow.cardJSON("5200828282828210"), to: key) }
            let outcomes = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: tokens.count) { index in
                let response = try? shared.create(encryptedCard: tokens[index])
                let outcome =
                    response.map { $0.status == 201 ? ($0.sessionStatus ?? "?") : ($0.errorCode ?? "?") } ?? "error"
                outcomes.withLock { $0.append(outcome) }
            }
            let all = outcomes.withLock { $0 }
            #expect(all.filter { $0 == "COMPLETED" }.count == 1)
            #expect(all.allSatisfy { ["COMPLETED", "FAILED", "PAYMENT_ALREADY_PROCESSED"].contains($0) })
        }
    }
}
