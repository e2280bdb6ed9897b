/// Wiping secrets in a way the optimiser cannot remove (OpenSSL's `OPENSSL_cleanse`).
///
/// Use it on buffers that held card data or key material once you are done with them, e.g. the card JSON
/// built just before ``JWEEncrypter/encrypt(_:)``, or a plaintext returned by ``JWEDecrypter/decrypt(_:)``.
/// Note that Swift arrays are copy-on-write: wipe the one copy that holds the bytes, and avoid making others.
public enum SecureMemory {
    /// Overwrites every byte of `bytes` with zero, keeping its count.
    public static func wipe(_ bytes: inout [UInt8]) {
        Crypto.wipe(&bytes)
    }

    /// Overwrites every byte of `buffer` with zero.
    public static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        Crypto.wipe(buffer)
    }
}
