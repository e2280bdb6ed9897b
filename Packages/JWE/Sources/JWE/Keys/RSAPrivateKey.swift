internal import EGWWire

/// An RSA key pair (at least 2048 bits) to decrypt JWE tokens with.
///
/// Generate one, or import it from a private JWK (`d`, with or without the CRT members `p`, `q`, `dp`, `dq`,
/// `qi`) or a PKCS#8 PEM. Imported key pairs are checked for consistency by OpenSSL. When the source names no
/// `kid`, the key's ``kid`` is the RFC 7638 thumbprint of its public key. ``description`` never shows
/// private material.
///
/// Immutable and `Sendable`: share one value between threads freely.
public struct RSAPrivateKey: Sendable, CustomStringConvertible {
    let key: EVPKey

    /// The public half, with the same ``kid``.
    public let publicKey: RSAPublicKey

    /// The key ID (the RFC 7638 thumbprint unless the JWK or the caller gave one).
    public var kid: String? { publicKey.kid }

    /// The modulus size in bits.
    public var bitCount: Int { key.bitCount }

    private init(key: EVPKey, kid: String?) throws(JWEError) {
        self.key = key
        self.publicKey = try RSAPublicKey(evpKey: key, kid: kid)
    }

    /// Generates a fresh key pair.
    ///
    /// - Parameters:
    ///   - bits: 2048, 3072 or 4096.
    ///   - kid: the key ID; nil means the RFC 7638 thumbprint.
    /// - Throws: ``JWEError`` `.keyTooSmall` under 2048 bits, `.invalidKey` for other unsupported sizes.
    public static func generate(bits: Int = 2048, kid: String? = nil) throws(JWEError) -> RSAPrivateKey {
        let key = try RSAKeyFactory.generate(bits: bits)
        return try RSAPrivateKey(key: key, kid: kid)
    }

    /// Reads one private RSA JWK to decrypt with.
    ///
    /// A JWK whose `use` is not `enc`, or whose `key_ops` hold neither `unwrapKey` nor `decrypt`, forbids
    /// decryption and is refused (`.invalidKey`), as is a `d` outside 1 < d < n. The private members go from
    /// the text into byte buffers reserved at their final size and wiped; none becomes a `String`.
    ///
    /// - Throws: ``JWEError`` with `.malformed` (not strict JSON), `.invalidKey` (missing `d`, inconsistent
    ///   parameters, leading zero in `n`, ...), `.keyTooSmall` or `.unsupportedAlgorithm`.
    public init(jwk: String) throws(JWEError) {
        var components = try RSAJWKComponents.parse(jwk, requirePrivate: true, purpose: .decryption)
        defer { components.wipe() }
        let key = try RSAKeyFactory.makeKey(components, includePrivate: true)
        try self.init(key: key, kid: components.kid)
    }

    /// Reads one private RSA JWK from its UTF-8 bytes, by the rules of ``init(jwk:)``, without making a copy of
    /// them: for a key read from a file into a buffer the caller wipes (``SecureMemory/wipe(_:)-([UInt8])``),
    /// which a `String` of the file could never be.
    ///
    /// - Throws: as ``init(jwk:)``.
    public init(jwkBytes bytes: [UInt8]) throws(JWEError) {
        var components = try RSAJWKComponents.parse(bytes, requirePrivate: true, purpose: .decryption)
        defer { components.wipe() }
        let key = try RSAKeyFactory.makeKey(components, includePrivate: true)
        try self.init(key: key, kid: components.kid)
    }

    /// Reads an unencrypted PKCS#8 PEM from its bytes (ASCII), by the rules of ``init(pem:)``, without making
    /// a copy of them (the caller wipes them).
    ///
    /// - Throws: as ``init(pem:)``.
    public init(pemBytes bytes: [UInt8]) throws(JWEError) {
        let key = try RSAKeyFactory.readPEM(bytes, label: "PRIVATE KEY", isPrivate: true)
        try self.init(key: key, kid: nil)
    }

    /// Reads an unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`) holding an RSA key.
    ///
    /// - Throws: ``JWEError`` with `.malformed`, `.invalidKey` (not RSA, inconsistent) or `.keyTooSmall`.
    public init(pem: String) throws(JWEError) {
        let key = try RSAKeyFactory.readPEM(pem, label: "PRIVATE KEY", isPrivate: true)
        try self.init(key: key, kid: nil)
    }

    /// The same key pair with another key ID (nil: tokens carry no `kid`).
    public func withKid(_ kid: String?) -> RSAPrivateKey {
        RSAPrivateKey(key: key, publicKey: publicKey.withKid(kid))
    }

    private init(key: EVPKey, publicKey: RSAPublicKey) {
        self.key = key
        self.publicKey = publicKey
    }

    /// The private JWK, members in lexicographic order:
    /// `{"d","dp","dq","e","kid"?,"kty":"RSA","n","p","q","qi"}`. Treat the text as secret.
    public func jwkJSON() -> String {
        func member(_ name: String) -> String {
            guard var bytes = key.bigEndianParameter(name) else { return "" }
            defer { Crypto.wipe(&bytes) }
            return Base64URL.encode(bytes)
        }
        var members: [(String, String)] = [
            ("d", member("d")),
            ("dp", member("rsa-exponent1")),
            ("dq", member("rsa-exponent2")),
            ("e", Base64URL.encode(publicKey.exponent)),
        ]
        if let kid { members.append(("kid", kid)) }
        members.append(("kty", "RSA"))
        members.append(("n", Base64URL.encode(publicKey.modulus)))
        members.append(("p", member("rsa-factor1")))
        members.append(("q", member("rsa-factor2")))
        members.append(("qi", member("rsa-coefficient1")))
        // A key imported from a JWK without CRT members has none to export.
        return JSONWriter.object(members.filter { !$0.1.isEmpty })
    }

    /// The PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), unencrypted. Treat the text as secret.
    public var pemRepresentation: String { RSAKeyFactory.writePEM(key, isPrivate: true) }

    /// `RSAPrivateKey(2048 bits, kid: …)`; never shows key material.
    public var description: String { "RSAPrivateKey(\(bitCount) bits, kid: \(kid ?? "none"))" }
}

/// The contract-style name for ``RSAPrivateKey``.
public typealias EGWRSAPrivateKey = RSAPrivateKey
