internal import COpenSSL
internal import EGWWire

/// Encrypts payloads to one RSA public key as compact JWE: RSA-OAEP-256 key encryption, A256GCM content
/// encryption (RFC 7516, RFC 7518).
///
/// Every message gets a fresh 256-bit CEK and 96-bit IV straight from `RAND_priv_bytes` (nothing is drawn in
/// advance, so a forked child never repeats its parent's), and the CEK is encrypted with OpenSSL's RSA-OAEP
/// (SHA-256 as OAEP and MGF1 digest). The protected header is
/// `{"alg":"RSA-OAEP-256","enc":"A256GCM"}` plus `"kid"` when the key has one, and its base64url text is the
/// AAD. The CEK, and anything derived from it, is wiped after each message; the package makes no copy of the
/// plaintext.
///
/// Thread-safe: one encrypter can serve many threads at once. Build one per key and reuse it: it keeps
/// prepared OpenSSL contexts between messages.
///
/// ```swift
/// let token = try JWEEncrypter(recipient: key).encrypt(Array(#"{"cardNumber":"…"}"#.utf8))
/// ```
public struct JWEEncrypter: Sendable {
    /// The key tokens are encrypted to.
    public let recipient: RSAPublicKey
    private let engine: EncryptEngine

    /// Prepares encryption to `recipient`. Cheap; contexts are built on the first message.
    public init(recipient: RSAPublicKey) {
        self.recipient = recipient
        self.engine = EncryptEngine(recipient: recipient)
    }

    /// Encrypts `plaintext` and returns the compact serialization (five base64url segments joined by `.`).
    ///
    /// - Throws: ``JWEError`` `.internalFailure` only (randomness or OpenSSL failing).
    public func encrypt(_ plaintext: [UInt8]) throws(JWEError) -> String {
        try plaintext.withUnsafeBytesTyped { (bytes) throws(JWEError) -> String in
            try engine.encrypt(bytes, cekObserver: nil)
        }
    }

    /// Encrypts the bytes of a buffer the caller owns (and can wipe afterwards); see ``encrypt(_:)-([UInt8])``.
    public func encrypt(bytes plaintext: UnsafeRawBufferPointer) throws(JWEError) -> String {
        try engine.encrypt(plaintext, cekObserver: nil)
    }

    /// Test seam: encrypts and hands the CEK and IV to `observer` before they are wiped.
    func encrypt(
        _ plaintext: [UInt8], cekObserver: @escaping (_ cek: [UInt8], _ iv: [UInt8]) -> Void
    ) throws(JWEError) -> String {
        try plaintext.withUnsafeBytesTyped { (bytes) throws(JWEError) -> String in
            try engine.encrypt(bytes, cekObserver: cekObserver)
        }
    }
}

/// The contract-style name for ``JWEEncrypter``.
public typealias EGWJWEEncrypter = JWEEncrypter

/// The shared state of a ``JWEEncrypter``: the encoded header and the context pool.
final class EncryptEngine: Sendable {
    private let key: EVPKey
    private let encodedHeader: [UInt8]
    private let pool: WorkspacePool

    init(recipient: RSAPublicKey) {
        key = recipient.key
        var header = #"{"alg":"RSA-OAEP-256","enc":"A256GCM""#
        if let kid = recipient.kid {
            header += #","kid":"# + JSONWriter.quoted(kid)
        }
        header += "}"
        encodedHeader = Array(Base64URL.encode(Array(header.utf8)).utf8)
        pool = WorkspacePool(key: recipient.key, direction: .encrypt)
    }

    func encrypt(
        _ plaintext: UnsafeRawBufferPointer,
        cekObserver: ((_ cek: [UInt8], _ iv: [UInt8]) -> Void)?
    ) throws(JWEError) -> String {
        guard plaintext.count < Int(Int32.max) - 64 else {
            throw JWEError(.tooLarge, "the plaintext is too large to encrypt in one message")
        }
        let modulusCount = key.modulusByteCount
        let ciphertextCount = plaintext.count
        let ciphertext = UnsafeMutableRawBufferPointer.allocate(byteCount: max(ciphertextCount, 1), alignment: 16)
        defer { ciphertext.deallocate() }
        var tag: (UInt64, UInt64) = (0, 0)

        let secrets = try MessageSecrets.forEncryption()
        // The pointers below point into `secrets`: it must outlive every use of them.
        defer { withExtendedLifetime(secrets) {} }
        if let cekObserver {
            cekObserver(
                Array(UnsafeBufferPointer(start: secrets.cek, count: MessageSecrets.cekCount)),
                Array(UnsafeBufferPointer(start: secrets.iv, count: MessageSecrets.ivCount)))
        }
        return try pool.withWorkspace { (workspace) throws(JWEError) -> String in
            // RSA-OAEP-256 of the CEK, by OpenSSL.
            guard workspace.wrap(secrets.cek, count: MessageSecrets.cekCount) == modulusCount else {
                throw OpenSSLErrorQueue.error(.internalFailure, "RSA-OAEP-256 encryption of the CEK failed")
            }
            // A256GCM of the plaintext, AAD = ASCII of the encoded header.
            let ok = encodedHeader.withUnsafeBufferPointer { aad in
                withUnsafeMutableBytes(of: &tag) { tag in
                    workspace.seal(
                        key: secrets.cek, iv: secrets.iv, aad: aad, plaintext: plaintext,
                        ciphertext: ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self), tag: tag.baseAddress!)
                }
            }
            guard ok else { throw OpenSSLErrorQueue.error(.internalFailure, "A256GCM encryption failed") }
            // Still inside the pool: the encrypted key in the workspace's block is copied out before reuse.
            return assemble(
                encryptedKey: UnsafeRawBufferPointer(start: workspace.block.baseAddress, count: modulusCount),
                iv: UnsafeRawBufferPointer(start: secrets.iv, count: MessageSecrets.ivCount),
                ciphertext: UnsafeRawBufferPointer(start: ciphertext.baseAddress, count: ciphertextCount),
                tag: tag)
        }
    }

    /// Writes header.encryptedKey.iv.ciphertext.tag straight into the string's storage.
    private func assemble(
        encryptedKey: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer,
        tag: (UInt64, UInt64)
    ) -> String {
        let total =
            encodedHeader.count + 4 + Base64URL.encodedCount(encryptedKey.count) + Base64URL.encodedCount(iv.count)
            + Base64URL.encodedCount(ciphertext.count) + 22
        var tag = tag
        return String(unsafeUninitializedCapacity: total) { output in
            let base = output.baseAddress!
            var position = encodedHeader.withUnsafeBufferPointer { header in
                base.update(from: header.baseAddress!, count: header.count)
                return header.count
            }
            base[position] = UInt8(ascii: ".")
            position += 1
            position += Base64URL.encode(encryptedKey, into: base + position)
            base[position] = UInt8(ascii: ".")
            position += 1
            position += Base64URL.encode(iv, into: base + position)
            base[position] = UInt8(ascii: ".")
            position += 1
            position += Base64URL.encode(ciphertext, into: base + position)
            base[position] = UInt8(ascii: ".")
            position += 1
            position += withUnsafeBytes(of: &tag) { Base64URL.encode($0, into: base + position) }
            return position
        }
    }
}
