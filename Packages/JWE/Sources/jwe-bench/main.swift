// jwe-bench: encrypt and decrypt rates for a ~100-byte card JSON under RSA-2048, single-threaded.
// bench.sh runs it beside `openssl speed rsa2048` and prints the ratios.
//
//   jwe-bench [--seconds S] [--bits N] [--strategies] [--only encrypt|decrypt|both|components] [--wall]
//
// Output lines are `name ops_per_second`, easy to parse from a shell script.

@_spi(Benchmarks) import JWE

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// CPU time (user + system) of this process. `openssl speed` divides by CPU user time by default, so the
/// rates compare like with like even while other processes load the machine (this side also counts
/// system time, which only makes its figures more conservative).
func cpuTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

nonisolated(unsafe) var useWallClock = false

func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// Runs `body` in batches until `seconds` of wall-clock time have passed; returns operations per second of
/// CPU time (or of wall-clock time with `--wall`).
func measure(seconds: Double, _ body: () throws -> Void) rethrows -> Double {
    // Warm-up: first calls build contexts and fault in pages.
    for _ in 0..<32 { try body() }
    let start = now()
    let cpuStart = cpuTime()
    var count = 0
    var elapsed = 0.0
    repeat {
        for _ in 0..<32 { try body() }
        count += 32
        elapsed = now() - start
    } while elapsed < seconds
    let divisor = useWallClock ? elapsed : cpuTime() - cpuStart
    return Double(count) / divisor
}

var seconds = 3.0
var bits = 2048
var strategies = false
var only: String? = nil
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--seconds": seconds = Double(arguments.popFirst() ?? "") ?? seconds
    case "--bits": bits = Int(arguments.popFirst() ?? "") ?? bits
    case "--strategies": strategies = true
    case "--only": only = arguments.popFirst()
    case "--wall": useWallClock = true
    default:
        printError(
            "usage: jwe-bench [--seconds S] [--bits N] [--strategies] [--only encrypt|decrypt|both|components] [--wall]"
        )
        exit(64)
    }
}

do {
    let key = try RSAPrivateKey.generate(bits: bits, kid: "bench")
    let card = Array(
        #"{"cardholderName":"Test Buyer","cardNumber":"4111111111111111","expiryMonth":"12","expiryYear":"30","securityCode":"123"}"#
            .utf8)
    let encrypter = JWEEncrypter(recipient: key.publicKey)
    let decrypter = JWEDecrypter(key: key)
    let token = try encrypter.encrypt(card)
    let roundTrip = try decrypter.decrypt(token)
    precondition(roundTrip == card)
    print("payload_bytes \(card.count)")

    if only == nil || only == "encrypt" || only == "both" {
        let encryptRate = try measure(seconds: seconds) { _ = try encrypter.encrypt(card) }
        print("encrypt \(Int(encryptRate))")
    }
    if only == nil || only == "decrypt" || only == "both" {
        let decryptRate = try measure(seconds: seconds) { _ = try decrypter.decrypt(token) }
        print("decrypt \(Int(decryptRate))")
    }

    if only == "components" {
        let rows = try BenchmarkComponents.encryptBreakdown(
            key: key.publicKey, plaintextCount: card.count, iterations: 20_000, clock: cpuTime)
        for (name, nanoseconds) in rows { print("component \(name): \(Int(nanoseconds)) ns") }
        let encryptRate = try measure(seconds: seconds) { _ = try encrypter.encrypt(card) }
        print("encrypt \(Int(encryptRate)) (\(Int(1e9 / encryptRate)) ns)")
        let decryptRows = try BenchmarkComponents.decryptBreakdown(
            key: key, token: token, iterations: 2_000, clock: cpuTime)
        for (name, nanoseconds) in decryptRows { print("component \(name): \(Int(nanoseconds)) ns") }
    }
    if strategies {
        for strategy in BenchmarkContextStrategy.allCases {
            let rate = try measure(seconds: seconds) { _ = try encrypter.encrypt(card, strategy: strategy) }
            print("encrypt_\(strategy) \(Int(rate))")
        }
        for strategy in BenchmarkContextStrategy.allCases {
            let rate = try measure(seconds: seconds) { _ = try decrypter.decrypt(token, strategy: strategy) }
            print("decrypt_\(strategy) \(Int(rate))")
        }
    }
} catch {
    printError("jwe-bench: \(error)")
    exit(1)
}
