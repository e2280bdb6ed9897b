// PaymentFlow benchmarks (release build, run by bench.sh / `make bench`).
//
// Against the in-process sandbox on loopback, with the real libcurl transport:
// - frictionless card payments per second end to end, the time split into SDK
//   work, RSA/JWE encryption and waiting on the server, as ratios against a
//   baseline measured in the same run (the same two HTTP round trips made with
//   the bare transport, plus one bare JWE encryption);
// - HTTP requests per frictionless card payment (key cached / not cached) and
//   per hosted payment (the SDK's own, and with the page loads);
// - memory held after 1,000 and after 10,000 payments (RSS once the sandbox of the
//   round is released and freed memory returned), and the payment runs left alive.
import Dispatch
import Foundation
import GatewaySandbox
import HeadlessBrowser
import JWE
@_spi(Diagnostics) import PaymentFlow
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// glibc's `malloc_trim(0)` (in `<malloc.h>`, which Swift's Glibc module does not import), looked up at run time.
func releaseFreedMemory() {
    #if canImport(Glibc)
    typealias Trim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(nil, "malloc_trim") { _ = unsafeBitCast(symbol, to: Trim.self)(0) }
    #endif
}

func residentKiB() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

let arguments = CommandLine.arguments
// `bench.sh latency` runs only the round-trip figures (issue 13); a full run prints them last.
let latencyPayments = Int(ProcessInfo.processInfo.environment["EGW_BENCH_LATENCY_PAYMENTS"] ?? "") ?? 20
let latencyRoundTrip = Duration.milliseconds(Int(ProcessInfo.processInfo.environment["EGW_BENCH_RTT_MS"] ?? "") ?? 50)
if arguments.dropFirst().first == "latency" {
    runLatencyBench(payments: latencyPayments, roundTrip: latencyRoundTrip)
    exit(0)
}
let paymentsPerRound = Int(ProcessInfo.processInfo.environment["EGW_BENCH_PAYMENTS"] ?? "") ?? 2000
let memoryTotal = Int(ProcessInfo.processInfo.environment["EGW_BENCH_MEMORY_PAYMENTS"] ?? "") ?? 10_000

let sandbox: Sandbox
do {
    sandbox = try Sandbox(configuration: .init(seed: 5, keyMaxAge: 3600))
} catch {
    print("bench: the sandbox did not start: \(error)")
    exit(1)
}
let callbacks = DispatchQueue(label: "bench.callbacks")

/// Splits each payment's time from what the observer reports.
final class Split: Sendable {
    let encryption = Mutex<Double>(0)
    let server = Mutex<Double>(0)
    let exchanges = Mutex<Int>(0)
    func reset() {
        encryption.withLock { $0 = 0 }
        server.withLock { $0 = 0 }
        exchanges.withLock { $0 = 0 }
    }
}
let split = Split()

func configuration() -> PaymentFlow.Configuration {
    var configuration = PaymentFlow.Configuration(
        apiBaseURL: sandbox.apiBaseURL, checkoutAPIBaseURL: sandbox.checkoutAPIBaseURL,
        checkoutBaseURL: sandbox.checkoutBaseURL, environment: .sandbox)
    configuration.callbackQueue = callbacks
    configuration.requestTimeout = 10
    return configuration
}

/// The timed round's payments feed `split`.
let observing = PaymentOptions(observer: { event in
    switch event {
    case .cardEncrypted(_, let duration): split.encryption.withLock { $0 += duration }
    case .http(let exchange):
        split.server.withLock { $0 += exchange.duration }
        split.exchanges.withLock { $0 += 1 }
    default: break
    }
})

let presenter = HeadlessBrowserPresenter(script: .answering(hosted: .pay, challengeCode: "1234"))

@discardableResult
func payCard(
    _ kit: PaymentKit, number: String = "4111111111111111", options: PaymentOptions = PaymentOptions()
) -> PaymentResult {
    let payment = sandbox.createPayment()
    let card = CardInput(
        cardholderName: "Bench", cardNumber: number, expiryMonth: "12", expiryYear: "35", securityCode: "123")
    let done = DispatchSemaphore(value: 0)
    let box = Mutex<PaymentResult?>(nil)
    // The async form: its result comes on the callback queue while this thread waits (the completion
    // form's is @MainActor, on the main queue this thread holds).
    Task.detached {
        let result = await kit.startCardPayment(
            CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey), card: card,
            from: presenter, options: options)
        box.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return box.withLock { $0! }
}

