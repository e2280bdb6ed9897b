internal import EGWWire

/// The decoded protected header of a compact JWE, read without any key or cryptography.
///
/// Parsing is as strict as ``JWEDecrypter``'s: the size cap of ``JWEPolicy/strict``, exactly five segments,
/// canonical unpadded base64url in every segment, a JSON object with no duplicate members. It does not judge
/// the algorithms (use it to show what a token claims, e.g. while debugging or logging).
///
/// Everything here was chosen by whoever made the token. ``json`` is safe to log or print as is; ``alg``,
/// ``enc`` and ``kid`` are the decoded values, which may hold control characters or any other Unicode: pass
/// them through ``UntrustedText/escaped(_:)`` before they reach a log or a terminal.
public struct JWEProtectedHeader: Sendable, Equatable {
    /// The `alg` member, when present.
    public var alg: String?
    /// The `enc` member, when present.
    public var enc: String?
    /// The `kid` member, when present.
    public var kid: String?
    /// The decoded header JSON, with every character outside printable ASCII (C0 and C1 controls, DEL,
    /// anything non-ASCII, all of which can only occur inside its strings) written as a `\uXXXX` escape: the
    /// same JSON value as in the token, safe for a log or a terminal. A header of printable ASCII (any header
    /// this package writes) is unchanged.
    public var json: String

    /// Decodes the protected header of `compact`.
    ///
    /// - Throws: ``JWEError`` `.tooLarge` or `.malformed`.
    public init(compact: String) throws(JWEError) {
        guard compact.utf8.count <= JWEPolicy.strict.maximumCompactLength else {
            throw JWEError(.tooLarge, "the token exceeds \(JWEPolicy.strict.maximumCompactLength) bytes")
        }
        var text = compact
        let parsed = try text.withUTF8Bytes { (bytes) throws(JWEError) -> ParsedProtectedHeader in
            let segments = try CompactSegments.split(bytes)
            for range in [segments.encryptedKey, segments.iv, segments.ciphertext, segments.tag] {
                guard Base64URL.decode(bytes.slice(range)) != nil else {
                    throw JWEError(.malformed, "a segment is not canonical unpadded base64url")
                }
            }
            return try ParsedProtectedHeader.parse(bytes.slice(segments.header))
        }
        alg = parsed.alg
        enc = parsed.enc
        kid = parsed.kid
        json = parsed.json
    }
}

/// The contract-style name for ``JWEProtectedHeader``.
public typealias EGWJWEProtectedHeader = JWEProtectedHeader
