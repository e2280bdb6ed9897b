import Foundation
import Testing

@testable import JWE

/// The 41-token negative corpus (../shared/data/jwe/negative_cases_rsa-oaep-256_a256gcm.json): every token gets
/// its `expected_strict` verdict, and each refusal carries the code this package documents for it.
@Suite("Negative corpus")
struct NegativeCorpusTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var expected: String
        var compact: String
        var testDescription: String { name }
    }

    static let corpus: (key: String, plaintext: String, cases: [Case]) = {
        do {
            let object = try Vectors.object("negative_cases_rsa-oaep-256_a256gcm.json")
            let vector = try Vectors.object("gojose_nimbus_rsa-oaep-256_a256gcm.json")
            let key = try Vectors.jsonText(vector["jwk_private"])
            let plaintext = object["plaintext_for_accept_cases"] as? String ?? ""
            let cases = (object["cases"] as? [[String: Any]] ?? []).map {
                Case(
                    name: $0["name"] as? String ?? "?", expected: $0["expected_strict"] as? String ?? "?",
                    compact: $0["compact"] as? String ?? "")
            }
            return (key, plaintext, cases)
        } catch {
            return ("", "", [])
        }
    }()

    /// The code each refused case must get: structure and lengths are `.malformed`, disallowed algorithms,
    /// compression and critical extensions `.unsupportedAlgorithm`, every cryptographic failure the one
    /// `.decryptionFailed`. Assigned from the case descriptions, not from this package's output.
    static let expectedCodes: [String: JWEError.Code] = [
        "tag_bitflip": .decryptionFailed,
        "tag_truncated_12": .malformed,
        "tag_truncated_4_but_valid_prefix": .malformed,
        "tag_empty": .malformed,
        "ciphertext_bitflip": .decryptionFailed,
        "iv_bitflip": .decryptionFailed,
        "iv_16_bytes_validly_encrypted": .malformed,
        "iv_8_bytes_validly_encrypted": .malformed,
        "iv_empty": .malformed,
        "encrypted_key_bitflip": .decryptionFailed,
        "encrypted_key_truncated_255": .malformed,
        "encrypted_key_empty": .malformed,
        "encrypted_key_leading_zero_257": .malformed,
        "header_tampered_kid_added": .decryptionFailed,
        "alg_RSA-OAEP_sha1_validly_encrypted": .unsupportedAlgorithm,
        "alg_RSA1_5_validly_encrypted": .unsupportedAlgorithm,
        "alg_none": .unsupportedAlgorithm,
        "alg_dir_empty_key": .unsupportedAlgorithm,
        "enc_A128GCM_validly_encrypted": .unsupportedAlgorithm,
        "cek_16_bytes_but_enc_A256GCM": .decryptionFailed,
        "zip_DEF_validly_encrypted": .unsupportedAlgorithm,
        "zip_DEF_bomb_1MiB_zeros": .unsupportedAlgorithm,
        "crit_unknown": .unsupportedAlgorithm,
        "crit_empty_list": .malformed,
        "duplicate_alg_member": .malformed,
        "header_json_array": .malformed,
        "header_invalid_utf8": .malformed,
        "header_trailing_garbage": .malformed,
        "segments_4": .malformed,
        "segments_6": .malformed,
        "b64_padding_char": .malformed,
        "b64_standard_alphabet": .malformed,
        "b64_noncanonical_trailing_bits": .malformed,
        "whitespace_newline_inside": .malformed,
        "trailing_newline": .malformed,
        "json_serialization_instead_of_compact": .malformed,
    ]

    @Test func corpusHas41Cases() {
        #expect(Self.corpus.cases.count == 41)
        let refused = Self.corpus.cases.filter { $0.expected.hasPrefix("reject") }.map(\.name)
        #expect(Set(refused) == Set(Self.expectedCodes.keys))
    }

    @Test(arguments: corpus.cases)
    func verdict(_ testCase: Case) throws {
        let key = try RSAPrivateKey(jwk: Self.corpus.key)
        let decrypter = JWEDecrypter(key: key)
        if testCase.expected.hasPrefix("accept") {
            let plaintext = try decrypter.decrypt(testCase.compact)
            let expected = testCase.name == "ok_empty_plaintext" ? "" : Self.corpus.plaintext
            #expect(String(decoding: plaintext, as: UTF8.self) == expected)
        } else {
            #expect(testCase.expected.hasPrefix("reject"))
            do {
                let plaintext = try decrypter.decrypt(testCase.compact)
                Issue.record("accepted a token the strict policy must refuse: \(plaintext.count) bytes")
            } catch {
                #expect(error.code == Self.expectedCodes[testCase.name])
                if error.code == .decryptionFailed {
                    #expect(error == JWEError.decryptionFailedGeneric)
                }
            }
        }
    }
}