@discardableResult
func payHosted(_ kit: PaymentKit) -> PaymentResult {
    let payment = sandbox.createPayment()
    let done = DispatchSemaphore(value: 0)
    let box = Mutex<PaymentResult?>(nil)
    Task.detached {
        let result = await kit.startPayment(
            PaymentRequest(
                paymentId: payment.paymentId, verificationKey: payment.verificationKey,
                checkoutURL: payment.checkoutURL, returnURL: payment.shopRedirectURL), from: presenter)
        box.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return box.withLock { $0! }
}

// MARK: - Baseline: the bare wire and the bare encryption, same run

let transport = CurlTransport()
func bareRoundTrip(_ request: HTTPRequest) -> Double {
    let done = DispatchSemaphore(value: 0)
    let start = now()
    transport.send(request) { _ in done.signal() }
    done.wait()
    return now() - start
}

let jwkRequest = HTTPRequest(
    method: "GET", url: sandbox.checkoutBaseURL.appendingPathComponent("checkout/.well-known/jwks.json"),
    headers: [HTTPHeader("Accept", "application/json")])
let plaintext = Array(
    #"{"cardholderName":"Bench","cardNumber":"4111111111111111","expiryMonth":"12","expiryYear":"35","securityCode":"123"}"#
        .utf8)
let sandboxKeyText: String = {
    let done = DispatchSemaphore(value: 0)
    let box = Mutex<String>("")
    transport.send(jwkRequest) { result in
        if case .success(let response) = result { box.withLock { $0 = String(decoding: response.body, as: UTF8.self) } }
        done.signal()
    }
    done.wait()
    return box.withLock { $0 }
}()
let sandboxKey: RSAPublicKey? = {
    guard let object = try? JSONSerialization.jsonObject(with: Data(sandboxKeyText.utf8)) as? [String: Any],
        let first = (object["keys"] as? [[String: Any]])?.first,
        let data = try? JSONSerialization.data(withJSONObject: first)
    else { return nil }
    return try? RSAPublicKey(jwk: String(decoding: data, as: UTF8.self))
}()
@discardableResult
func bareCardPayment() -> Double {
    let payment = sandbox.createPayment()
    guard let sandboxKey, let token = try? JWEEncrypter(recipient: sandboxKey).encrypt(plaintext) else { return 0 }
    let base =
        sandbox.checkoutAPIBaseURL.absoluteString + "/checkout/api/egw/v1/payments/\(payment.paymentId)/card-sessions"
    func post(_ url: String, _ body: String) -> [UInt8] {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<[UInt8]>([])
        transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: url)!,
                headers: [
                    HTTPHeader("Obp-Verification-Key", payment.verificationKey),
                    HTTPHeader("X-Request-Id", UUID().uuidString),
                    HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json"),
                ],
                body: Array(body.utf8))
        ) { result in
            if case .success(let response) = result { box.withLock { $0 = response.body } }
            done.signal()
        }
        done.wait()
        return box.withLock { $0 }
    }
    let wireStart = now()
    let created = post(base, #"{"encryptedCard":"\#(token)"}"#)
    guard let object = try? JSONSerialization.jsonObject(with: Data(created)) as? [String: Any],
        let sessionId = object["sessionId"] as? String
    else { return 0 }
    _ = post(
        base + "/\(sessionId)/authentication",
        #"{"notificationUrl":"\#(sandbox.checkoutBaseURL.absoluteString)/checkout/3ds/notification/\#(sessionId)","browser":{"userAgent":"b","acceptHeader":"*/*","language":"en-GB","timeZoneOffsetMinutes":0}}"#
    )
    return now() - wireStart
}
for _ in 0..<200 { bareCardPayment() }  // warm up
// The same two requests a cached-key frictionless payment makes (create session, authenticate), with the
// bare transport and a pre-encrypted card: the server's work (decrypting the card, 3-D Secure) included.
var baselineWire = 0.0
for _ in 0..<paymentsPerRound { baselineWire += bareCardPayment() }
baselineWire /= Double(paymentsPerRound)

let benchKey = try RSAPrivateKey.generate(bits: 2048, kid: "bench")
let encrypter = JWEEncrypter(recipient: benchKey.publicKey)
for _ in 0..<200 { _ = try encrypter.encrypt(plaintext) }
var baselineEncryption = now()
for _ in 0..<paymentsPerRound { _ = try encrypter.encrypt(plaintext) }
baselineEncryption = (now() - baselineEncryption) / Double(paymentsPerRound)
let baselinePayment = baselineWire + baselineEncryption

// MARK: - Frictionless card payments per second

let kit = PaymentKit(configuration: configuration())
for _ in 0..<200 { payCard(kit, options: observing) }  // warm up (and cache the key)
split.reset()
let roundStart = now()
var succeeded = 0
for _ in 0..<paymentsPerRound where payCard(kit, options: observing).outcome == .succeeded { succeeded += 1 }
let elapsed = now() - roundStart
let perPayment = elapsed / Double(paymentsPerRound)
let encryption = split.encryption.withLock { $0 } / Double(paymentsPerRound)
let server = split.server.withLock { $0 } / Double(paymentsPerRound)
let sdkWork = max(0, perPayment - encryption - server)

func ms(_ seconds: Double) -> String { String(format: "%.3f ms", seconds * 1000) }
func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2fx", a / b) }

