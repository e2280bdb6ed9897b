import EGWWire
import Foundation
import FuzzSupport

@testable import JWE

/// JWE's fuzz targets. The fixed key pair is go-jose's vector key (Tests/JWETests/Vectors), which the
/// seed tokens of `jwe-compact` were made for.
enum JWEFuzz {
    static let targets: [FuzzTarget] = [
        FuzzTarget("jwe-compact", check: checkCompact),
        FuzzTarget("jwe-header", check: checkHeader),
        FuzzTarget("jwk", check: checkJWK),
        FuzzTarget("pem", check: checkPEM),
    ]

    static let key: RSAPrivateKey = {
        let vector = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Tests/JWETests/Vectors/gojose_nimbus_rsa-oaep-256_a256gcm.json")
        guard let data = FileManager.default.contents(atPath: vector.path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let jwk = object["jwk_private"],
            let jwkData = try? JSONSerialization.data(withJSONObject: jwk),
            let key = try? RSAPrivateKey(jwk: String(decoding: jwkData, as: UTF8.self))
        else { fatalError("the fuzz key vector \(vector.path) is missing or unreadable") }
        return key
    }()

    static let decrypter = JWEDecrypter(key: key)

    /// A token the key decrypts, made once: `jwe-header` swaps its first segment.
    static let template: [Substring] = {
        guard let token = try? JWEEncrypter(recipient: key.publicKey).encrypt(Array("4111111111111111".utf8)) else {
            fatalError("cannot encrypt the template token")
        }
        return token.split(separator: ".", omittingEmptySubsequences: false)
    }()

    /// Any token: a token that decrypts is well formed by a second reading (five canonical segments, a
    /// 256-byte key, a 12-byte IV, a 16-byte tag, the exact algorithms, no `zip` or `crit`), its header
    /// reads the same through `JWEProtectedHeader`, and a re-encryption of its plaintext decrypts to the
    /// same bytes. Every refusal's text is printable ASCII (untrusted bytes escaped) and the header's
    /// `json` is too, but for the JSON whitespace `UntrustedText.escapedJSON` keeps between tokens.
    static func checkCompact(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let token = String(decoding: input, as: UTF8.self)
        let header = try? JWEProtectedHeader(compact: token)
        if let header {
            // escapedJSON keeps the whitespace JSON allows between tokens (tab, LF, CR), as documented.
            try fuzzRequire(
                header.json.utf8.allSatisfy { (0x20...0x7E).contains($0) || [0x09, 0x0A, 0x0D].contains($0) },
                "header json holds a character outside printable ASCII and JSON whitespace")
        }
        let plaintext: [UInt8]
        do {
            plaintext = try decrypter.decrypt(token)
        } catch {
            try fuzzRequire(isPrintableASCII(error.description), "error text is not printable ASCII")
            return
        }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false).map {
            Base64URL.decode(String($0))
        }
        try fuzzRequire(segments.count == 5 && segments.allSatisfy { $0 != nil }, "accepted a malformed token")
        try fuzzRequire(
            segments[1]?.count == 256 && segments[2]?.count == 12 && segments[4]?.count == 16,
            "accepted a key, IV or tag of the wrong length")
        guard let json = try? StrictJSONParser.parse(segments[0]!) else {
            throw FuzzViolation("accepted a header that is not strict JSON")
        }
        try fuzzRequire(
            json[member: "alg"] == .string("RSA-OAEP-256") && json[member: "enc"] == .string("A256GCM")
                && json[member: "zip"] == nil && json[member: "crit"] == nil,
            "accepted a header the policy refuses")
        try fuzzRequire(header?.alg == "RSA-OAEP-256", "JWEProtectedHeader refuses a token the decrypter accepts")
        guard let again = try? JWEEncrypter(recipient: key.publicKey).encrypt(plaintext),
            (try? decrypter.decrypt(again)) == plaintext
        else { throw FuzzViolation("the plaintext does not survive encrypt -> decrypt") }
    }

    /// The input as the protected header of an otherwise valid token: the decrypter's verdict must be
    /// the policy's, by a second reading of RFC 7516 and the package README: a header the policy accepts
    /// reaches the tag check (and fails it, the AAD having changed), every other header is `malformed`
    /// or `unsupportedAlgorithm`, before any cryptography.
    static func checkHeader(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let encoded = Base64URL.encode(input)
        let token = ([Substring(encoded)] + template.dropFirst()).joined(separator: ".")
        var code: JWEError.Code?
        do { _ = try decrypter.decrypt(token) } catch {
            code = error.code
            try fuzzRequire(isPrintableASCII(error.description), "error text is not printable ASCII")
        }
        let expected = expectedVerdict(header: Array(input))
        if encoded == template[0] {
            try fuzzRequire(code == nil, "the template token no longer decrypts")
        } else {
            try fuzzRequire(code == expected, "verdict \(String(describing: code)), expected \(expected)")
        }
    }

