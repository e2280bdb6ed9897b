internal import COpenSSL
import Synchronization

/// The libcrypto contexts one message needs, prepared once and reused: an `EVP_PKEY_CTX` initialised for
/// RSA-OAEP with SHA-256 as both the OAEP digest and the MGF1 digest, and an `EVP_CIPHER_CTX` bound to
/// AES-256-GCM. Also a small buffer for the CEK and IV that is wiped after every message.
///
/// Not thread-safe: a workspace is used by one message at a time, which ``WorkspacePool`` guarantees.
final class CryptoWorkspace: @unchecked Sendable {
    enum Direction {
        /// This package's OAEP-256 encoding, then OpenSSL's raw RSA public operation (the library's choice).
        case encrypt
        /// OpenSSL's own RSA-OAEP with SHA-256 and MGF1-SHA-256 (benchmarks and cross-checks).
        case encryptWithOpenSSLOAEP
        /// OpenSSL's RSA-OAEP decryption with SHA-256 and MGF1-SHA-256.
        case decrypt
    }

    let keyContext: OpaquePointer
    let cipherContext: OpaquePointer
    /// 32 bytes of CEK, 12 of IV, then 32 of spare CEK for the decrypt fallback.
    let secrets: UnsafeMutableRawBufferPointer
    /// Room for one RSA block (the encrypted key, or the OAEP output on decryption).
    let block: UnsafeMutableRawBufferPointer
    /// Whether ``block`` holds secrets (the unwrapped CEK on decryption) and must be wiped after a message.
    let blockIsSecret: Bool
    /// CEKs, IVs, OAEP seeds and fallback CEKs, drawn from `RAND_priv_bytes` in advance.
    let random = RandomReserve()
    /// The OAEP encoder for ``Direction/encrypt``; nil otherwise.
    let oaep: OAEPEncoder?

    /// What every workspace owns: adopts `keyContext` (freed here if no cipher context can be created),
    /// a new cipher context, a zeroed ``secrets`` buffer, a zeroed ``block`` of `blockByteCount` bytes, and
    /// an OAEP encoder when `oaepModulusByteCount` is given. The contexts are not initialised.
    private init(
        adopting keyContext: OpaquePointer, blockByteCount: Int, blockIsSecret: Bool, oaepModulusByteCount: Int?
    ) throws(JWEError) {
        // Everything that can fail comes before the buffers are allocated: a throwing initialiser that has
        // not set every stored property never runs deinit, so nothing allocated before the throw is freed.
        do throws(JWEError) {
            oaep = try oaepModulusByteCount.map { (count) throws(JWEError) in try OAEPEncoder(modulusByteCount: count) }
        } catch {
            EVP_PKEY_CTX_free(keyContext)
            throw error
        }
        guard let cipherContext = EVP_CIPHER_CTX_new() else {
            EVP_PKEY_CTX_free(keyContext)
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_CIPHER_CTX_new failed")
        }
        self.keyContext = keyContext
        self.cipherContext = cipherContext
        secrets = .allocate(byteCount: 76, alignment: 16)
        secrets.initializeMemory(as: UInt8.self, repeating: 0)
        block = .allocate(byteCount: blockByteCount, alignment: 16)
        block.initializeMemory(as: UInt8.self, repeating: 0)
        self.blockIsSecret = blockIsSecret
    }

