/// The one error type of the JWE package: a code a caller can switch on and a reason a developer can act on.
///
/// Codes are stable; reasons are prose for people and may change. Every failure of the cryptographic layer of
/// ``JWEDecrypter/decrypt(_:)`` (wrong key, tampered header, ciphertext, IV, tag or encrypted key) is reported
/// as ``Code/decryptionFailed`` with the same reason, whatever step failed, so an attacker learns nothing from it.
/// Reasons never contain key material or plaintext.
public struct JWEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in a form a caller can switch on.
    public enum Code: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The input is not well formed: not compact serialization, bad base64url, a header that is not a JSON
        /// object or has duplicate members, a segment of the wrong length, a PEM or JWK that cannot be read.
        case malformed
        /// An algorithm, compression or critical header parameter that the policy does not allow.
        case unsupportedAlgorithm
        /// An RSA key under 2048 bits (refused on import and on generation).
        case keyTooSmall
        /// A key that is not a usable RSA key (wrong type, inconsistent parameters, leading zero in `n`, ...).
        case invalidKey
        /// The token did not decrypt under this key. Deliberately uninformative.
        case decryptionFailed
        /// The input is larger than the policy's cap; refused before parsing.
        case tooLarge
        /// OpenSSL failed where it should not (memory, entropy source); the reason carries OpenSSL's text.
        case internalFailure

        /// The code's name, e.g. `decryptionFailed`.
        public var description: String { rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// Why, for a developer: what was expected and, for OpenSSL failures, OpenSSL's own reason text.
    public var reason: String

    /// Makes an error from a code and a reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `JWE <code>: <reason>`.
    public var description: String { "JWE \(code.rawValue): \(reason)" }
}

/// The contract's name for ``JWEError``.
public typealias EGWJWEError = JWEError

extension JWEError {
    /// The single error every cryptographic failure of decryption becomes (RFC 7516 section 11.5).
    static let decryptionFailedGeneric = JWEError(.decryptionFailed, "the token does not decrypt under this key")
}
