internal import COpenSSL
internal import EGWWire

/// Decrypts compact JWE tokens made for one RSA key pair, strictly.
///
/// In order, before any cryptography: the policy's size cap; exactly five segments; canonical unpadded
/// base64url in every segment; a protected header that is a JSON object (valid UTF-8, no duplicate members)
/// whose `alg` and `enc` are exactly the policy's (`RSA-OAEP-256`, `A256GCM`), with no `zip` and no `crit`
/// the policy does not understand (`jwk`, `jku`, `x5u`, `x5c` are never used); an encrypted key exactly as long
/// as the modulus, an IV of exactly 12 bytes and a tag of exactly 16. Then RSA-OAEP-256 unwraps the CEK; if that
/// fails or the CEK is not 32 bytes, decryption continues with a random CEK (RFC 7516 section 11.5), so every
/// cryptographic failure surfaces as the same ``JWEError/Code/decryptionFailed`` at the same point: the GCM tag
/// check. The CEK and intermediate buffers are wiped.
///
/// Thread-safe: one decrypter can serve many threads at once, reusing prepared OpenSSL contexts.
public struct JWEDecrypter: Sendable {
    /// The policy tokens are held to.
    public let policy: JWEPolicy
    /// The key pair tokens are decrypted with.
    public let key: RSAPrivateKey
    private let engine: DecryptEngine

    /// Prepares decryption with `key` under `policy` (``JWEPolicy/strict`` unless you know why not).
    public init(key: RSAPrivateKey, policy: JWEPolicy = .strict) {
        self.key = key
        self.policy = policy
        self.engine = DecryptEngine(key: key.key, policy: policy)
    }

    /// Decrypts a compact JWE and returns the plaintext bytes.
    ///
    /// - Throws: ``JWEError`` with `.tooLarge`, `.malformed`, `.unsupportedAlgorithm`, `.decryptionFailed` or
    ///   (OpenSSL or the random source failing) `.internalFailure`.
    public func decrypt(_ compact: String) throws(JWEError) -> [UInt8] {
        try engine.decrypt(compact).plaintext
    }

    /// Decrypts and also returns the protected header the token carried.
    public func decryptWithHeader(
        _ compact: String
    ) throws(JWEError) -> (plaintext: [UInt8], header: JWEProtectedHeader) {
        let (plaintext, header) = try engine.decrypt(compact)
        return (plaintext, JWEProtectedHeader(alg: header.alg, enc: header.enc, kid: header.kid, json: header.json))
    }
}

/// The contract-style name for ``JWEDecrypter``.
public typealias EGWJWEDecrypter = JWEDecrypter

extension JWEProtectedHeader {
    init(alg: String?, enc: String?, kid: String?, json: String) {
        self.alg = alg
        self.enc = enc
        self.kid = kid
        self.json = json
    }
}

/// The shared state of a ``JWEDecrypter``.
final class DecryptEngine: Sendable {
    private let key: EVPKey
    private let policy: JWEPolicy
    private let pool: WorkspacePool

    init(key: EVPKey, policy: JWEPolicy) {
        self.key = key
        self.policy = policy
        self.pool = WorkspacePool(key: key, direction: .decrypt)
    }

    func decrypt(
        _ compact: String
    ) throws(JWEError) -> (plaintext: [UInt8], header: ParsedProtectedHeader) {
        guard compact.utf8.count <= policy.maximumCompactLength else {
            throw JWEError(.tooLarge, "the token exceeds the policy's \(policy.maximumCompactLength) bytes")
        }
        var text = compact
        return try text.withUTF8Bytes { (bytes) throws(JWEError) -> ([UInt8], ParsedProtectedHeader) in
            try decrypt(bytes)
        }
    }

    private func decodeSegment(_ bytes: UnsafeBufferPointer<UInt8>, _ name: String) throws(JWEError) -> [UInt8] {
        guard let decoded = Base64URL.decode(bytes) else {
            throw JWEError(.malformed, "the \(name) is not canonical unpadded base64url")
        }
        return decoded
    }

    private func decrypt(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) throws(JWEError) -> ([UInt8], ParsedProtectedHeader) {
        let segments = try CompactSegments.split(bytes)
        let headerSegment = bytes.slice(segments.header)
        let header = try ParsedProtectedHeader.parse(headerSegment)
        try header.enforce(policy)

        let encryptedKey = try decodeSegment(bytes.slice(segments.encryptedKey), "encrypted key")
        let iv = try decodeSegment(bytes.slice(segments.iv), "IV")
        let ciphertext = try decodeSegment(bytes.slice(segments.ciphertext), "ciphertext")
        let tag = try decodeSegment(bytes.slice(segments.tag), "authentication tag")
        guard encryptedKey.count == key.modulusByteCount else {
            throw JWEError(
                .malformed, "the encrypted key has \(encryptedKey.count) bytes; the modulus has \(key.modulusByteCount)"
            )
        }
        // OpenSSL 3 would accept IVs of other lengths and tags as short as 1 byte: the lengths are ours to check.
        guard iv.count == 12 else { throw JWEError(.malformed, "the IV has \(iv.count) bytes, A256GCM needs 12") }
        guard tag.count == 16 else { throw JWEError(.malformed, "the tag has \(tag.count) bytes, A256GCM needs 16") }
        guard ciphertext.count < Int(Int32.max) else { throw JWEError(.tooLarge, "the ciphertext is too large") }

        // The fallback CEK is drawn whatever happens, so both paths do the same work.
        let secrets = try MessageSecrets.forDecryption()
        // The pointers below point into `secrets`: it must outlive every use of them.
        defer { withExtendedLifetime(secrets) {} }
        let plaintext = try pool.withWorkspace { (workspace) throws(JWEError) -> [UInt8] in
            let cek = secrets.cek
            let fallback = secrets.fallbackCEK
            let block = workspace.block.baseAddress!.assumingMemoryBound(to: UInt8.self)

            // OpenSSL's RSA-OAEP decryption (constant-time decoding), SHA-256 and MGF1-SHA-256.
            let unwrappedCount = encryptedKey.withUnsafeBufferPointer { workspace.unwrap($0) } ?? 0
            // Constant-time choice between the unwrapped CEK and the random one (RFC 7516 section 11.5).
            let good: UInt8 = unwrappedCount == MessageSecrets.cekCount ? 1 : 0
            let mask = 0 &- good
            for index in 0..<MessageSecrets.cekCount {
                cek[index] = (block[index] & mask) | (fallback[index] & ~mask)
            }

            var output = [UInt8](repeating: 0, count: ciphertext.count)
            let ok = iv.withUnsafeBufferPointer { iv in
                ciphertext.withUnsafeBufferPointer { input in
                    tag.withUnsafeBufferPointer { tag in
                        output.withUnsafeMutableBufferPointer { output in
                            workspace.open(
                                key: cek, iv: iv.baseAddress!, aad: headerSegment, ciphertext: input, tag: tag,
                                plaintext: output.baseAddress ?? cek)
                        }
                    }
                }
            }
            guard ok else {
                Crypto.wipe(&output)
                OpenSSLErrorQueue.discard()
                throw JWEError.decryptionFailedGeneric
            }
            return output
        }
        return (plaintext, header)
    }
}