print("== PaymentFlow benchmarks (release, in-process sandbox on loopback, libcurl) ==")
print(
    "baseline (same run): bare transport, the same 2 POSTs (create session, authenticate) \(ms(baselineWire)); bare JWE encryption \(ms(baselineEncryption)); sum \(ms(baselinePayment))"
)
print(
    "frictionless card payments: \(paymentsPerRound) sequential, \(succeeded) succeeded, \(String(format: "%.0f", Double(paymentsPerRound) / elapsed)) payments/s"
)
print("  per payment \(ms(perPayment)) = \(ratio(perPayment, baselinePayment)) the baseline")
print("  waiting on the server (HTTP as the SDK saw it) \(ms(server)) = \(ratio(server, baselineWire)) the bare POSTs")
print("  RSA/JWE encryption \(ms(encryption)) = \(ratio(encryption, baselineEncryption)) the bare encryption")
print(
    "  SDK work (validation, machines, driver, JSON, queues) \(ms(sdkWork)) = \(String(format: "%.1f%%", sdkWork / perPayment * 100)) of the payment"
)

// MARK: - Requests per payment

func sdkRequests(_ body: () -> Void) -> (sdk: Int, all: Int) {
    let mark = sandbox.requestLog.last?.sequence ?? 0
    body()
    let entries = sandbox.requestLog.filter { $0.sequence > mark }
    let api: [SandboxEndpoint] = [
        .statusLookup, .jwks, .cardSessionCreate, .cardSessionGet, .authentication, .challengeResult,
    ]
    return (entries.filter { api.contains($0.endpoint ?? .any) }.count, entries.count)
}
let cached = sdkRequests { payCard(kit) }
let uncached = sdkRequests { payCard(PaymentKit(configuration: configuration())) }
let hosted = sdkRequests { payHosted(kit) }
let challenge = sdkRequests { payCard(kit, number: "5555555555554444") }
print(
    "HTTP requests per frictionless card payment: \(cached.sdk) with the key cached (target 2), \(uncached.sdk) without (target 3)"
)
print("HTTP requests per hosted payment: \(hosted.sdk) by the SDK (status lookup), \(hosted.all) with the page loads")
print("HTTP requests per challenged card payment: \(challenge.sdk) by the SDK, \(challenge.all) with the ACS pages")

// MARK: - Memory

/// Makes `count` payments (9 card : 1 hosted) with a fresh kit against a fresh in-process sandbox, then
/// stops and releases the sandbox, returns freed memory to the system (`malloc_trim`) and reads the RSS:
/// what the process still holds once the sandbox's own records are gone.
func heldAfter(_ count: Int) -> Int {
    do {
        let local = try Sandbox(configuration: .init(seed: UInt64(count), keyMaxAge: 3600))
        var configuration = PaymentFlow.Configuration(
            apiBaseURL: local.apiBaseURL, checkoutAPIBaseURL: local.checkoutAPIBaseURL,
            checkoutBaseURL: local.checkoutBaseURL, environment: .sandbox)
        configuration.callbackQueue = callbacks
        let kit = PaymentKit(configuration: configuration)
        for index in 0..<count {
            let payment = local.createPayment()
            let done = DispatchSemaphore(value: 0)
            if index % 10 == 9 {
                Task.detached {
                    _ = await kit.startPayment(
                        PaymentRequest(
                            paymentId: payment.paymentId, verificationKey: payment.verificationKey,
                            checkoutURL: payment.checkoutURL, returnURL: payment.shopRedirectURL), from: presenter)
                    done.signal()
                }
            } else {
                let card = CardInput(
                    cardholderName: "Bench", cardNumber: "4111111111111111", expiryMonth: "12", expiryYear: "35",
                    securityCode: "123")
                Task.detached {
                    _ = await kit.startCardPayment(
                        CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey),
                        card: card, from: presenter)
                    done.signal()
                }
            }
            done.wait()
            if index % 500 == 499 { local.clearRequestLog() }
        }
        local.stop()
    } catch {
        print("bench: a sandbox did not start: \(error)")
        exit(1)
    }
    Thread.sleep(forTimeInterval: 0.3)  // let the last queues and transfer threads unwind
    releaseFreedMemory()
    return residentKiB()
}
_ = heldAfter(1000)  // warm up: pools, caches, allocator arenas
let rssAt1k = heldAfter(1000)
let rssAtEnd = heldAfter(memoryTotal)
let liveRuns = PaymentDiagnostics.livePaymentRuns
print(
    "memory held (RSS after the sandbox is released and malloc_trim): \(rssAt1k) KiB after 1,000 payments, \(rssAtEnd) KiB after \(memoryTotal) = \(ratio(Double(rssAtEnd), Double(rssAt1k))) (\(rssAtEnd - rssAt1k >= 0 ? "+" : "")\(rssAtEnd - rssAt1k) KiB)"
)
print("  payment runs still alive after every payment of this run: \(liveRuns)")
sandbox.stop()

runLatencyBench(payments: latencyPayments, roundTrip: latencyRoundTrip)
