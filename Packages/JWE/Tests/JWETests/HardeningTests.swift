import Foundation
import Testing

@testable import JWE

/// Text from a token or a key never reaches an error reason or a terminal unescaped, and a JWK's `use` and
/// `key_ops` decide what it may be imported for.
@Suite("Untrusted text")
struct UntrustedTextTests {
    static func vector() throws -> [String: Any] {
        try Vectors.object("gojose_nimbus_rsa-oaep-256_a256gcm.json")
    }

    /// No C0 control, DEL, C1 control or non-ASCII character: what a terminal shows as is.
    static func isPrintableASCII(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }
    }

    /// The vector's token with its header replaced by `json` (the other segments stay valid base64url).
    static func token(header json: String) throws -> String {
        let compact = try #require(try vector()["compact"] as? String)
        var parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[0] = Vectors.base64url(Array(json.utf8))
        return parts.joined(separator: ".")
    }

    static func decrypter() throws -> JWEDecrypter {
        JWEDecrypter(key: try RSAPrivateKey(jwk: Vectors.jsonText(try vector()["jwk_private"])))
    }

    @Test func escapesControlsC1AndNonASCII() {
        #expect(UntrustedText.escaped("RSA-OAEP-256") == "RSA-OAEP-256")
        #expect(UntrustedText.escaped("a\"b\\c") == #"a\"b\\c"#)
        #expect(UntrustedText.escaped("\u{1B}[31m\u{9B}1m\u{7F}\u{0}") == #"\u001b[31m\u009b1m\u007f\u0000"#)
        #expect(UntrustedText.escaped("é\u{202E}😀") == #"\u00e9\u202e\ud83d\ude00"#)
        #expect(UntrustedText.escapedJSON("{\"a\":\"\u{9B}é\"}\n") == "{\"a\":\"\\u009b\\u00e9\"}\n")
    }

    /// An `alg` holding an ANSI escape (written `\u001b` in the JSON) and a raw C1 CSI: the reason shows both
    /// as escapes and holds no raw control byte. The same for `enc` and a `crit` name.
    @Test(arguments: [
        ("alg", #"{"alg":"RSA\u001b[31m\u009b2J","enc":"A256GCM"}"#, #"RSA\u001b[31m\u009b2J"#),
        ("alg raw C1", "{\"alg\":\"RSA\u{9B}2J\u{85}\",\"enc\":\"A256GCM\"}", #"RSA\u009b2J\u0085"#),
        ("enc", #"{"alg":"RSA-OAEP-256","enc":"A256\u001b]0;x\u0007"}"#, #"A256\u001b]0;x\u0007"#),
        (
            "crit", #"{"alg":"RSA-OAEP-256","enc":"A256GCM","crit":["x\u009b"],"x\u009b":1}"#,
            #"x\u009b"#
        ),
    ])
    func headerTextInAReasonIsEscaped(_ name: String, _ json: String, _ escaped: String) throws {
        let token = try Self.token(header: json)
        let decrypter = try Self.decrypter()
        let error = try #require(jweError { () throws(JWEError) in try decrypter.decrypt(token) }, "accepted \(name)")
        #expect(error.code == .unsupportedAlgorithm)
        #expect(error.reason.contains(escaped), "\(error.reason)")
        #expect(Self.isPrintableASCII(error.reason), "\(error.reason)")
        #expect(Self.isPrintableASCII(error.description))
    }

    @Test func duplicateMemberNameInAReasonIsEscaped() throws {
        let token = try Self.token(header: #"{"alg":"RSA-OAEP-256","enc":"A256GCM","\u001bk":1,"\u001bk":2}"#)
        let decrypter = try Self.decrypter()
        let error = try #require(jweError { () throws(JWEError) in try decrypter.decrypt(token) })
        #expect(error.code == .malformed)
        #expect(error.reason.contains(#"\u001bk"#), "\(error.reason)")
        #expect(Self.isPrintableASCII(error.reason))
    }

    @Test func protectedHeaderJSONIsEscapedAndKeepsItsValue() throws {
        let kid = "k\u{9B}31m\u{1B}]0;x\u{07}é"
        let json = "{\"alg\":\"RSA-OAEP-256\",\"enc\":\"A256GCM\",\"kid\":\"k\u{9B}31m\\u001b]0;x\\u0007é\"}"
        let header = try JWEProtectedHeader(compact: Self.token(header: json))
        #expect(header.kid == kid)
        #expect(header.json == #"{"alg":"RSA-OAEP-256","enc":"A256GCM","kid":"k\u009b31m\u001b]0;x\u0007\u00e9"}"#)
        let reparsed = try Vectors.jsonObject(header.json)
        #expect(reparsed["kid"] as? String == kid)
    }

    @Test func jwkTextInAReasonIsEscaped() throws {
        for jwk in [#"{"kty":"R\u001b[2JSA","n":"AQAB","e":"AQAB"}"#, "{\"kty\":\"RSA\",\"use\":\"\u{9B}\"}"] {
            do {
                _ = try RSAPublicKey(jwk: jwk)
                Issue.record("accepted \(jwk)")
            } catch {
                #expect(error.code == .invalidKey)
                #expect(Self.isPrintableASCII(error.reason), "\(error.reason)")
                #expect(error.reason.contains(#"\u001b[2J"#) || error.reason.contains(#"\u009b"#))
            }
        }
    }
}

@Suite("Key use")
struct KeyUseTests {
    static func jwk(_ name: String, _ change: (inout [String: Any]) -> Void) throws -> String {
        let fixture = try Vectors.object("rsa2048_fixture_jwcrypto.json")
        var object = try #require(fixture[name] as? [String: Any])
        change(&object)
        return try Vectors.jsonText(object)
    }

    @Test func keyOpsForbiddingEncryptionAreRefusedForEncryption() throws {
        let decryptOnly = try Self.jwk("jwk_public") { $0["key_ops"] = ["decrypt"] }
        do {
            _ = try RSAPublicKey(jwk: decryptOnly)
            Issue.record("a key_ops [\"decrypt\"] JWK was accepted for encryption")
        } catch {
            #expect(error.code == .invalidKey)
            #expect(error.reason.contains("key_ops"), "\(error.reason)")
            #expect(error.reason.contains("encryption"), "\(error.reason)")
        }
        for allowed in [["encrypt"], ["wrapKey"], ["wrapKey", "unwrapKey"]] {
            #expect(throws: Never.self) {
                try RSAPublicKey(jwk: try Self.jwk("jwk_public") { $0["key_ops"] = allowed })
            }
        }
    }

    @Test func keyOpsForbiddingDecryptionAreRefusedForDecryption() throws {
        for refused in [["encrypt"], ["wrapKey"], ["sign"], [String]()] {
            let jwk = try Self.jwk("jwk_private") { $0["key_ops"] = refused }
            #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(jwk: jwk) } == .invalidKey, "\(refused)")
        }
        for allowed in [["decrypt"], ["unwrapKey"], ["wrapKey", "unwrapKey"]] {
            let jwk = try Self.jwk("jwk_private") { $0["key_ops"] = allowed }
            #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(jwk: jwk) } == nil, "\(allowed)")
        }
    }

    @Test func malformedKeyOpsAndForeignUseAreRefused() throws {
        let cases: [(String, (inout [String: Any]) -> Void)] = [
            ("key_ops a string", { $0["key_ops"] = "encrypt" }),
            ("key_ops duplicated", { $0["key_ops"] = ["encrypt", "encrypt"] }),
            ("key_ops not strings", { $0["key_ops"] = [1] }),
            ("use sig", { $0["use"] = "sig" }),
        ]
        for (name, change) in cases {
            let publicJWK = try Self.jwk("jwk_public", change)
            let privateJWK = try Self.jwk("jwk_private", change)
            #expect(errorCode { () throws(JWEError) in try RSAPublicKey(jwk: publicJWK) } == .invalidKey, "\(name)")
            #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(jwk: privateJWK) } == .invalidKey, "\(name)")
        }
        let sig = try Self.jwk("jwk_public") { $0["use"] = "sig" }
        #expect(throws: JWEError.self) { try RSAPublicKey(jwk: sig) }
        do {
            _ = try RSAPublicKey(jwk: sig)
        } catch {
            #expect(error.reason.contains("forbids encryption"), "\(error.reason)")
        }
    }
}
