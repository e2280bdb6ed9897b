import Testing

@testable import JWE

/// The CEK and everything derived from it is wiped after each message: the message's secrets (CEK, IV,
/// fallback CEK) and, on decryption, the RSA block that held the unwrapped CEK.
@Suite("Wiping")
struct WipeTests {
    static let key: RSAPrivateKey = try! RSAPrivateKey.generate()

    private func isZero(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        buffer.allSatisfy { $0 == 0 }
    }

    @Test func messageSecretsAreFreshAndWiped() throws {
        let secrets = try MessageSecrets.forEncryption()
        let cek = Array(UnsafeBufferPointer(start: secrets.cek, count: MessageSecrets.cekCount))
        let iv = Array(UnsafeBufferPointer(start: secrets.iv, count: MessageSecrets.ivCount))
        #expect(cek != [UInt8](repeating: 0, count: 32))
        #expect(iv != [UInt8](repeating: 0, count: 12))
        #expect(!secrets.isWiped)
        secrets.wipe()
        #expect(secrets.isWiped)
        let decryption = try MessageSecrets.forDecryption()
        #expect(
            Array(UnsafeBufferPointer(start: decryption.fallbackCEK, count: 32)) != [UInt8](repeating: 0, count: 32))
    }

    @Test func decryptWorkspaceIsWipedAfterAMessage() throws {
        let token = try JWEEncrypter(recipient: Self.key.publicKey).encrypt([1, 2, 3])
        let encryptedKey = try #require(Vectors.unbase64url(String(token.split(separator: ".")[1])))
        let pool = WorkspacePool(key: Self.key.key, direction: .decrypt)
        var used: CryptoWorkspace?
        let unwrapped = try pool.withWorkspace { (workspace) throws(JWEError) -> Int? in
            used = workspace
            return encryptedKey.withUnsafeBufferPointer { workspace.unwrap($0) }
        }
        #expect(unwrapped == 32)
        let workspace = try #require(used)
        #expect(isZero(workspace.block))
    }

    @Test func secureMemoryWipesInPlace() {
        var bytes: [UInt8] = Array("4111111111111111".utf8)
        SecureMemory.wipe(&bytes)
        #expect(bytes == [UInt8](repeating: 0, count: 16))
    }
}
