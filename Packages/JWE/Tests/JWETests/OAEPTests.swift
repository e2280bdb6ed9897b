import COpenSSL
import Foundation
import Testing

@_spi(Benchmarks) @testable import JWE

/// The package's EME-OAEP encoder (SHA-256, MGF1-SHA-256) against blocks OpenSSL's own OAEP produced.
///
/// OpenSSL encrypts with RSA-OAEP-256; a raw (no padding) RSA decryption of its ciphertext gives the encoded
/// block EM, from which the random seed OpenSSL chose is recovered (seed = maskedSeed xor
/// SHA-256(maskedDB || 0)). Encoding the same message with that seed must give EM byte for byte.
@Suite("OAEP encoding")
struct OAEPTests {
    static let key: RSAPrivateKey = try! RSAPrivateKey.generate(bits: 2048)

    @Test(arguments: [0, 1, 16, 32, 100, 190])
    func encodingMatchesOpenSSL(_ messageLength: Int) throws {
        let key = Self.key
        let k = key.key.modulusByteCount
        let message = (0..<messageLength).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

        // 1. OpenSSL's RSA-OAEP-256 encryption.
        let openssl = try CryptoWorkspace(key: key.key, direction: .encryptWithOpenSSLOAEP)
        let ciphertextLength = message.withUnsafeBufferPointer { buffer in
            openssl.wrap(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: buffer.count)
        }
        #expect(ciphertextLength == k)
        let ciphertext = Array(UnsafeRawBufferPointer(start: openssl.block.baseAddress, count: k))

        // 2. Raw RSA decryption gives OpenSSL's EM.
        let context = try #require(EVP_PKEY_CTX_new_from_pkey(nil, key.key.pointer, nil))
        defer { EVP_PKEY_CTX_free(context) }
        #expect(EVP_PKEY_decrypt_init(context) == 1)
        #expect(EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING) == 1)
        var em = [UInt8](repeating: 0, count: k)
        var emLength = k
        #expect(EVP_PKEY_decrypt(context, &em, &emLength, ciphertext, ciphertext.count) == 1)
        #expect(emLength == k)
        #expect(em[0] == 0)

        // 3. Recover the seed: seed = maskedSeed xor MGF1(maskedDB, 32) = maskedSeed xor SHA-256(maskedDB || 0).
        let maskedDB = Array(em[33...])
        let seedMask = try Crypto.sha256(maskedDB + [0, 0, 0, 0])
        let seed = (0..<32).map { em[1 + $0] ^ seedMask[$0] }

        // 4. This package's encoder with that seed reproduces EM.
        let encoder = try OAEPEncoder(modulusByteCount: k)
        let encoded = message.withUnsafeBufferPointer { buffer in
            seed.withUnsafeBufferPointer { seed in
                encoder.encode(
                    buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: buffer.count, seed: seed.baseAddress!)
            }
        }
        #expect(encoded)
        #expect(Array(encoder.encoded) == em)
    }

    @Test func refusesMessagesLongerThanKMinus66() throws {
        let encoder = try OAEPEncoder(modulusByteCount: 256)
        let message = [UInt8](repeating: 1, count: 191)
        let seed = [UInt8](repeating: 2, count: 32)
        #expect(!encoder.encode(message, count: message.count, seed: seed))
    }

    /// The constant label hash is SHA-256 of the empty string (FIPS 180-4 example value).
    @Test func emptyLabelHash() throws {
        #expect(OAEPEncoder.emptyLabelHash == (try Crypto.sha256([])))
        #expect(
            OAEPEncoder.emptyLabelHash.map { String(format: "%02x", $0) }.joined()
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// Both encrypt paths make tokens the strict decrypter (OpenSSL's OAEP decoding) accepts.
    @Test func bothPathsDecrypt() throws {
        let encrypter = JWEEncrypter(recipient: Self.key.publicKey)
        let decrypter = JWEDecrypter(key: Self.key)
        for strategy in BenchmarkContextStrategy.allCases {
            let token = try encrypter.encrypt(Array("card".utf8), strategy: strategy)
            #expect(try decrypter.decrypt(token) == Array("card".utf8), "\(strategy)")
        }
    }
}
