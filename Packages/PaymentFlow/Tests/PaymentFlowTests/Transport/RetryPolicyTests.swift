import Foundation
import LoopbackTestServer
import Synchronization
import Testing

@testable import PaymentFlow

/// A transport that answers from a script, asynchronously, and counts attempts.
final class ScriptedTransport: HTTPTransport {
    private let script: Mutex<[Result<HTTPResponse, TransportError>]>
    private let sent = Mutex<[HTTPRequest]>([])

    init(_ script: [Result<HTTPResponse, TransportError>]) {
        self.script = Mutex(script)
    }

    var requests: [HTTPRequest] { sent.withLock { $0 } }

    func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void) {
        sent.withLock { $0.append(request) }
        let next = script.withLock {
            $0.isEmpty ? .failure(TransportError(.other, "script exhausted")) : $0.removeFirst()
        }
        DispatchQueue.global().async { completion(next) }
    }
}

/// Records the sleeps it is asked for and fires at once (no wall-clock waits).
final class RecordingSleeper: Sendable {
    private let delays = Mutex<[TimeInterval]>([])
    var recorded: [TimeInterval] { delays.withLock { $0 } }
    var sleep: @Sendable (TimeInterval, @escaping @Sendable () -> Void) -> Void {
        { seconds, work in
            self.delays.withLock { $0.append(seconds) }
            DispatchQueue.global().async(execute: work)
        }
    }
}

@Suite struct RetryPolicyTests {
    static let url = URL(string: "http://127.0.0.1:9/x")!

    static func status(_ code: Int) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: code, url: url))
    }
    static func fault(_ kind: TransportError.Kind) -> Result<HTTPResponse, TransportError> {
        .failure(TransportError(kind, "scripted"))
    }

    func run(
        _ method: String, _ script: [Result<HTTPResponse, TransportError>], random: Double = 0.5
    ) async -> (Result<HTTPResponse, TransportError>, ScriptedTransport, RecordingSleeper) {
        let base = ScriptedTransport(script)
        let sleeper = RecordingSleeper()
        let policy = RetryPolicy(
            maxAttempts: 3, baseDelay: 0.25, maxDelay: 2, unitRandom: { random }, sleep: sleeper.sleep)
        let transport = RetryingTransport(base: base, policy: policy)
        let result = await send(HTTPRequest(method: method, url: Self.url), over: transport)
        return (result, base, sleeper)
    }

    @Test func transientFailuresOfAGetAreRetriedWithJitteredBackoff() async throws {
        let (result, base, sleeper) = await run("GET", [Self.fault(.connect), Self.status(503), Self.status(200)])
        #expect(try result.get().status == 200)
        #expect(base.requests.count == 3)
        // Hand-computed: retry 1 ceiling 0.25 -> 0.125 + 0.5*0.125 = 0.1875;
        // retry 2 ceiling 0.5 -> 0.25 + 0.5*0.25 = 0.375.
        #expect(sleeper.recorded == [0.1875, 0.375])
    }

    @Test(arguments: [TransportError.Kind.connect, .timeout, .reset])
    func eachTransientKindIsRetried(kind: TransportError.Kind) async throws {
        let (result, base, _) = await run("GET", [Self.fault(kind), Self.status(200)])
        #expect(try result.get().status == 200)
        #expect(base.requests.count == 2)
    }

    @Test func attemptsAreBoundedAndTheLastResultIsReported() async throws {
        let (result, base, sleeper) = await run(
            "GET", [Self.status(500), Self.status(502), Self.status(504), Self.status(200)])
        #expect(try result.get().status == 504)
        #expect(base.requests.count == 3)
        #expect(sleeper.recorded.count == 2)
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH"])
    func nonIdempotentRequestsAreNeverRetried(method: String) async {
        let (result, base, sleeper) = await run(method, [Self.fault(.timeout), Self.status(200)])
        #expect(result.failureKind == .timeout)
        #expect(base.requests.count == 1)
        #expect(sleeper.recorded.isEmpty)
    }

    @Test(arguments: [TransportError.Kind.tls, .pinningFailed, .responseTooLarge, .invalidURL, .insecureScheme, .other])
    func permanentFailuresAreFinal(kind: TransportError.Kind) async {
        let (result, base, _) = await run("GET", [Self.fault(kind), Self.status(200)])
        #expect(result.failureKind == kind)
        #expect(base.requests.count == 1)
    }

    @Test(arguments: [200, 302, 400, 404, 409, 422])
    func nonServerErrorStatusesAreFinal(status: Int) async throws {
        let (result, base, _) = await run("GET", [Self.status(status), Self.status(200)])
        #expect(try result.get().status == status)
        #expect(base.requests.count == 1)
    }

    @Test func backoffIsCappedAndJitterSpansTheUpperHalf() {
        let low = RetryPolicy(baseDelay: 0.25, maxDelay: 2, unitRandom: { 0 })
        let high = RetryPolicy(baseDelay: 0.25, maxDelay: 2, unitRandom: { 0.999_999 })
        // Retry 10: 0.25 * 2^9 = 128 s, capped at 2 s -> jitter range [1, 2).
        #expect(low.delay(beforeRetry: 10) == 1.0)
        #expect(high.delay(beforeRetry: 10) < 2.0)
        #expect(high.delay(beforeRetry: 10) > 1.99)
        // Retry 3: ceiling 1 s -> [0.5, 1).
        #expect(low.delay(beforeRetry: 3) == 0.5)
    }

    @Test func neverMeansOneAttempt() async {
        let base = ScriptedTransport([Self.fault(.reset), Self.status(200)])
        let result = await send(
            HTTPRequest(method: "GET", url: Self.url), over: RetryingTransport(base: base, policy: .never))
        #expect(result.failureKind == .reset)
        #expect(base.requests.count == 1)
    }
}

