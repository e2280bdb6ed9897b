internal import COpenSSL
import Synchronization

/// The libcrypto contexts one message needs, prepared once and reused: an `EVP_PKEY_CTX` initialised for
/// OpenSSL's RSA-OAEP (`RSA_PKCS1_OAEP_PADDING`) with SHA-256 as both the OAEP digest and the MGF1 digest, and
/// an `EVP_CIPHER_CTX` bound to AES-256-GCM, plus room for one RSA block. The message's own secrets (CEK, IV)
/// live in a ``MessageSecrets`` value, not here.
///
/// Not thread-safe: a workspace is used by one message at a time, which ``WorkspacePool`` guarantees.
final class CryptoWorkspace: @unchecked Sendable {
    enum Direction {
        /// OpenSSL's RSA-OAEP encryption (SHA-256, MGF1-SHA-256) and AES-256-GCM sealing.
        case encrypt
        /// OpenSSL's RSA-OAEP decryption (SHA-256, MGF1-SHA-256) and AES-256-GCM opening.
        case decrypt
    }

    let keyContext: OpaquePointer
    let cipherContext: OpaquePointer
    /// Room for one RSA block (the encrypted key, or the OAEP output on decryption).
    let block: UnsafeMutableRawBufferPointer
    /// Whether ``block`` holds secrets (the unwrapped CEK on decryption) and must be wiped after a message.
    let blockIsSecret: Bool

    init(key: EVPKey, direction: Direction) throws(JWEError) {
        let algorithms = try FetchedAlgorithms.get()
        guard let keyContext = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        guard let cipherContext = EVP_CIPHER_CTX_new() else {
            EVP_PKEY_CTX_free(keyContext)
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_CIPHER_CTX_new failed")
        }
        self.keyContext = keyContext
        self.cipherContext = cipherContext
        block = .allocate(byteCount: max(key.modulusByteCount, 1), alignment: 16)
        block.initializeMemory(as: UInt8.self, repeating: 0)
        blockIsSecret = direction == .decrypt
        // Fully initialised from here: a throw runs deinit, which frees the contexts.
        let isEncrypt = direction == .encrypt
        // Padding is set after *_init (init resets it); OpenSSL's OAEP default digest is SHA-1: set both.
        let initialised =
            (isEncrypt ? EVP_PKEY_encrypt_init(keyContext) : EVP_PKEY_decrypt_init(keyContext)) == 1
            && EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_OAEP_PADDING) == 1
            && EVP_PKEY_CTX_set_rsa_oaep_md(keyContext, algorithms.sha256) == 1
            && EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, algorithms.sha256) == 1
            && (isEncrypt
                ? EVP_EncryptInit_ex2(cipherContext, algorithms.aes256gcm, nil, nil, nil)
                : EVP_DecryptInit_ex2(cipherContext, algorithms.aes256gcm, nil, nil, nil)) == 1
        guard initialised else {
            throw OpenSSLErrorQueue.error(.internalFailure, "cannot prepare RSA-OAEP-256 / A256GCM contexts")
        }
    }

    /// RSA-OAEP-256 encryption (OpenSSL's padding) of `count` bytes at `input` into ``block``; the ciphertext
    /// length, or nil.
    func wrap(_ input: UnsafePointer<UInt8>, count: Int) -> Int? {
        var written = block.count
        let output = block.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard EVP_PKEY_encrypt(keyContext, output, &written, input, count) == 1 else {
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
    /// with zeros, and wipes the RSA block on decryption (it held the unwrapped CEK).
    func wipe() {
        if blockIsSecret { Crypto.wipe(block) }
        var zeros: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        _ = withUnsafeBytes(of: &zeros) {
            EVP_CipherInit_ex2(cipherContext, nil, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), nil, -1, nil)
        }
        OpenSSLErrorQueue.discard()
    }

    deinit {
        wipe()
        EVP_CIPHER_CTX_free(cipherContext)
        EVP_PKEY_CTX_free(keyContext)
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

    init(key: EVPKey, direction: CryptoWorkspace.Direction) {
        self.key = key
        self.direction = direction
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
