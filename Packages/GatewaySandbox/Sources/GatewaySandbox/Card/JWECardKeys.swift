import EGWWire
import JWE
import Synchronization

/// The card-encryption key backed by the JWE package: an RSA key pair served as a JWKS and
/// used with `JWEDecrypter(policy: .strict)`.
///
/// One `JWEDecrypter` is built per key, when the key comes into service (at start and at each
/// rotation), never per request. The JWE package documents a decrypter as safe for concurrent
/// use (its prepared OpenSSL contexts sit in a one-slot pool taken under a short lock; a message
/// that finds the slot empty builds its own set), so every request shares it with no pool or lock
/// of ours. The `Mutex` guards only which decrypter is current: a request copies it out under the
/// lock and decrypts outside it, so a rotation never waits for RSA work. The previous key's
/// decrypter lives exactly as long as the previous key is honoured, as before this change: by a
/// request that read it before the rotation, until that request ends. A token that names the old
/// `kid` after the rotation is `.unknownKey`.
final class JWECardKeys: CardKeyService {
    private let current: Mutex<JWEDecrypter>
    private let built = Atomic<Int>(0)

    /// Uses `key`; a key without `kid` gets its RFC 7638 thumbprint as `kid`.
    init(key: RSAPrivateKey) {
        current = Mutex(JWEDecrypter(key: Self.withKid(key), policy: .strict))
        built.add(1, ordering: .relaxed)
    }

    /// A fresh RSA-2048 key.
    static func generated() throws(SandboxError) -> JWECardKeys {
        do {
            return JWECardKeys(key: try RSAPrivateKey.generate(bits: 2048))
        } catch {
            throw SandboxError(.keyUnavailable, "cannot generate an RSA-2048 key: \(error)")
        }
    }

    private static func withKid(_ key: RSAPrivateKey) -> RSAPrivateKey {
        key.kid == nil ? key.withKid(key.publicKey.thumbprint) : key
    }

    /// How many decrypters were built: 1 at start, plus 1 per rotation (for tests).
    var decryptersBuilt: Int { built.load(ordering: .relaxed) }

    private var key: RSAPrivateKey { current.withLock { $0.key } }

    var currentKid: String {
        let key = key
        return key.kid ?? key.publicKey.thumbprint
    }

    func jwks() -> JSONValue {
        let key = key
        // The JWE package writes {"e","kid","kty","n"}; the JWKS adds what GATEWAY.md promises.
        let exported = try? StrictJSONParser.parse(Array(key.publicKey.jwkJSON().utf8))
        let entry = JSONObjectBuilder([
            "kty": .string("RSA"), "kid": .string(key.kid ?? key.publicKey.thumbprint), "use": .string("enc"),
            "alg": .string("RSA-OAEP-256"), "n": exported?[member: "n"], "e": exported?[member: "e"],
        ])
        return JSONObjectBuilder(["keys": .array([entry.value])]).value
    }

    func withPlaintext<R>(
        of compact: String, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> Result<R, CardKeyFailure> {
        let decrypter = current.withLock { $0 }
        let header: JWEProtectedHeader
        do {
            header = try JWEProtectedHeader(compact: compact)
        } catch {
            return .failure(.decryptionFailed(reason: error.description))
        }
        if let kid = header.kid, kid != decrypter.key.kid {
            // Token text: escaped before it can reach an answer, the log or a terminal.
            return .failure(.unknownKey(kid: UntrustedText.escaped(kid)))
        }
        // The array the decrypter returns is the plaintext's only copy (the JWE package wipes its
        // own buffers, and a failed decryption's): read it in place, then wipe it.
        var plaintext: [UInt8]
        do {
            plaintext = try decrypter.decrypt(compact)
        } catch {
            return .failure(.decryptionFailed(reason: error.description))
        }
        defer { CardMemory.wipe(&plaintext) }
        return .success(plaintext.withUnsafeBufferPointer(body))
    }

    @discardableResult
    func rotate() -> String {
        // Generation only fails if OpenSSL cannot allocate; the old key then stays in service.
        guard let fresh = try? RSAPrivateKey.generate(bits: 2048) else { return currentKid }
        let key = Self.withKid(fresh)
        // Built before taking the lock: requests keep using the old decrypter meanwhile.
        let decrypter = JWEDecrypter(key: key, policy: .strict)
        built.add(1, ordering: .relaxed)
        current.withLock { $0 = decrypter }
        return key.kid ?? key.publicKey.thumbprint
    }
}

extension Sandbox {
    static func makeKeys(_ configuration: Configuration) throws(SandboxError) -> any CardKeyService {
        if let key = configuration.privateKey { return JWECardKeys(key: key) }
        return try JWECardKeys.generated()
    }
}
