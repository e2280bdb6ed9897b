import Foundation
import Testing

@testable import JWE

/// Encrypt-then-decrypt properties under keys generated here (the interop suite in Tests/Interop checks the
/// same tokens against python jwcrypto, an independent implementation).
@Suite("Round trips")
struct RoundTripTests {
    static let key: RSAPrivateKey = try! RSAPrivateKey.generate(bits: 2048, kid: "round-trip")

    @Test func encryptsToFiveSegmentsWithTheDocumentedHeader() throws {
        let token = try JWEEncrypter(recipient: Self.key.publicKey).encrypt(Array("hello".utf8))
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(segments.count == 5)
        let header = try JWEProtectedHeader(compact: token)
        #expect(header.json == #"{"alg":"RSA-OAEP-256","enc":"A256GCM","kid":"round-trip"}"#)
        #expect(segments[1].count == 342)  // 256 bytes of RSA-2048 output
        #expect(segments[2].count == 16)  // 12-byte IV
        #expect(segments[4].count == 22)  // 16-byte tag
        #expect(try JWEDecrypter(key: Self.key).decrypt(token) == Array("hello".utf8))
    }

    @Test func keyWithoutKidGivesHeaderWithoutKid() throws {
        let recipient = Self.key.publicKey.withKid(nil)
        let token = try JWEEncrypter(recipient: recipient).encrypt([1, 2, 3])
        #expect(try JWEProtectedHeader(compact: token).json == #"{"alg":"RSA-OAEP-256","enc":"A256GCM"}"#)
        #expect(try JWEDecrypter(key: Self.key).decrypt(token) == [1, 2, 3])
    }
}
