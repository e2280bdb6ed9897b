/// What a ``JWEDecrypter`` accepts. The algorithms come from here, never from the token.
///
/// ``strict`` is the only policy most callers need: RSA-OAEP-256 key encryption, A256GCM content encryption,
/// no compression, no critical extensions, compact serialization of at most 256 KiB.
public struct JWEPolicy: Sendable, Equatable {
    /// The only key-management algorithm this package implements.
    public static let keyManagementAlgorithm = "RSA-OAEP-256"
    /// The only content-encryption algorithm this package implements.
    public static let contentEncryptionAlgorithm = "A256GCM"

    /// The `alg` a token must carry, exactly.
    public var algorithm: String { Self.keyManagementAlgorithm }
    /// The `enc` a token must carry, exactly.
    public var encryption: String { Self.contentEncryptionAlgorithm }

    /// Tokens longer than this many UTF-8 bytes are refused with ``JWEError/Code/tooLarge`` before parsing.
    public var maximumCompactLength: Int

    /// Header parameter names the caller processes itself and therefore lets appear in `crit`
    /// (RFC 7515 section 4.1.11). Empty in ``strict``: any `crit` is refused. Names match scalar by scalar,
    /// as JSON member names do ("K" is not U+212A KELVIN SIGN); a `Set<String>` holds only one of two names
    /// that are canonically equivalent.
    public var understoodCriticalParameters: Set<String>

    /// Makes a policy; see ``strict`` for the defaults.
    public init(maximumCompactLength: Int = 256 * 1024, understoodCriticalParameters: Set<String> = []) {
        self.maximumCompactLength = maximumCompactLength
        self.understoodCriticalParameters = understoodCriticalParameters
    }

    /// RSA-OAEP-256 + A256GCM, no `zip`, no `crit`, at most 256 KiB of compact serialization.
    public static let strict = JWEPolicy()
}

/// The contract-style name for ``JWEPolicy``.
public typealias EGWJWEPolicy = JWEPolicy
