internal import COpenSSL

/// The secrets of one message, in one allocation that is wiped with `OPENSSL_cleanse` when the value goes away.
///
/// Layout: ``cek`` (32 bytes), ``iv`` (12), 4 bytes of padding, ``fallbackCEK`` (32). Encryption draws the CEK
/// and IV from `RAND_priv_bytes` for every message (OpenSSL's DRBG reseeds itself after `fork()`, so a parent
/// and its child never share them); decryption draws the fallback CEK (RFC 7516 section 11.5) and writes the
/// CEK it chose into ``cek``. Nothing is drawn in advance or kept between messages.
///
/// Not thread-safe: one value belongs to one message.
final class MessageSecrets {
    static let cekCount = 32
    static let ivCount = 12
    private static let fallbackOffset = 48
    private static let byteCount = 80

    private let storage: UnsafeMutableRawBufferPointer
    /// The content-encryption key (A256GCM key).
    let cek: UnsafeMutablePointer<UInt8>
    /// The GCM initialisation vector.
    let iv: UnsafeMutablePointer<UInt8>
    /// A random CEK decryption uses when RSA-OAEP unwrapping fails.
    let fallbackCEK: UnsafeMutablePointer<UInt8>

    private init() {
        storage = .allocate(byteCount: Self.byteCount, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        let base = storage.baseAddress!.assumingMemoryBound(to: UInt8.self)
        cek = base
        iv = base + Self.cekCount
        fallbackCEK = base + Self.fallbackOffset
    }

    /// A fresh CEK and IV from `RAND_priv_bytes` (one call for both).
    static func forEncryption() throws(JWEError) -> MessageSecrets {
        let secrets = MessageSecrets()
        try Crypto.randomPrivate(UnsafeMutableRawBufferPointer(start: secrets.cek, count: cekCount + ivCount))
        return secrets
    }

    /// A fresh fallback CEK from `RAND_priv_bytes`; ``cek`` is left zero for the caller to fill.
    static func forDecryption() throws(JWEError) -> MessageSecrets {
        let secrets = MessageSecrets()
        try Crypto.randomPrivate(UnsafeMutableRawBufferPointer(start: secrets.fallbackCEK, count: cekCount))
        return secrets
    }

    /// Overwrites every byte with zero (also done on deinit).
    func wipe() {
        Crypto.wipe(storage)
    }

    /// Whether every byte is zero (for tests).
    var isWiped: Bool { storage.allSatisfy { $0 == 0 } }

    deinit {
        wipe()
        storage.deallocate()
    }
}
