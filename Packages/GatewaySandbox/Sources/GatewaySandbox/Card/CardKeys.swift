import EGWWire

/// The card-encryption key as the sandbox uses it: serve it as a JWKS, decrypt with it, rotate it.
///
/// Implementations are thread-safe; `withPlaintext` uses one consistent key even while `rotate` runs.
protocol CardKeyService: Sendable {
    /// The `kid` of the key currently served.
    var currentKid: String { get }
    /// `{"keys": [{"kty": "RSA", "kid", "use": "enc", "alg": "RSA-OAEP-256", "n", "e"}]}`.
    func jwks() -> JSONValue
    /// Decrypts a compact JWE strictly, hands the plaintext to `body`, then wipes it: the plaintext
    /// does not outlive the call, and `body` must not copy it. A `kid` other than the current one is
    /// `.unknownKey` (checked before any cryptography); everything else that fails is `.decryptionFailed`.
    func withPlaintext<R>(
        of compact: String, _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> Result<R, CardKeyFailure>
    /// Replaces the key with a new one; returns the new `kid`.
    @discardableResult func rotate() -> String
}

/// Why `encryptedCard` could not be opened.
enum CardKeyFailure: Error, Sendable, Equatable {
    /// The token names a `kid` the sandbox does not serve (any more).
    case unknownKey(kid: String)
    /// Malformed token, wrong algorithms, or the cryptography failed.
    case decryptionFailed(reason: String)
}
