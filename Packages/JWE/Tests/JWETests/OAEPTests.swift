import COpenSSL
import Testing

@testable import JWE

/// The encrypted key is RSA-OAEP with SHA-256 as both the OAEP digest and the MGF1 digest (RFC 7518 section
/// 4.3), checked from the outside: a separately configured OpenSSL context recovers the message's CEK, and one
/// left at OpenSSL's defaults (SHA-1 for both) or with SHA-256 OAEP over MGF1-SHA-1 cannot. (OpenSSL's MGF1
/// digest follows the OAEP digest unless set, so MGF1-SHA-1 is set explicitly here.)
@Suite("RSA-OAEP-256 key encryption")
struct OAEPTests {
    static let key: RSAPrivateKey = try! RSAPrivateKey.generate(bits: 2048)

    private func unwrap(_ encryptedKey: [UInt8], oaep: String?, mgf1: String?) throws -> [UInt8]? {
        let context = try #require(EVP_PKEY_CTX_new_from_pkey(nil, Self.key.key.pointer, nil))
        defer { EVP_PKEY_CTX_free(context) }
        #expect(EVP_PKEY_decrypt_init(context) == 1)
        #expect(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1)
        if let oaep {
            let digest = try #require(EVP_MD_fetch(nil, oaep, nil))
            defer { EVP_MD_free(digest) }
            #expect(EVP_PKEY_CTX_set_rsa_oaep_md(context, digest) == 1)
        }
        if let mgf1 {
            let digest = try #require(EVP_MD_fetch(nil, mgf1, nil))
            defer { EVP_MD_free(digest) }
            #expect(EVP_PKEY_CTX_set_rsa_mgf1_md(context, digest) == 1)
        }
        var output = [UInt8](repeating: 0, count: 256)
        var length = output.count
        defer { ERR_clear_error() }
        guard EVP_PKEY_decrypt(context, &output, &length, encryptedKey, encryptedKey.count) == 1 else { return nil }
        return Array(output[0..<length])
    }

    @Test func encryptedKeyIsOAEPWithSHA256AndMGF1SHA256() throws {
        var observedCEK: [UInt8] = []
        let token = try JWEEncrypter(recipient: Self.key.publicKey).encrypt(Array("card".utf8)) { cek, _ in
            observedCEK = cek
        }
        let encryptedKey = try #require(Vectors.unbase64url(String(token.split(separator: ".")[1])))
        #expect(encryptedKey.count == 256)
        #expect(try unwrap(encryptedKey, oaep: "SHA256", mgf1: "SHA256") == observedCEK)
        #expect(try unwrap(encryptedKey, oaep: nil, mgf1: nil) == nil)
        #expect(try unwrap(encryptedKey, oaep: "SHA256", mgf1: "SHA1") == nil)
        #expect(try unwrap(encryptedKey, oaep: "SHA1", mgf1: "SHA256") == nil)
    }
}
