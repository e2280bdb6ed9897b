import Foundation
import JWE
import Synchronization

@testable import GatewaySandbox

/// A sandbox started for one test, with helpers that speak its wire protocol over `RawHTTPClient`.
final class TestGateway: Sendable {
    let sandbox: Sandbox
    /// Every slice of injected latency the sandbox asked its sleeper for (nothing really sleeps).
    let sleeps: SleepLog

    /// `sleep`, when given, is called after each slice of injected latency is recorded (a test
    /// can hold a request there).
    init(
        seed: UInt64 = 1, keys: (any CardKeyService)? = nil, keyMaxAge: Int = 300,
        now: @escaping @Sendable () -> Date = { Date() }, sleep: (@Sendable (Duration) -> Void)? = nil
    ) throws {
        var configuration = Sandbox.Configuration(seed: seed, keyMaxAge: keyMaxAge)
        configuration.now = now
        let sleeps = SleepLog()
        configuration.sleep = { duration in
            sleeps.record(duration)
            sleep?(duration)
        }
        self.sleeps = sleeps
        sandbox = try Sandbox(configuration: configuration, keys: keys ?? JWECardKeys(key: TestKeys.shared))
    }

    deinit { sandbox.stop() }

    var port: UInt16 { sandbox.port }

    func url(_ path: String) -> URL { URL(string: sandbox.merchantBaseURL.absoluteString + path)! }

    func statusURL(_ paymentId: String) -> URL {
        sandbox.apiBaseURL.appendingPathComponent("checkout/api/egw/v1/payments/\(paymentId)")
    }

    func sessionsURL(_ paymentId: String, _ rest: String = "") -> URL {
        URL(
            string: sandbox.checkoutAPIBaseURL.absoluteString
                + "/checkout/api/egw/v1/payments/\(paymentId)/card-sessions" + rest)!
    }

    var jwksURL: URL { URL(string: sandbox.checkoutBaseURL.absoluteString + "/checkout/.well-known/jwks.json")! }

    func notificationURL(_ sessionId: String) -> String {
        sandbox.checkoutBaseURL.absoluteString + "/checkout/3ds/notification/\(sessionId)"
    }

    /// A checkout-API call with the GATEWAY.md headers; pass `nil` to leave one out
    /// (`idempotencyKey` is left out unless given).
    func api(
        _ method: String, _ url: URL, key: String?, requestId: String? = UUID().uuidString, json: String? = nil,
        idempotencyKey: String? = nil
    ) throws -> RawResponse {
        var headers: [(String, String)] = [("Accept", "application/json"), ("User-Agent", "GatewaySandboxTests/1")]
        if let key { headers.append(("Obp-Verification-Key", key)) }
        if let requestId { headers.append(("X-Request-Id", requestId)) }
        if let idempotencyKey { headers.append(("Idempotency-Key", idempotencyKey)) }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        headers += controlHeaders(url)
        return try RawHTTPClient.request(method, url, headers: headers, body: json.map { Array($0.utf8) })
    }

    func postForm(_ url: URL, _ body: [UInt8], idempotencyKey: String? = nil) throws -> RawResponse {
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let idempotencyKey { headers.append(("Idempotency-Key", idempotencyKey)) }
        return try RawHTTPClient.request("POST", url, headers: headers, body: body)
    }

    func get(_ url: URL) throws -> RawResponse { try RawHTTPClient.request("GET", url, headers: controlHeaders(url)) }

    /// The control token for a `/sandbox/` URL (harmless on the merchant backend's, which ignores it).
    func controlHeaders(_ url: URL) -> [(String, String)] {
        url.path.hasPrefix("/sandbox/") ? [("X-Sandbox-Token", sandbox.controlToken)] : []
    }

}

/// The sleeps a sandbox asked for.
final class SleepLog: Sendable {
    private let slices = Mutex<[Duration]>([])
    func record(_ duration: Duration) { slices.withLock { $0.append(duration) } }
    var total: Duration { slices.withLock { $0.reduce(.zero, +) } }
}

/// One RSA-2048 key generated once for the whole test run (generation costs ~100 ms).
enum TestKeys {
    static let shared: RSAPrivateKey = {
        do {
            return try RSAPrivateKey.generate(bits: 2048)
        } catch {
            preconditionFailure("cannot generate the test key: \(error)")
        }
    }()
}
