internal import COpenSSL

/// EME-OAEP encoding (RFC 8017 section 7.1.1) with SHA-256 as the hash and MGF1-SHA-256 as the mask
/// function, empty label: the "RSA-OAEP-256" of RFC 7518 section 4.3.
///
/// Why not OpenSSL's OAEP on the encrypt path: in OpenSSL 3 it draws its 32-byte seed with a separate
/// `RAND_bytes` call (~0.7 µs), hashes the empty label on every call and allocates a digest context per MGF1
/// call, together ~10% of an RSA-2048 public operation. Here the label hash is a constant, one digest context
/// is reused, and the seed comes from the workspace's random reserve; OpenSSL then applies the raw RSA public
/// operation (`RSA_NO_PADDING`) to the encoded block. Encoding is deterministic given the seed, and tests
/// check it byte for byte against blocks OpenSSL itself produced (see `OAEPTests`). Decoding, where OAEP
/// implementations leak (Manger's attack), stays with OpenSSL's constant-time code.
///
/// Not thread-safe: owned by one ``CryptoWorkspace``.
final class OAEPEncoder {
    static let hashLength = 32
    /// SHA-256 of the empty label.
    static let emptyLabelHash: [UInt8] = [
        0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4, 0xc8, 0x99, 0x6f, 0xb9, 0x24,
        0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b, 0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
    ]

    private let digestContext: OpaquePointer
    private let sha256: OpaquePointer
    /// The encoded block EM (secret until encrypted: it reveals the message), wiped after each use.
    let encoded: UnsafeMutableRawBufferPointer
    /// One MGF1 output block, wiped after each use.
    private let maskBlock: UnsafeMutableRawBufferPointer

    init(modulusByteCount: Int) throws(JWEError) {
        // Fetched first: a throw after the context exists would leak it (deinit does not run).
        sha256 = try FetchedAlgorithms.get().sha256
        guard let context = EVP_MD_CTX_new() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_MD_CTX_new failed")
        }
        digestContext = context
        encoded = .allocate(byteCount: modulusByteCount, alignment: 16)
        encoded.initializeMemory(as: UInt8.self, repeating: 0)
        maskBlock = .allocate(byteCount: Self.hashLength, alignment: 16)
        maskBlock.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        wipe()
        EVP_MD_CTX_free(digestContext)
        encoded.deallocate()
        maskBlock.deallocate()
    }

    func wipe() {
        Crypto.wipe(encoded)
        Crypto.wipe(maskBlock)
    }

    /// Encodes `count` message bytes with `seed` (32 bytes) into ``encoded`` (the modulus length k).
    /// False when the message is longer than k - 66 bytes or the digest fails.
    func encode(_ message: UnsafePointer<UInt8>, count: Int, seed: UnsafePointer<UInt8>) -> Bool {
        let hashLength = Self.hashLength
        let k = encoded.count
        guard count <= k - 2 * hashLength - 2 else { return false }
        let em = encoded.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let dataBlockLength = k - hashLength - 1
        let maskedSeed = em + 1
        let dataBlock = em + 1 + hashLength

        // EM = 0x00 || maskedSeed || maskedDB, DB = lHash || PS (zeros) || 0x01 || M.
        em[0] = 0
        Self.emptyLabelHash.withUnsafeBufferPointer { dataBlock.update(from: $0.baseAddress!, count: hashLength) }
        let separator = dataBlockLength - count - 1
        (dataBlock + hashLength).update(repeating: 0, count: separator - hashLength)
        dataBlock[separator] = 0x01
        (dataBlock + separator + 1).update(from: message, count: count)

        // maskedDB = DB xor MGF1(seed, k - hLen - 1); maskedSeed = seed xor MGF1(maskedDB, hLen).
        guard xorMask(from: seed, count: hashLength, into: dataBlock, length: dataBlockLength) else { return false }
        maskedSeed.update(from: seed, count: hashLength)
        return xorMask(from: dataBlock, count: dataBlockLength, into: maskedSeed, length: hashLength)
    }

    /// XORs MGF1-SHA-256(`seed`, `length`) into `target`.
    private func xorMask(
        from seed: UnsafePointer<UInt8>, count seedCount: Int, into target: UnsafeMutablePointer<UInt8>, length: Int
    ) -> Bool {
        let block = maskBlock.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var counter: UInt32 = 0
        var done = 0
        while done < length {
            var counterBytes = counter.bigEndian
            var digestLength: UInt32 = 0
            guard EVP_DigestInit_ex2(digestContext, sha256, nil) == 1,
                EVP_DigestUpdate(digestContext, seed, seedCount) == 1,
                EVP_DigestUpdate(digestContext, &counterBytes, 4) == 1,
                EVP_DigestFinal_ex(digestContext, block, &digestLength) == 1
            else {
                OpenSSLErrorQueue.discard()
                return false
            }
            let take = min(Self.hashLength, length - done)
            let destination = UnsafeMutableRawPointer(target + done)
            let source = UnsafeRawPointer(block)
            var index = 0
            while index + 8 <= take {
                let word =
                    destination.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    ^ source.load(fromByteOffset: index, as: UInt64.self)
                destination.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < take {
                target[done + index] ^= block[index]
                index += 1
            }
            done += take
            counter += 1
        }
        return true
    }
}