    /// What the strict policy says about a protected header (RFC 7516 section 4, RFC 7515 section
    /// 4.1.11 for `crit`, the README for `alg`/`enc`/`zip`): `.decryptionFailed` for an acceptable one.
    private static func expectedVerdict(header: [UInt8]) -> JWEError.Code {
        guard !header.isEmpty, case .object(let members)? = try? StrictJSONParser.parse(header) else {
            return .malformed
        }
        func named(_ name: String) -> JSONValue? {
            members.first { Array($0.name.unicodeScalars) == Array(name.unicodeScalars) }?.value
        }
        for name in ["alg", "enc", "kid"] {
            if let value = named(name), value.stringValue == nil { return .malformed }
        }
        guard let alg = named("alg") else { return .malformed }
        guard alg == .string("RSA-OAEP-256") else { return .unsupportedAlgorithm }
        guard let enc = named("enc") else { return .malformed }
        guard enc == .string("A256GCM") else { return .unsupportedAlgorithm }
        if named("zip") != nil { return .unsupportedAlgorithm }
        if let crit = named("crit") {
            guard case .array(let names) = crit, !names.isEmpty else { return .malformed }
            let registered = ["alg", "enc", "zip", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty"]
            var seen: [[Unicode.Scalar]] = []
            for entry in names {
                guard let name = entry.stringValue, !seen.contains(Array(name.unicodeScalars)),
                    !registered.contains(name) && name != "crit", named(name) != nil
                else { return .malformed }
                seen.append(Array(name.unicodeScalars))
            }
            return .unsupportedAlgorithm  // the strict policy understands no critical parameter
        }
        return .decryptionFailed
    }

    /// A JWK text as a public and a private key: an accepted key writes a JWK that imports to an equal
    /// key; an accepted private key decrypts what its public key encrypts; refusals are printable ASCII.
    static func checkJWK(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let text = String(decoding: input, as: UTF8.self)
        do {
            let key = try RSAPublicKey(jwk: text)
            try fuzzRequire((try? RSAPublicKey(jwk: key.jwkJSON())) == key, "public JWK does not round-trip")
        } catch let error as JWEError {
            try fuzzRequire(isPrintableASCII(error.description), "error text is not printable ASCII")
        } catch {}
        try checkPrivate { () throws(JWEError) in try RSAPrivateKey(jwk: text) }
    }

    /// A PEM text as a public and a private key, with the same round trips through PEM and JWK.
    static func checkPEM(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let text = String(decoding: input, as: UTF8.self)
        do {
            let key = try RSAPublicKey(pem: text)
            try fuzzRequire((try? RSAPublicKey(pem: key.pemRepresentation)) == key, "public PEM does not round-trip")
            try fuzzRequire((try? RSAPublicKey(jwk: key.jwkJSON())) == key, "public PEM -> JWK does not round-trip")
        } catch let error as JWEError {
            try fuzzRequire(isPrintableASCII(error.description), "error text is not printable ASCII")
        } catch {}
        try checkPrivate { () throws(JWEError) in try RSAPrivateKey(pem: text) }
    }

    private static func checkPrivate(_ load: () throws(JWEError) -> RSAPrivateKey) throws(FuzzViolation) {
        let key: RSAPrivateKey
        do { key = try load() } catch {
            try fuzzRequire(isPrintableASCII(error.description), "error text is not printable ASCII")
            return
        }
        try fuzzRequire(
            (try? RSAPrivateKey(jwk: key.jwkJSON()))?.publicKey == key.publicKey, "private JWK does not round-trip")
        // PEM carries no `kid` (one read from PEM is the thumbprint): compare the key itself.
        let again: RSAPublicKey
        do { again = try RSAPrivateKey(pem: key.pemRepresentation).publicKey } catch {
            throw FuzzViolation("private PEM does not read back: \(error)")
        }
        try fuzzRequire(
            again.modulus == key.publicKey.modulus && again.exponent == key.publicKey.exponent,
            "private PEM reads back as another key")
        let message = Array("fuzz".utf8)
        guard let token = try? JWEEncrypter(recipient: key.publicKey).encrypt(message),
            (try? JWEDecrypter(key: key).decrypt(token)) == message
        else { throw FuzzViolation("an accepted private key does not decrypt what its public key encrypts") }
    }
}

private func isPrintableASCII(_ text: String) -> Bool {
    text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
}
