import JWE
import Synchronization

/// The card-encryption key backed by the JWE package: an RSA key pair served as a JWKS and
/// used with `JWEDecrypter(policy: .strict)`.
final class JWECardKeys: CardKeyService {
    private let current: Mutex<RSAPrivateKey>

    /// Uses `key`; a key without `kid` gets its RFC 7638 thumbprint as `kid`.
    init(key: RSAPrivateKey) {
        current = Mutex(key.kid == nil ? key.withKid(key.publicKey.thumbprint) : key)
    }

    /// A fresh RSA-2048 key.
    static func generated() throws(SandboxError) -> JWECardKeys {
        do {
            return JWECardKeys(key: try RSAPrivateKey.generate(bits: 2048))
        } catch {
            throw SandboxError(.keyUnavailable, "cannot generate an RSA-2048 key: \(error)")
        }
    }

    var currentKid: String { current.withLock { $0.kid ?? $0.publicKey.thumbprint } }

    func jwks() -> JSONValue {
        let key = current.withLock { $0 }
        // The JWE package writes {"e","kid","kty","n"}; the JWKS adds what GATEWAY.md promises.
        let exported = (try? JSONValue.parse(key.publicKey.jwkJSON()).objectValue) ?? JSONObject()
        let entry = JSONObject([
            "kty": .string("RSA"), "kid": .string(key.kid ?? key.publicKey.thumbprint), "use": .string("enc"),
            "alg": .string("RSA-OAEP-256"), "n": exported["n"], "e": exported["e"],
        ])
        return .object(JSONObject(["keys": .array([.object(entry)])]))
    }

    func decrypt(_ compact: String) -> Result<[UInt8], CardKeyFailure> {
        let key = current.withLock { $0 }
        let header: JWEProtectedHeader
        do {
            header = try JWEProtectedHeader(compact: compact)
        } catch {
            return .failure(.decryptionFailed(reason: error.description))
        }
        if let kid = header.kid, kid != key.kid {
            return .failure(.unknownKey(kid: kid))
        }
        do {
            return .success(try JWEDecrypter(key: key, policy: .strict).decrypt(compact))
        } catch {
            return .failure(.decryptionFailed(reason: error.description))
        }
    }

    @discardableResult
    func rotate() -> String {
        // Generation only fails if OpenSSL cannot allocate; the old key then stays in service.
        guard let fresh = try? RSAPrivateKey.generate(bits: 2048) else { return currentKid }
        let key = fresh.kid == nil ? fresh.withKid(fresh.publicKey.thumbprint) : fresh
        current.withLock { $0 = key }
        return key.kid ?? key.publicKey.thumbprint
    }
}

extension Sandbox {
    static func makeKeys(_ configuration: Configuration) throws(SandboxError) -> any CardKeyService {
        if let key = configuration.privateKey { return JWECardKeys(key: key) }
        return try JWECardKeys.generated()
    }
}