    convenience init(key: EVPKey, direction: Direction) throws(JWEError) {
        let algorithms = try FetchedAlgorithms.get()
        guard let keyContext = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        try self.init(
            adopting: keyContext, blockByteCount: max(key.modulusByteCount, 1), blockIsSecret: direction == .decrypt,
            oaepModulusByteCount: direction == .encrypt ? key.modulusByteCount : nil)

        let initialised: Bool
        switch direction {
        case .encrypt:
            // Raw RSA: the block is OAEP-encoded by `oaep` first.
            initialised =
                EVP_PKEY_encrypt_init(keyContext) == 1
                && EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_NO_PADDING) == 1
                && EVP_EncryptInit_ex2(cipherContext, algorithms.aes256gcm, nil, nil, nil) == 1
        case .encryptWithOpenSSLOAEP, .decrypt:
            let isEncrypt = direction == .encryptWithOpenSSLOAEP
            // Padding is set after *_init (init resets it); OpenSSL's OAEP default digest is SHA-1: set both.
            initialised =
                (isEncrypt ? EVP_PKEY_encrypt_init(keyContext) : EVP_PKEY_decrypt_init(keyContext)) == 1
                && EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_OAEP_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_oaep_md(keyContext, algorithms.sha256) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, algorithms.sha256) == 1
                && (isEncrypt
                    ? EVP_EncryptInit_ex2(cipherContext, algorithms.aes256gcm, nil, nil, nil)
                    : EVP_DecryptInit_ex2(cipherContext, algorithms.aes256gcm, nil, nil, nil)) == 1
        }
        guard initialised else {
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot prepare RSA-OAEP-256 / A256GCM contexts")
        }
    }

    /// A workspace whose contexts are copies of `prototype`'s (`EVP_PKEY_CTX_dup`, `EVP_CIPHER_CTX_copy`).
    convenience init(duplicating prototype: CryptoWorkspace) throws(JWEError) {
        guard let keyContext = EVP_PKEY_CTX_dup(prototype.keyContext) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_dup failed")
        }
        try self.init(
            adopting: keyContext, blockByteCount: prototype.block.count, blockIsSecret: prototype.blockIsSecret,
            oaepModulusByteCount: prototype.oaep == nil ? nil : prototype.block.count)
        guard EVP_CIPHER_CTX_copy(cipherContext, prototype.cipherContext) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_CIPHER_CTX_copy failed")
        }
    }

    /// RSA-OAEP-256 encryption of `count` bytes at `input` into ``block``; the ciphertext length, or nil.
    func wrap(_ input: UnsafePointer<UInt8>, count: Int) -> Int? {
        var written = block.count
        let output = block.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard let oaep else {
            guard EVP_PKEY_encrypt(keyContext, output, &written, input, count) == 1 else {
                OpenSSLErrorQueue.discard()
                return nil
            }
            return written
        }
        // The seed goes through the secrets buffer (bytes 44..<76, free on the encrypt path) and is wiped with it.
        let seed = secrets.baseAddress! + 44
        defer { oaep.wipe() }
        guard (try? random.take(32, into: seed)) != nil,
            oaep.encode(input, count: count, seed: seed.assumingMemoryBound(to: UInt8.self)),
            EVP_PKEY_encrypt(
                keyContext, output, &written, oaep.encoded.baseAddress!.assumingMemoryBound(to: UInt8.self),
                oaep.encoded.count) == 1
        else {
            OpenSSLErrorQueue.discard()
            return nil
        }
        return written
    }

    /// RSA-OAEP-256 decryption of `input` into ``block``; the plaintext length, or nil (error queue emptied).
    func unwrap(_ input: UnsafeBufferPointer<UInt8>) -> Int? {
        var written = block.count
        let result = EVP_PKEY_decrypt(
            keyContext, block.baseAddress!.assumingMemoryBound(to: UInt8.self), &written, input.baseAddress, input.count
        )
        OpenSSLErrorQueue.discard()
        return result == 1 ? written : nil
    }

    /// AES-256-GCM encryption with a 32-byte key, a 12-byte IV and `aad`; writes `plaintext.count` bytes at
    /// `ciphertext` and 16 bytes at `tag`. False on any OpenSSL failure.
    func seal(
        key: UnsafePointer<UInt8>, iv: UnsafePointer<UInt8>, aad: UnsafeBufferPointer<UInt8>,
        plaintext: UnsafeRawBufferPointer, ciphertext: UnsafeMutablePointer<UInt8>, tag: UnsafeMutableRawPointer
    ) -> Bool {
        let context = cipherContext
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        guard EVP_EncryptInit_ex2(context, nil, key, iv, nil) == 1,
            EVP_EncryptUpdate(context, nil, &written, aad.baseAddress, Int32(aad.count)) == 1
        else { return false }
        written = 0
        if plaintext.count > 0 {
            guard
                EVP_EncryptUpdate(
                    context, ciphertext, &written, plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    Int32(plaintext.count)) == 1
            else { return false }
        }
        return EVP_EncryptFinal_ex(context, ciphertext + Int(written), &finalWritten) == 1
            && Int(written + finalWritten) == plaintext.count
            && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1
    }

    /// AES-256-GCM decryption; writes `ciphertext.count` bytes at `plaintext`. The tag must be 16 bytes (the
    /// caller checks: OpenSSL would accept shorter). False when the tag does not verify or OpenSSL fails.
    func open(
        key: UnsafePointer<UInt8>, iv: UnsafePointer<UInt8>, aad: UnsafeBufferPointer<UInt8>,
        ciphertext: UnsafeBufferPointer<UInt8>, tag: UnsafeBufferPointer<UInt8>, plaintext: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        precondition(tag.count == 16)
        let context = cipherContext
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        guard EVP_DecryptInit_ex2(context, nil, key, iv, nil) == 1,
            EVP_DecryptUpdate(context, nil, &written, aad.baseAddress, Int32(aad.count)) == 1
        else { return false }
        written = 0
        if ciphertext.count > 0 {
            guard EVP_DecryptUpdate(context, plaintext, &written, ciphertext.baseAddress, Int32(ciphertext.count)) == 1
            else { return false }
        }
        var tagCopy: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &tagCopy) { $0.copyMemory(from: UnsafeRawBufferPointer(tag)) }
        guard
            withUnsafeMutableBytes(
                of: &tagCopy,
                {
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, $0.baseAddress) == 1
                })
        else { return false }
        var scratch: (UInt64, UInt64) = (0, 0)
        let verified = withUnsafeMutableBytes(of: &scratch) {
            EVP_DecryptFinal_ex(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &finalWritten) == 1
        }
        return verified && Int(written + finalWritten) == ciphertext.count
    }

    /// Overwrites what the cipher context derived from the last CEK (key schedule, GHASH key) by re-keying it
    /// with zeros, and wipes the secrets buffer and (on decryption) the RSA block.
    func wipe() {
        Crypto.wipe(secrets)
        if blockIsSecret { Crypto.wipe(block) }
        _ = EVP_CipherInit_ex2(
            cipherContext, nil, secrets.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, -1, nil)
        OpenSSLErrorQueue.discard()
    }

    deinit {
        wipe()
        EVP_CIPHER_CTX_free(cipherContext)
        EVP_PKEY_CTX_free(keyContext)
        secrets.deallocate()
        block.deallocate()
    }
}

