import EGWWire
import Foundation
import Testing

@testable import JWE

/// The positive vectors of ../shared/data/jwe, each verified upstream by two independent JOSE implementations.
@Suite("Published JWE vectors")
struct VectorTests {
    /// go-jose's Nimbus-generated RSA-OAEP-256 + A256GCM message decrypts end to end.
    @Test func goJoseNimbusDecryptsEndToEnd() throws {
        let vector = try Vectors.object("gojose_nimbus_rsa-oaep-256_a256gcm.json")
        let key = try RSAPrivateKey(jwk: Vectors.jsonText(vector["jwk_private"]))
        let compact = try #require(vector["compact"] as? String)
        let plaintext = try JWEDecrypter(key: key).decrypt(compact)
        #expect(plaintext == Array(try #require(vector["plaintext_utf8"] as? String).utf8))

        let header = try JWEProtectedHeader(compact: compact)
        #expect(header.json == vector["protected_header_json"] as? String)
        #expect(header.alg == "RSA-OAEP-256")
        #expect(header.enc == "A256GCM")
        #expect(header.kid == nil)
    }

    /// The RSA-OAEP-256 unwrap of the same message gives the CEK the vector derives.
    @Test func goJoseNimbusKeyUnwrap() throws {
        try checkUnwrap("gojose_nimbus_rsa-oaep-256_a256gcm.json")
    }

