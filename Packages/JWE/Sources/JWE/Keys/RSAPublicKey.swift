public import EGWWire

/// An RSA public key (at least 2048 bits) to encrypt JWE tokens to, with an optional key ID.
///
/// Import from a JWK (RFC 7517/7518) or an SPKI PEM; export as a JWK. Keys under 2048 bits are refused with
/// ``JWEError/Code/keyTooSmall``; a JWK whose `n` starts with a zero octet, an even modulus, an unusual
/// exponent or a JWK meant for another algorithm (`alg` other than `RSA-OAEP-256`, `use` other than `enc`) is
/// refused. When the source names no `kid`, the key's ``kid`` is its RFC 7638 ``thumbprint``.
///
/// Immutable and `Sendable`: share one value between threads freely.
public struct RSAPublicKey: Sendable, Equatable, CustomStringConvertible {
    let key: EVPKey
    let modulus: [UInt8]
    let exponent: [UInt8]

    /// The key ID put in the `kid` header of tokens encrypted to this key (nil only after `withKid(nil)`).
    public private(set) var kid: String?
    /// The modulus size in bits.
    public var bitCount: Int { key.bitCount }
    /// The RFC 7638 JWK thumbprint: base64url of the SHA-256 of `{"e":…,"kty":"RSA","n":…}`.
    public let thumbprint: String

    init(key: EVPKey, modulus: [UInt8], exponent: [UInt8], kid: String?) throws(JWEError) {
        self.key = key
        self.modulus = modulus
        self.exponent = exponent
        self.thumbprint = try RSAKeyFactory.thumbprint(n: modulus, e: exponent)
        self.kid = kid ?? thumbprint
    }

    /// Reads the public part of one RSA JWK (private members, when present, are ignored) to encrypt to.
    ///
    /// The private members are never decoded: they need only be JSON strings (the whole text must be strict
    /// JSON), and no copy of them is made.
    ///
    /// A JWK whose `use` is not `enc`, or whose `key_ops` hold neither `wrapKey` nor `encrypt`, forbids
    /// encryption and is refused (`.invalidKey`).
    ///
    /// - Throws: ``JWEError`` with `.malformed` (not strict JSON), `.invalidKey`, `.keyTooSmall` or
    ///   `.unsupportedAlgorithm` (the JWK's `alg` is not `RSA-OAEP-256`).
    public init(jwk: String) throws(JWEError) {
        var components = try RSAJWKComponents.parse(jwk, requirePrivate: false, purpose: .encryption)
        components.wipe()
        let key = try RSAKeyFactory.makeKey(components, includePrivate: false)
        try self.init(key: key, modulus: components.n, exponent: components.e, kid: components.kid)
    }

    /// Reads the public part of one RSA JWK that EGWWire's `StrictJSONParser` has already parsed, by the
    /// same rules as ``init(jwk:)-(String)``: for a JWK inside a larger document (one element of a key set's
    /// `keys`), which is then parsed once, strictly, duplicate members refused at every depth. Private members
    /// in the value are not read.
    ///
    /// - Throws: ``JWEError`` with `.malformed` (not an object), `.invalidKey`, `.keyTooSmall` or
    ///   `.unsupportedAlgorithm`.
    public init(jwk: JSONValue) throws(JWEError) {
        var components = try RSAJWKComponents.parse(jwk, requirePrivate: false, purpose: .encryption)
        components.wipe()
        let key = try RSAKeyFactory.makeKey(components, includePrivate: false)
        try self.init(key: key, modulus: components.n, exponent: components.e, kid: components.kid)
    }

    /// Reads the public part of one RSA JWK from its UTF-8 bytes, by the rules of ``init(jwk:)-(String)``,
    /// without making a copy of them (a private JWK's bytes stay the caller's to wipe).
    ///
    /// - Throws: as ``init(jwk:)-(String)``.
    public init(jwkBytes bytes: [UInt8]) throws(JWEError) {
        var components = try RSAJWKComponents.parse(bytes, requirePrivate: false, purpose: .encryption)
        components.wipe()
        let key = try RSAKeyFactory.makeKey(components, includePrivate: false)
        try self.init(key: key, modulus: components.n, exponent: components.e, kid: components.kid)
    }

    /// Reads an SPKI PEM (`-----BEGIN PUBLIC KEY-----`) holding an RSA key; its ``kid`` is the thumbprint.
    ///
    /// - Throws: ``JWEError`` with `.malformed`, `.invalidKey` (not RSA) or `.keyTooSmall`.
    public init(pem: String) throws(JWEError) {
        let key = try RSAKeyFactory.readPEM(pem, label: "PUBLIC KEY", isPrivate: false)
        try self.init(evpKey: key, kid: nil)
    }

    /// Reads an SPKI PEM from its bytes (ASCII), by the rules of ``init(pem:)``, without making a copy of them.
    ///
    /// - Throws: as ``init(pem:)``.
    public init(pemBytes bytes: [UInt8]) throws(JWEError) {
        let key = try RSAKeyFactory.readPEM(bytes, label: "PUBLIC KEY", isPrivate: false)
        try self.init(evpKey: key, kid: nil)
    }

    init(evpKey key: EVPKey, kid: String?) throws(JWEError) {
        guard let n = key.bigEndianParameter("n"), let e = key.bigEndianParameter("e") else {
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot read the RSA modulus and exponent")
        }
        try self.init(key: key, modulus: n, exponent: e, kid: kid)
    }

    /// The same key with another key ID (nil: tokens carry no `kid`).
    public func withKid(_ kid: String?) -> RSAPublicKey {
        var copy = self
        copy.kid = kid
        return copy
    }

    /// The public JWK, members in lexicographic order: `{"e":…,"kid":…,"kty":"RSA","n":…}` (`kid` when set).
    public func jwkJSON() -> String {
        var members: [(String, String)] = [("e", Base64URL.encode(exponent))]
        if let kid { members.append(("kid", kid)) }
        members.append(("kty", "RSA"))
        members.append(("n", Base64URL.encode(modulus)))
        return JSONWriter.object(members)
    }

    /// The SPKI PEM (`-----BEGIN PUBLIC KEY-----`) of the key.
    public var pemRepresentation: String { RSAKeyFactory.writePEM(key, isPrivate: false) }

    /// Keys are equal when modulus, exponent and `kid` are.
    public static func == (lhs: RSAPublicKey, rhs: RSAPublicKey) -> Bool {
        lhs.modulus == rhs.modulus && lhs.exponent == rhs.exponent && lhs.kid == rhs.kid
    }

    /// `RSAPublicKey(2048 bits, kid: …)`.
    public var description: String { "RSAPublicKey(\(bitCount) bits, kid: \(kid ?? "none"))" }
}

/// The contract-style name for ``RSAPublicKey``.
public typealias EGWRSAPublicKey = RSAPublicKey
