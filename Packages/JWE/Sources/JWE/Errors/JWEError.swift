/// The one error type of the JWE package: a code a caller can switch on and a reason a developer can act on.
///
/// Codes are stable; reasons are prose for people and may change. Every failure of the cryptographic layer of
/// ``JWEDecrypter/decrypt(_:)`` (wrong key, tampered header, ciphertext, IV, tag or encrypted key) is reported
/// as ``Code/decryptionFailed`` with the same reason, whatever step failed, so an attacker learns nothing from it.
/// Reasons never contain key material or plaintext.
public struct JWEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in a form a caller can switch on.
    ///
    /// A struct with static members rather than an enum, so that a later version can add codes without breaking
    /// anyone's exhaustive `switch` (swift-asn1's `ASN1Error.ErrorCode` does the same). Match with
    /// `case .decryptionFailed:` and keep a `default:`.
    public struct Code: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Backing: String, CaseIterable {
            case malformed
            case unsupportedAlgorithm
            case keyTooSmall
            case invalidKey
            case decryptionFailed
            case tooLarge
            case internalFailure
        }

        private var backing: Backing

        private init(_ backing: Backing) {
            self.backing = backing
        }

        /// The input is not well formed: not compact serialization, bad base64url, a header that is not a JSON
        /// object or has duplicate members, a segment of the wrong length, a PEM or JWK that cannot be read.
        public static let malformed = Code(.malformed)
        /// An algorithm, compression or critical header parameter that the policy does not allow.
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// An RSA key under 2048 bits (refused on import and on generation).
        public static let keyTooSmall = Code(.keyTooSmall)
        /// A key that is not a usable RSA key (wrong type, inconsistent parameters, leading zero in `n`, a
        /// `use` or `key_ops` that forbids what it is imported for, ...).
        public static let invalidKey = Code(.invalidKey)
        /// The token did not decrypt under this key. Deliberately uninformative.
        public static let decryptionFailed = Code(.decryptionFailed)
        /// The input is larger than the policy's cap; refused before parsing.
        public static let tooLarge = Code(.tooLarge)
        /// OpenSSL failed where it should not (memory, entropy source); the reason carries OpenSSL's text.
        public static let internalFailure = Code(.internalFailure)

        /// Every code this version knows, in declaration order.
        public static var allCases: [Code] { Backing.allCases.map(Code.init) }

        /// The code's name, e.g. `decryptionFailed`: stable, fit for logs and metrics.
        public var rawValue: String { backing.rawValue }

        /// The code named `rawValue`, or nil for a name this version does not know.
        public init?(rawValue: String) {
            guard let backing = Backing(rawValue: rawValue) else { return nil }
            self.backing = backing
        }

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
