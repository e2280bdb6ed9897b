// jwe-bench: encrypt and decrypt rates for a ~100-byte card JSON under RSA-2048, single-threaded.
// bench.sh runs it beside `openssl speed rsa2048` and prints the ratios.
//
//   jwe-bench [--seconds S] [--bits N] [--only encrypt|decrypt|both|components] [--wall]
//
// Output lines are `name ops_per_second`, easy to parse from a shell script. `--only components` times the
// OpenSSL calls one message makes, straight through libcrypto (the library exports no benchmark API).

import COpenSSL
import JWE

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
var only: String? = nil
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--seconds": seconds = Double(arguments.popFirst() ?? "") ?? seconds
    case "--bits": bits = Int(arguments.popFirst() ?? "") ?? bits
    case "--only": only = arguments.popFirst()
    case "--wall": useWallClock = true
    default:
        printError(
            "usage: jwe-bench [--seconds S] [--bits N] [--only encrypt|decrypt|both|components] [--wall]"
        )
        exit(64)
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
}

/// Nanoseconds per call of each libcrypto step of one message, on an RSA key of the same size as `key`
/// (a PEM round trip hands the key to libcrypto directly).
func components(key: RSAPrivateKey, payloadCount: Int) throws -> [(String, Double)] {
    var results: [(String, Double)] = []
    func time(_ name: String, iterations: Int, _ body: () -> Void) {
        for _ in 0..<(iterations / 10 + 1) { body() }
        let start = cpuTime()
        for _ in 0..<iterations { body() }
        results.append((name, (cpuTime() - start) / Double(iterations) * 1e9))
    }
    let pem = Array(key.pemRepresentation.utf8)
    // The BIO reads the array's storage: the whole read happens while the buffer is pinned.
    let loaded: OpaquePointer? = pem.withUnsafeBytes { bytes in
        guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
        defer { BIO_free(bio) }
        var empty: CChar = 0
        return PEM_read_bio_PrivateKey(bio, nil, nil, &empty)
    }
    guard let pkey = loaded else { throw BenchFailure(description: "cannot load the key") }
    guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil), let gcm = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else {
        throw BenchFailure(description: "cannot fetch SHA-256 / AES-256-GCM")
    }
    defer {
        EVP_PKEY_free(pkey)
        EVP_MD_free(sha256)
        EVP_CIPHER_free(gcm)
    }
    let size = Int(EVP_PKEY_get_size(pkey))
    var secrets = [UInt8](repeating: 0, count: 44)
    var block = [UInt8](repeating: 0, count: size)
    var cek = [UInt8](repeating: 0, count: size)
    time("RAND_priv_bytes(44)", iterations: 20_000) { _ = RAND_priv_bytes(&secrets, 44) }

    func oaepContext(encrypt: Bool) throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil),
            (encrypt ? EVP_PKEY_encrypt_init(context) : EVP_PKEY_decrypt_init(context)) == 1,
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1,
            EVP_PKEY_CTX_set_rsa_oaep_md(context, sha256) == 1,
            EVP_PKEY_CTX_set_rsa_mgf1_md(context, sha256) == 1
        else { throw BenchFailure(description: "cannot prepare an RSA-OAEP-256 context") }
        return context
    }
    let encryptContext = try oaepContext(encrypt: true)
    defer { EVP_PKEY_CTX_free(encryptContext) }
    time("EVP_PKEY_encrypt OAEP-256 (32 B)", iterations: 20_000) {
        var length = block.count
        _ = EVP_PKEY_encrypt(encryptContext, &block, &length, secrets, 32)
    }
    let decryptContext = try oaepContext(encrypt: false)
    defer { EVP_PKEY_CTX_free(decryptContext) }
    time("EVP_PKEY_decrypt OAEP-256", iterations: 500) {
        var length = cek.count
        _ = EVP_PKEY_decrypt(decryptContext, &cek, &length, block, block.count)
    }
    guard let cipher = EVP_CIPHER_CTX_new(), EVP_EncryptInit_ex2(cipher, gcm, nil, nil, nil) == 1 else {
        throw BenchFailure(description: "cannot prepare an AES-256-GCM context")
    }
    defer { EVP_CIPHER_CTX_free(cipher) }
    let aad = [UInt8](repeating: 0x65, count: 70)
    let plaintext = [UInt8](repeating: 0x41, count: payloadCount)
    var ciphertext = [UInt8](repeating: 0, count: payloadCount + 16)
    var tag = [UInt8](repeating: 0, count: 16)
    var finalBlock = [UInt8](repeating: 0, count: 16)
    let iv = Array(secrets[32...])
    time("AES-256-GCM seal (\(payloadCount) B)", iterations: 20_000) {
        var written: Int32 = 0
        _ = EVP_EncryptInit_ex2(cipher, nil, secrets, iv, nil)
        _ = EVP_EncryptUpdate(cipher, nil, &written, aad, Int32(aad.count))
        _ = EVP_EncryptUpdate(cipher, &ciphertext, &written, plaintext, Int32(plaintext.count))
        _ = EVP_EncryptFinal_ex(cipher, &finalBlock, &written)
        _ = EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_GET_TAG, 16, &tag)
    }
    OPENSSL_cleanse(&secrets, secrets.count)
    OPENSSL_cleanse(&cek, cek.count)
    return results
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
        for (name, nanoseconds) in try components(key: key, payloadCount: card.count) {
            print("component \(name): \(Int(nanoseconds)) ns")
        }
        let encryptRate = try measure(seconds: seconds) { _ = try encrypter.encrypt(card) }
        print("encrypt \(Int(encryptRate)) (\(Int(1e9 / encryptRate)) ns)")
        let decryptRate = try measure(seconds: seconds) { _ = try decrypter.decrypt(token) }
        print("decrypt \(Int(decryptRate)) (\(Int(1e9 / decryptRate)) ns)")
    }
} catch {
    printError("jwe-bench: \(error)")
    exit(1)
}