    /// RFC 7516 A.1 and RFC 7520 5.2 (4096-bit, non-ASCII plaintext): the A256GCM layer with the published
    /// CEK, IV and AAD gives the published ciphertext and tag, byte for byte, and opens again.
    @Test(arguments: ["rfc7516_A1_rsa-oaep_a256gcm.json", "rfc7520_5.2_rsa-oaep_a256gcm.json"])
    func a256gcmLayerIsByteExact(_ file: String) throws {
        let vector = try Vectors.object(file)
        // RFC 7520's JWK says "alg":"RSA-OAEP", which this package refuses on import; only the AES layer is used.
        let key = try RSAPrivateKey(jwk: Vectors.jsonText(vector["jwk_private"], removing: ["alg"]))
        let cek = Vectors.hex(try #require(vector["cek_hex"] as? String))
        let iv = Vectors.hex(try #require(vector["iv_hex"] as? String))
        let aad = Array(try #require(vector["aad_ascii"] as? String).utf8)
        let plaintext = Array(try #require(vector["plaintext_utf8"] as? String).utf8)
        let expectedCiphertext = Vectors.hex(try #require(vector["ciphertext_hex"] as? String))
        let expectedTag = Vectors.hex(try #require(vector["tag_hex"] as? String))
        #expect(aad == Vectors.hex(try #require(vector["aad_hex"] as? String)))

        let workspace = try CryptoWorkspace(key: key.key, direction: .encrypt)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: 16)
        let sealed = cek.withUnsafeBufferPointer { cek in
            iv.withUnsafeBufferPointer { iv in
                aad.withUnsafeBufferPointer { aad in
                    plaintext.withUnsafeBytes { plaintext in
                        ciphertext.withUnsafeMutableBufferPointer { ciphertext in
                            tag.withUnsafeMutableBytes { tag in
                                workspace.seal(
                                    key: cek.baseAddress!, iv: iv.baseAddress!, aad: aad, plaintext: plaintext,
                                    ciphertext: ciphertext.baseAddress!, tag: tag.baseAddress!)
                            }
                        }
                    }
                }
            }
        }
        #expect(sealed)
        #expect(ciphertext == expectedCiphertext)
        #expect(tag == expectedTag)

        let opener = try CryptoWorkspace(key: key.key, direction: .decrypt)
        var opened = [UInt8](repeating: 0, count: expectedCiphertext.count)
        let verified = cek.withUnsafeBufferPointer { cek in
            iv.withUnsafeBufferPointer { iv in
                aad.withUnsafeBufferPointer { aad in
                    expectedCiphertext.withUnsafeBufferPointer { ciphertext in
                        expectedTag.withUnsafeBufferPointer { tag in
                            opened.withUnsafeMutableBufferPointer { opened in
                                opener.open(
                                    key: cek.baseAddress!, iv: iv.baseAddress!, aad: aad, ciphertext: ciphertext,
                                    tag: tag, plaintext: opened.baseAddress!)
                            }
                        }
                    }
                }
            }
        }
        #expect(verified)
        #expect(opened == plaintext)
    }

    /// The same two tokens use RSA-OAEP (SHA-1): the strict policy refuses them from the header alone.
    @Test(arguments: ["rfc7516_A1_rsa-oaep_a256gcm.json", "rfc7520_5.2_rsa-oaep_a256gcm.json"])
    func sha1OaepTokensAreRefused(_ file: String) throws {
        let vector = try Vectors.object(file)
        let key = try RSAPrivateKey(jwk: Vectors.jsonText(vector["jwk_private"], removing: ["alg"]))
        let compact = try #require(vector["compact"] as? String)
        #expect(
            errorCode { () throws(JWEError) in try JWEDecrypter(key: key).decrypt(compact) } == .unsupportedAlgorithm)
        // RFC 7520 5.2 names its key; the header decoder reports it.
        #expect(
            try JWEProtectedHeader(compact: compact).kid == (vector["jwk_private"] as? [String: Any])?["kid"] as? String
        )
    }

    /// RFC 7520's key is published for RSA-OAEP (SHA-1): importing it as is is refused.
    @Test func jwkForAnotherAlgorithmIsRefused() throws {
        let vector = try Vectors.object("rfc7520_5.2_rsa-oaep_a256gcm.json")
        let jwk = try Vectors.jsonText(vector["jwk_private"])
        #expect(jwk.contains("\"alg\":\"RSA-OAEP\""))
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(jwk: jwk) } == .unsupportedAlgorithm)
    }

    /// Nimbus/jose4j and JOSESwift/Nimbus CBC messages: RSA-OAEP-256 unwraps the published CEK byte for byte.
    @Test(arguments: [
        "nimbus_jose4j_rsa-oaep-256_a128cbc-hs256.json", "joseswift_nimbus_rsa-oaep-256_a256cbc-hs512.json",
    ])
    func cbcVectorsKeyUnwrap(_ file: String) throws {
        try checkUnwrap(file)
    }

    private func checkUnwrap(_ file: String) throws {
        let vector = try Vectors.object(file)
        let key = try RSAPrivateKey(jwk: Vectors.jsonText(vector["jwk_private"]))
        let encoded = try #require(vector["encrypted_key_b64u"] as? String)
        let encryptedKey = try #require(Base64URL.decode(encoded))
        let expected = Vectors.hex(try #require(vector["cek_hex"] as? String))
        let workspace = try CryptoWorkspace(key: key.key, direction: .decrypt)
        let count = encryptedKey.withUnsafeBufferPointer { workspace.unwrap($0) }
        #expect(count == expected.count)
        let cek = Array(UnsafeRawBufferPointer(start: workspace.block.baseAddress, count: count ?? 0))
        #expect(cek == expected)
    }

    /// A token carrying the vector's kid gets it back from the header decoder; the thumbprint is RFC 7638's.
    @Test func publicKeyFromVectorMatchesPrivate() throws {
        let vector = try Vectors.object("gojose_nimbus_rsa-oaep-256_a256gcm.json")
        let privateKey = try RSAPrivateKey(jwk: Vectors.jsonText(vector["jwk_private"]))
        let publicKey = try RSAPublicKey(jwk: Vectors.jsonText(vector["jwk_public"]))
        #expect(publicKey.bitCount == 2048)
        #expect(privateKey.publicKey.thumbprint == publicKey.thumbprint)
        #expect(privateKey.kid == (vector["jwk_private"] as? [String: Any])?["kid"] as? String)
    }
}
