import EGWWire
import Foundation
import Testing

@testable import JWE

/// Key import, export, generation and refusals. Expected values come from RFC 7638, the OpenSSL command line
/// and python jwcrypto (see Vectors/README.md), never from this package.
@Suite("RSA keys")
struct KeyTests {
    let fixture: [String: Any]

    init() throws {
        fixture = try Vectors.object("rsa2048_fixture_jwcrypto.json")
    }

    /// RFC 7638 section 3.1: the example key's thumbprint.
    @Test func rfc7638ExampleThumbprint() throws {
        let jwk = """
            {"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RSA-OAEP-256","kid":"2011-04-29"}
            """
        let key = try RSAPublicKey(jwk: jwk)
        #expect(key.thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(key.kid == "2011-04-29")
        #expect(key.bitCount == 2048)
    }

    /// RFC 7638 section 3.1's key again, read from a value EGWWire's strict parser produced (a JWK inside a
    /// key set): the same key, and the same refusals as from text.
    @Test func jwkFromAParsedValue() throws {
        let jwk = """
            {"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RSA-OAEP-256","kid":"2011-04-29"}
            """
        let key = try RSAPublicKey(jwk: StrictJSONParser.parse(Array(jwk.utf8)))
        #expect(key.thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(key.kid == "2011-04-29")
        let notAnObject = #expect(throws: JWEError.self) { try RSAPublicKey(jwk: JSONValue.array([])) }
        #expect(notAnObject?.code == .malformed)
        let signing = try StrictJSONParser.parse(
            Array(jwk.replacingOccurrences(of: #""kty""#, with: #""use":"sig","kty""#).utf8))
        let forbidden = #expect(throws: JWEError.self) { try RSAPublicKey(jwk: signing) }
        #expect(forbidden?.code == .invalidKey)
    }

    /// The kid defaults to the thumbprint when the source has none (PEM, JWK without kid, generation).
    @Test func defaultKidIsTheThumbprint() throws {
        let expected = try #require(fixture["thumbprint"] as? String)
        let publicKey = try RSAPublicKey(pem: Vectors.text("rsa2048_spki.pem"))
        #expect(publicKey.thumbprint == expected)
        #expect(publicKey.kid == expected)
        let withoutKid = try RSAPublicKey(jwk: Vectors.jsonText(fixture["jwk_public"], removing: ["kid"]))
        #expect(withoutKid.kid == expected)
        let generated = try RSAPrivateKey.generate()
        #expect(generated.kid == generated.publicKey.thumbprint)
        #expect(try RSAPrivateKey.generate(bits: 2048, kid: "mine").kid == "mine")
    }

    /// PKCS#8 import exports the same JWK members jwcrypto computed from the same PEM.
    @Test func pkcs8ImportMatchesJwcrypto() throws {
        let key = try RSAPrivateKey(pem: Vectors.text("rsa2048_pkcs8.pem"))
        let exported = try Vectors.jsonObject(key.jwkJSON())
        let expected = try #require(fixture["jwk_private"] as? [String: Any])
        for name in ["n", "e", "d", "p", "q", "dp", "dq", "qi", "kty", "kid"] {
            #expect(exported[name] as? String == expected[name] as? String, "member \(name)")
        }
        #expect(exported.count == expected.count)
        let publicExported = try Vectors.jsonObject(key.publicKey.jwkJSON())
        #expect(Set(publicExported.keys) == ["e", "kid", "kty", "n"])
        #expect(key.publicKey.jwkJSON().hasPrefix(#"{"e":"AQAB","kid":""#))
    }

    /// JWK -> key -> PEM -> key keeps the key; JWK export -> import is the identity.
    @Test func exportsRoundTrip() throws {
        let fromJWK = try RSAPrivateKey(jwk: Vectors.jsonText(fixture["jwk_private"]))
        let pem = fromJWK.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let fromPEM = try RSAPrivateKey(pem: pem)
        #expect(fromPEM.publicKey.thumbprint == fromJWK.publicKey.thumbprint)
        let again = try RSAPrivateKey(jwk: fromJWK.jwkJSON())
        #expect(again.jwkJSON() == fromJWK.jwkJSON())
        let publicPEM = fromJWK.publicKey.pemRepresentation
        #expect(publicPEM == (try Vectors.text("rsa2048_spki.pem")))
        #expect(try RSAPublicKey(jwk: fromJWK.publicKey.jwkJSON()) == fromJWK.publicKey)
        let privateJWK = try #require(fixture["jwk_private"] as? [String: Any])
        let d = try #require(privateJWK["d"] as? String)
        #expect(!fromJWK.description.contains(d))
    }

    /// A private JWK without CRT members still imports and decrypts what its public key encrypts.
    @Test func privateJWKWithoutCRT() throws {
        let jwk = try Vectors.jsonText(fixture["jwk_private"], removing: ["p", "q", "dp", "dq", "qi"])
        let key = try RSAPrivateKey(jwk: jwk)
        let token = try JWEEncrypter(recipient: key.publicKey).encrypt([42])
        #expect(try JWEDecrypter(key: key).decrypt(token) == [42])
    }

    @Test(arguments: [2048, 3072, 4096])
    func generatesSupportedSizes(_ bits: Int) throws {
        let key = try RSAPrivateKey.generate(bits: bits)
        #expect(key.bitCount == bits)
        #expect(key.publicKey.bitCount == bits)
        let token = try JWEEncrypter(recipient: key.publicKey).encrypt(Array("x".utf8))
        #expect(try JWEDecrypter(key: key).decrypt(token) == Array("x".utf8))
    }

    @Test func generationRefusals() {
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey.generate(bits: 1024) } == .keyTooSmall)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey.generate(bits: 2047) } == .keyTooSmall)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey.generate(bits: 2050) } == .invalidKey)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey.generate(bits: 8192) } == .invalidKey)
    }

    @Test func pemRefusals() throws {
        let rsa1024Public = try Vectors.text("rsa1024_spki.pem")
        let rsa1024Private = try Vectors.text("rsa1024_pkcs8.pem")
        let ecPublic = try Vectors.text("ec_p256_spki.pem")
        let ecPrivate = try Vectors.text("ec_p256_pkcs8.pem")
        let pkcs1 = try Vectors.text("rsa2048_pkcs1.pem")
        let spki = try Vectors.text("rsa2048_spki.pem")
        #expect(errorCode { () throws(JWEError) in try RSAPublicKey(pem: rsa1024Public) } == .keyTooSmall)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(pem: rsa1024Private) } == .keyTooSmall)
        #expect(errorCode { () throws(JWEError) in try RSAPublicKey(pem: ecPublic) } == .invalidKey)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(pem: ecPrivate) } == .invalidKey)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(pem: pkcs1) } == .malformed)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(pem: spki) } == .malformed)
        #expect(errorCode { () throws(JWEError) in try RSAPublicKey(pem: "hello") } == .malformed)
        let corrupted = spki.replacingOccurrences(of: "MII", with: "MIJ")
        #expect(errorCode { () throws(JWEError) in try RSAPublicKey(pem: corrupted) } == .malformed)
    }

    /// RFC 8017 section 3.2 requires d < n. A d past n that still inverts e (computed by python, see
    /// Vectors/README.md) decrypts, so only a range check refuses it: with the CRT members and without.
    @Test func privateExponentPastTheModulusIsRefused() throws {
        let aboveN = try #require(try Vectors.object("rsa2048_fixture_d_above_n.json")["d_above_n"] as? String)
        var object = try #require(fixture["jwk_private"] as? [String: Any])
        object["d"] = aboveN
        let withCRT = try Vectors.jsonText(object)
        let withoutCRT = try Vectors.jsonText(object, removing: ["p", "q", "dp", "dq", "qi"])
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(jwk: withCRT) } == .invalidKey)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(jwk: withoutCRT) } == .invalidKey)
        object["d"] = object["n"]
        let dIsN = try Vectors.jsonText(object)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(jwk: dIsN) } == .invalidKey)
    }

    /// A public import never decodes the private members: one that is not base64url, or not even a string,
    /// does not stop it (the JSON must still be strict), while a private import refuses it.
    @Test(arguments: [("d", #""not base64url!""#), ("p", "5"), ("qi", "[1]")])
    func aPublicImportIgnoresPrivateMembers(_ name: String, _ literal: String) throws {
        var object = try #require(fixture["jwk_private"] as? [String: Any])
        object[name] = try JSONSerialization.jsonObject(with: Data(literal.utf8), options: .fragmentsAllowed)
        let jwk = try Vectors.jsonText(object)
        let key = try RSAPublicKey(jwk: jwk)
        #expect(key.thumbprint == fixture["thumbprint"] as? String)
        #expect(try RSAPublicKey(jwk: StrictJSONParser.parse(Array(jwk.utf8))).thumbprint == key.thumbprint)
        #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(jwk: jwk) } == .invalidKey)
    }

    /// JWK refusals: each mutation of a valid JWK and the code it must get.
    @Test func jwkRefusals() throws {
        let valid = try #require(fixture["jwk_private"] as? [String: Any])
        let nText = try #require(valid["n"] as? String)
        let n = try #require(Vectors.unbase64url(nText))
        func variant(_ change: (inout [String: Any]) -> Void) throws -> String {
            var object = valid
            change(&object)
            return try Vectors.jsonText(object)
        }
        let cases: [(String, String, JWEError.Code)] = [
            ("leading zero in n", try variant { $0["n"] = Vectors.base64url([0] + n) }, .invalidKey),
            ("1024-bit n", try variant { $0["n"] = Vectors.base64url(Array(n.prefix(127)) + [1]) }, .keyTooSmall),
            ("2040-bit n", try variant { $0["n"] = Vectors.base64url(Array(n.prefix(254)) + [1]) }, .keyTooSmall),
            ("kty EC", try variant { $0["kty"] = "EC" }, .invalidKey),
            ("no kty", try variant { $0["kty"] = nil }, .invalidKey),
            ("no n", try variant { $0["n"] = nil }, .invalidKey),
            ("no e", try variant { $0["e"] = nil }, .invalidKey),
            ("no d", try variant { $0["d"] = nil }, .invalidKey),
            ("n padded", try variant { $0["n"] = ($0["n"] as! String) + "=" }, .invalidKey),
            ("n standard alphabet", try variant { $0["n"] = Data(n).base64EncodedString() }, .invalidKey),
            ("n not a string", try variant { $0["n"] = 5 }, .invalidKey),
            ("e even", try variant { $0["e"] = "AQAA" }, .invalidKey),
            ("e leading zero", try variant { $0["e"] = "AAEAAQ" }, .invalidKey),
            ("use sig", try variant { $0["use"] = "sig" }, .invalidKey),
            ("alg RS256", try variant { $0["alg"] = "RS256" }, .unsupportedAlgorithm),
            ("partial CRT", try variant { $0["qi"] = nil }, .invalidKey),
            ("multi-prime", try variant { $0["oth"] = [] as [Any] }, .invalidKey),
            (
                "d of another key", try variant { $0["d"] = Vectors.base64url(Array(repeating: 0x5A, count: 255)) },
                .invalidKey
            ),
            (
                "wrong d without CRT",
                try variant {
                    $0["d"] = Vectors.base64url(Array(repeating: 0x5A, count: 255))
                    for name in ["p", "q", "dp", "dq", "qi"] { $0[name] = nil }
                }, .invalidKey
            ),
            ("p and q swapped with wrong values", try variant { $0["p"] = $0["dp"] }, .invalidKey),
            ("not JSON", "{\"kty\":", .malformed),
            ("array", "[]", .malformed),
            ("duplicate member", #"{"kty":"RSA","kty":"RSA"}"#, .malformed),
        ]
        for (name, jwk, expected) in cases {
            #expect(errorCode { () throws(JWEError) in try RSAPrivateKey(jwk: jwk) } == expected, "\(name)")
        }
        // The public-key import applies the same checks to n and e.
        #expect(errorCode { () throws(JWEError) in try RSAPublicKey(jwk: cases[0].1) } == .invalidKey)
        #expect(errorCode { () throws(JWEError) in try RSAPublicKey(jwk: cases[1].1) } == .keyTooSmall)
    }
}