/// One deadline per operation: the retries of a read stop where the run's watchdog would fire.
@Suite struct RetryBudgetTests {
    /// Attempt n ends at `n * 4` seconds of a fake clock (each attempt "takes" 4 s).
    func attempts(budget: TimeInterval?, timeout: TimeInterval) async -> Int {
        let transport = ScriptedTransport(Array(repeating: RetryPolicyTests.fault(.timeout), count: 5))
        let clock = Mutex<TimeInterval>(0)
        let policy = RetryPolicy(
            maxAttempts: 5, baseDelay: 1, maxDelay: 1, unitRandom: { 1 },
            sleep: { _, work in DispatchQueue.global().async(execute: work) }, budget: budget,
            now: { clock.withLock { $0 } })
        let counting = CountingTransport(base: transport) { clock.withLock { $0 += 4 } }
        let retrying = RetryingTransport(base: counting, policy: policy)
        await withCheckedContinuation { continuation in
            retrying.send(HTTPRequest(method: "GET", url: RetryPolicyTests.url, timeout: timeout)) { _ in
                continuation.resume()
            }
        }
        return transport.requests.count
    }

    @Test func withoutABudgetOnlyTheAttemptsBoundTheRetries() async {
        #expect(await attempts(budget: nil, timeout: 4) == 5)
    }

    @Test func aRetryThatCouldNotFinishInTheBudgetIsNotStarted() async {
        // After attempt 1 (t = 4): 4 + 1 delay + 4 timeout = 9 <= 10, so attempt 2; after it (t = 8):
        // 8 + 1 + 4 = 13 > 10, so no attempt 3.
        #expect(await attempts(budget: 10, timeout: 4) == 2)
        #expect(await attempts(budget: 5, timeout: 4) == 1)
    }
}

/// Runs `tick` after each attempt of `base` completes.
struct CountingTransport: HTTPTransport {
    let base: any HTTPTransport
    let tick: @Sendable () -> Void

    func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void) {
        base.send(request) { result in
            tick()
            completion(result)
        }
    }
}

/// `Configuration.transportSecurity` reaches the libcurl transport the kit builds.
@Suite struct TransportSecurityWiringTests {
    /// The base64 of 32 zero bytes: a well-formed pin (hand-computed: 43 'A's and '=').
    static let pin = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

    /// Issue 23: pins are checked when configured, not discovered broken at the first connection.
    @Test func malformedPinsAreAConfigurationError() {
        for pins in [["sha256//AAAA"], ["sha1//" + String(Self.pin.dropFirst(8))], [], ["sha256//not base64!"]] {
            var configuration = Configuration(environment: .live)
            configuration.transportSecurity = .pinning(["gw.example": pins])
            #expect(configuration.validationError()?.code == 1, "\(pins)")
        }
        var good = Configuration(environment: .live)
        good.transportSecurity = .pinning(["gw.example": [Self.pin]])
        #expect(good.validationError() == nil)
    }

    /// Issue 23: pins are looked up on the normalised host: case and a trailing dot do not escape them.
    @Test func aTrailingDotOrCaseStillFindsThePin() throws {
        let options = CurlTransport.Options(pinnedPublicKeys: ["API.example.com": [Self.pin]])
        for host in ["api.example.com", "API.EXAMPLE.COM.", "api.example.com."] {
            let request = HTTPRequest(method: "GET", url: try #require(URL(string: "https://\(host)/x")))
            let hop = try CurlTransport.makeHop(request, options: options, remaining: 5).get()
            #expect(hop.pinnedPublicKey == Self.pin, "\(host)")
        }
    }

    /// Issue 23: TLS key logging is off unless the configuration asks for it by its dangerous name.
    @Test func theTLSKeyLogIsOffUnlessAskedFor() throws {
        var configuration = Configuration(environment: .live)
        #expect(!CurlTransport(configuration: configuration).options.dangerouslyWritesTLSKeyLog)
        configuration.transportSecurity.dangerouslyWritesTLSKeyLog = true
        #expect(CurlTransport(configuration: configuration).options.dangerouslyWritesTLSKeyLog)
    }

    @Test func pinsCAFileAndProxyReachTheTransport() throws {
        var configuration = Configuration(environment: .live)
        configuration.transportSecurity = TransportSecurity.pinning(["gw.example": [Self.pin]])
            .usingProxyEnvironment()
        configuration.transportSecurity.certificateAuthorityFile = "/tmp/ca.pem"
        let live = FlowDependencies.live(configuration: configuration)
        let curl = try #require((live.transport as? RetryingTransport)?.base as? CurlTransport)
        #expect(curl.options.pinnedPublicKeys == ["gw.example": [Self.pin]])
        #expect(curl.options.trustedCertificatesPath == "/tmp/ca.pem")
        #expect(curl.options.proxy == .environment)
        #expect(curl.options.requireHTTPS)
        let plain = FlowDependencies.live(configuration: Configuration(environment: .sandbox))
        let direct = try #require((plain.transport as? RetryingTransport)?.base as? CurlTransport)
        #expect(direct.options.pinnedPublicKeys.isEmpty)
        #expect(direct.options.trustedCertificatesPath == nil)
        #expect(direct.options.proxy == .direct)
    }
}
