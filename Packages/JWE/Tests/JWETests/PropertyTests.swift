import Foundation
import Testing

@testable import JWE

/// Properties over many messages: round trips at every size class up to 64 KiB, fresh CEK and IV per message,
/// and the single generic error for any one-bit change.
@Suite("Properties")
struct PropertyTests {
    static let key: RSAPrivateKey = try! RSAPrivateKey.generate(bits: 2048)

    /// Sizes around the AES block (16), base64 groups (3) and powers of two up to 64 KiB.
    static let sizes: [Int] = [
        0, 1, 2, 3, 4, 15, 16, 17, 31, 32, 33, 47, 48, 100, 255, 256, 257, 1000, 1023, 1024,
        4095, 4096, 4097, 10_000, 32_768, 65_535, 65_536,
    ]

    @Test(arguments: sizes)
    func roundTrip(_ size: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let plaintext = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let token = try JWEEncrypter(recipient: Self.key.publicKey).encrypt(plaintext)
        #expect(try JWEDecrypter(key: Self.key).decrypt(token) == plaintext)
        // Ciphertext segment length follows from the plaintext length (GCM adds no padding).
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(segments[3].count == (size * 4 + 2) / 3)
    }

    /// Concurrent use of one encrypter and one decrypter from many tasks (contexts are never shared).
    @Test func concurrentUseOfOneEncrypterAndDecrypter() async throws {
        let encrypter = JWEEncrypter(recipient: Self.key.publicKey)
        let decrypter = JWEDecrypter(key: Self.key)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let plaintext = Array("message \(index)".utf8)
                    return try decrypter.decrypt(encrypter.encrypt(plaintext)) == plaintext
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 })
    }

    /// Two encryptions never share a CEK, an IV or an encrypted key (500 messages of the same plaintext).
    @Test func freshCEKAndIVPerMessage() throws {
        let encrypter = JWEEncrypter(recipient: Self.key.publicKey)
        let plaintext = Array(#"{"cardNumber":"4111111111111111"}"#.utf8)
        var ceks = Set<[UInt8]>()
        var ivs = Set<[UInt8]>()
        var tokens = Set<String>()
        for _ in 0..<500 {
            var observed: ([UInt8], [UInt8]) = ([], [])
            let token = try encrypter.encrypt(plaintext) { cek, iv in observed = (cek, iv) }
            #expect(observed.0.count == 32)
            #expect(observed.1.count == 12)
            ceks.insert(observed.0)
            ivs.insert(observed.1)
            tokens.insert(token)
            // The IV observed is the IV in the token.
            let ivSegment = token.split(separator: ".", omittingEmptySubsequences: false)[2]
            #expect(Vectors.unbase64url(String(ivSegment)) == observed.1)
        }
        #expect(ceks.count == 500)
        #expect(ivs.count == 500)
        #expect(tokens.count == 500)
    }

    /// Flipping any single bit of the decoded encrypted key, IV, ciphertext or tag, or of the `kid` text in the
    /// header (which keeps the header valid), gives exactly the one generic error.
    @Test func everyBitFlipOfTheBinarySegmentsGivesTheGenericError() throws {
        let recipient = Self.key.publicKey.withKid("k1")
        let token = try JWEEncrypter(recipient: recipient).encrypt(Array(#"{"n":"4111"}"#.utf8))
        let decrypter = JWEDecrypter(key: Self.key)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var checked = 0
        for segment in 1...4 {
            let bytes = try #require(Vectors.unbase64url(parts[segment]))
            for bit in 0..<(bytes.count * 8) {
                var flipped = bytes
                flipped[bit / 8] ^= 1 << (bit % 8)
                var mutated = parts
                mutated[segment] = Vectors.base64url(flipped)
                let compact = mutated.joined(separator: ".")
                do {
                    _ = try decrypter.decrypt(compact)
                    Issue.record("accepted a token with bit \(bit) of segment \(segment) flipped")
                } catch {
                    #expect(error == JWEError.decryptionFailedGeneric)
                }
                checked += 1
            }
        }
        // Header: flip the low bits of the kid value characters ("k1" -> "j1", "k0", ...): still valid JSON.
        let headerJSON = try #require(Vectors.unbase64url(parts[0]))
        #expect(String(decoding: headerJSON, as: UTF8.self).hasSuffix(#""kid":"k1"}"#))
        let kidStart = headerJSON.count - 4  // `k1"}`
        for offset in kidStart..<(kidStart + 2) {
            for bit in 0..<3 {
                var flipped = headerJSON
                flipped[offset] ^= 1 << bit
                var mutated = parts
                mutated[0] = Vectors.base64url(flipped)
                #expect(
                    errorCode { () throws(JWEError) in try decrypter.decrypt(mutated.joined(separator: ".")) }
                        == .decryptionFailed)
                checked += 1
            }
        }
        #expect(checked > 2000)
    }

    /// Flipping any single bit of any character of the compact text never yields a plaintext: the token is
    /// refused as malformed (the character left the alphabet, the header broke) or with the generic error.
    @Test func everyBitFlipOfTheTextIsRefused() throws {
        let token = try JWEEncrypter(recipient: Self.key.publicKey).encrypt(Array("4111 1111 1111 1111".utf8))
        let decrypter = JWEDecrypter(key: Self.key)
        let bytes = Array(token.utf8)
        var codes: [JWEError.Code: Int] = [:]
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                let compact = String(decoding: flipped, as: UTF8.self)
                let code = errorCode { () throws(JWEError) in try decrypter.decrypt(compact) }
                #expect(code != nil, "accepted with byte \(index) bit \(bit) flipped")
                if let code {
                    #expect([.malformed, .decryptionFailed, .unsupportedAlgorithm].contains(code))
                    codes[code, default: 0] += 1
                }
            }
        }
        #expect((codes[.decryptionFailed] ?? 0) > 0)
        #expect((codes[.malformed] ?? 0) > 0)
    }

    /// The size cap is applied before parsing, and is the policy's.
    @Test func sizeCap() throws {
        let token = try JWEEncrypter(recipient: Self.key.publicKey).encrypt(Array(repeating: 7, count: 1000))
        let tight = JWEDecrypter(key: Self.key, policy: JWEPolicy(maximumCompactLength: token.utf8.count - 1))
        #expect(errorCode { () throws(JWEError) in try tight.decrypt(token) } == .tooLarge)
        #expect(
            errorCode { () throws(JWEError) in try tight.decrypt(String(repeating: "x", count: 5000)) } == .tooLarge)
        let exact = JWEDecrypter(key: Self.key, policy: JWEPolicy(maximumCompactLength: token.utf8.count))
        #expect(try exact.decrypt(token).count == 1000)
        let huge = String(repeating: "A", count: 300 * 1024)
        #expect(errorCode { () throws(JWEError) in try JWEProtectedHeader(compact: huge) } == .tooLarge)
    }

    /// A token for another key fails with the same generic error as a tampered one.
    @Test func wrongKeyGivesTheGenericError() throws {
        let other = try RSAPrivateKey.generate()
        let token = try JWEEncrypter(recipient: other.publicKey).encrypt([1, 2, 3])
        do {
            _ = try JWEDecrypter(key: Self.key).decrypt(token)
            Issue.record("decrypted with the wrong key")
        } catch {
            #expect(error == JWEError.decryptionFailedGeneric)
        }
    }
}
