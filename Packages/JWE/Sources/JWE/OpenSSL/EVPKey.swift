internal import COpenSSL

/// Owns one `EVP_PKEY` (an RSA key, public or key pair) and frees it on deinit.
///
/// An `EVP_PKEY` is not mutated after it is built here; OpenSSL documents concurrent read-only use of one key
/// from many threads as safe (its lazily built caches take their own locks), hence `@unchecked Sendable`.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// The modulus length in bytes: the exact length of an RSA-OAEP ciphertext under this key.
    let modulusByteCount: Int
    /// The modulus length in bits.
    let bitCount: Int
    /// Whether the key holds the private exponent.
    let isPrivate: Bool

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer, isPrivate: Bool) {
        self.pointer = pointer
        self.modulusByteCount = Int(EVP_PKEY_get_size(pointer))
        self.bitCount = Int(EVP_PKEY_get_bits(pointer))
        self.isPrivate = isPrivate
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// The big-endian bytes of the BIGNUM parameter `name` ("n", "e", "d", "rsa-factor1", ...), minimal length.
    func bigEndianParameter(_ name: String) -> [UInt8]? {
        var bignum: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, name, &bignum) == 1, let bignum else {
            OpenSSLErrorQueue.discard()
            return nil
        }
        defer { BN_clear_free(bignum) }
        let count = (Int(BN_num_bits(bignum)) + 7) / 8
        var bytes = [UInt8](repeating: 0, count: max(count, 1))
        if count > 0 {
            _ = BN_bn2binpad(bignum, &bytes, Int32(count))
        }
        return bytes
    }
}

/// Algorithm objects fetched once per process and reused by every message (fetching is the slow part of
/// `EVP_get_cipherbyname`-style lookups in OpenSSL 3). Fetched objects are immutable and thread-safe.
final class FetchedAlgorithms: @unchecked Sendable {
    let aes256gcm: OpaquePointer
    let sha256: OpaquePointer

    private init?() {
        guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) else { return nil }
        guard let digest = EVP_MD_fetch(nil, "SHA256", nil) else {
            EVP_CIPHER_free(cipher)
            return nil
        }
        aes256gcm = cipher
        sha256 = digest
    }

    /// The shared instance, or nil when the default provider lacks AES-256-GCM or SHA-256.
    static let shared: FetchedAlgorithms? = FetchedAlgorithms()

    /// The shared instance, or an ``JWEError/Code/internalFailure``.
    static func get() throws(JWEError) -> FetchedAlgorithms {
        guard let shared else {
            throw OpenSSLErrorQueue.error(.internalFailure, "OpenSSL cannot fetch AES-256-GCM and SHA-256")
        }
        return shared
    }
}

/// Small libcrypto utilities.
enum Crypto {
    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) throws(JWEError) -> [UInt8] {
        let digest = try FetchedAlgorithms.get().sha256
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &output, &length, digest, nil)
        }
        guard ok == 1, length == 32 else { throw OpenSSLErrorQueue.error(.internalFailure, "SHA-256 failed") }
        return output
    }

    /// Fills `buffer` from OpenSSL's private DRBG (`RAND_priv_bytes`).
    @inline(__always)
    static func randomPrivate(_ buffer: UnsafeMutableRawBufferPointer) throws(JWEError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard RAND_priv_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "the random generator failed")
        }
    }

    /// Wipes `buffer` in a way the compiler cannot elide (`OPENSSL_cleanse`).
    @inline(__always)
    static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        OPENSSL_cleanse(base, buffer.count)
    }

    /// Wipes the contents of `bytes` in place.
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { wipe($0) }
    }
}
