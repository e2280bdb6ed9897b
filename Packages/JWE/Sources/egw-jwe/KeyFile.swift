import JWE

/// A key read from a file or stdin: JWK or PEM, public or private. The bytes are read in place by JWE's
/// byte-based imports and wiped when done; no `String` of them is ever made, since a `String` cannot be wiped
/// and a private key's text would stay in freed memory.
final class KeyFile {
    private var bytes: [UInt8]

    /// Takes `bytes` (their only copy): they are wiped when the key file is released.
    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    deinit {
        SecureMemory.wipe(&bytes)
    }

    /// Whether the text starts, after whitespace, with a PEM boundary.
    private var isPEM: Bool {
        let marker = Array("-----BEGIN".utf8)
        guard let start = bytes.firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return false }
        return bytes[start...].starts(with: marker)
    }

    private func contains(_ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard needle.count <= bytes.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0...].starts(with: needle) }
    }

    /// The public key to encrypt to: a public or private JWK, an SPKI or a PKCS#8 PEM.
    func publicKey() throws(JWEError) -> RSAPublicKey {
        if isPEM {
            if contains("-----BEGIN PRIVATE KEY-----") { return try RSAPrivateKey(pemBytes: bytes).publicKey }
            return try RSAPublicKey(pemBytes: bytes)
        }
        return try RSAPublicKey(jwkBytes: bytes)
    }

    /// The private key to decrypt with: a private JWK or a PKCS#8 PEM.
    func privateKey() throws(JWEError) -> RSAPrivateKey {
        isPEM ? try RSAPrivateKey(pemBytes: bytes) : try RSAPrivateKey(jwkBytes: bytes)
    }
}