/// Hands out prepared workspaces so that messages reuse contexts without sharing them.
///
/// One workspace is cached; a message takes it out under a short lock (the lock is not held during the
/// cryptography) and puts it back after. A concurrent message that finds the slot empty builds its own
/// workspace, so throughput scales across threads and no context is ever used by two threads at once.
final class WorkspacePool: Sendable {
    private let key: EVPKey
    private let direction: CryptoWorkspace.Direction
    private let slot = Mutex<CryptoWorkspace?>(nil)
    private let prototype = Mutex<CryptoWorkspace?>(nil)
    private let alternate = Mutex<CryptoWorkspace?>(nil)

    init(key: EVPKey, direction: CryptoWorkspace.Direction) {
        self.key = key
        self.direction = direction
    }

    /// Runs `body` with a workspace built for this one call, as `strategy` says (for benchmarks).
    func withWorkspace<Result>(
        strategy: BenchmarkContextStrategy,
        _ body: (CryptoWorkspace) throws(JWEError) -> Result
    ) throws(JWEError) -> Result {
        let workspace: CryptoWorkspace
        switch strategy {
        case .pooled:
            return try withWorkspace(body)
        case .fresh:
            workspace = try CryptoWorkspace(key: key, direction: direction)
        case .pooledOpenSSLOAEP:
            // Single-threaded benchmarks only: one cached workspace using OpenSSL's OAEP on the encrypt side.
            let cached = alternate.withLock { $0.take() }
            if let cached {
                workspace = cached
            } else {
                workspace = try CryptoWorkspace(
                    key: key, direction: direction == .encrypt ? .encryptWithOpenSSLOAEP : direction)
            }
            defer {
                workspace.wipe()
                alternate.withLock { $0 = workspace }
            }
            return try body(workspace)
        case .duplicated:
            let result: Swift.Result<CryptoWorkspace, JWEError> = prototype.withLock { prototype in
                do throws(JWEError) {
                    let source: CryptoWorkspace
                    if let existing = prototype {
                        source = existing
                    } else {
                        source = try CryptoWorkspace(key: key, direction: direction)
                        prototype = source
                    }
                    return .success(try CryptoWorkspace(duplicating: source))
                } catch {
                    return .failure(error)
                }
            }
            workspace = try result.get()
        }
        defer { workspace.wipe() }
        return try body(workspace)
    }

    /// Runs `body` with a workspace used by nobody else; the workspace is wiped afterwards.
    @inline(__always)
    func withWorkspace<Result>(
        _ body: (CryptoWorkspace) throws(JWEError) -> Result
    ) throws(JWEError) -> Result {
        let cached = slot.withLock { $0.take() }
        let workspace: CryptoWorkspace
        if let cached {
            workspace = cached
        } else {
            workspace = try CryptoWorkspace(key: key, direction: direction)
        }
        defer {
            workspace.wipe()
            slot.withLock { cached in
                if cached == nil { cached = workspace }
            }
        }
        return try body(workspace)
    }
}

/// How a message gets its OpenSSL contexts; only benchmarks choose (the library always uses `.pooled`).
@_spi(Benchmarks)
public enum BenchmarkContextStrategy: String, CaseIterable, Sendable {
    /// A cached prepared workspace taken out of a one-slot pool (the library's choice).
    case pooled
    /// `EVP_PKEY_CTX_dup` and `EVP_CIPHER_CTX_copy` of a prepared prototype for every message.
    case duplicated
    /// Contexts built and initialised from scratch for every message (no reuse).
    case fresh
    /// Like `pooled`, but encrypting with OpenSSL's RSA-OAEP padding instead of this package's encoder.
    case pooledOpenSSLOAEP
}
