import Testing

@testable import JWE

/// The CEK and everything derived from it is wiped after each message: the workspace's secrets (CEK, IV,
/// OAEP seed, fallback CEK), the OAEP-encoded block and, on decryption, the unwrapped block.
@Suite("Wiping")
struct WipeTests {
    static let key: RSAPrivateKey = try! RSAPrivateKey.generate()

    private func isZero(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        buffer.allSatisfy { $0 == 0 }
    }

    @Test func encryptWorkspaceIsWipedAfterAMessage() throws {
        let pool = WorkspacePool(key: Self.key.key, direction: .encrypt)
        var used: CryptoWorkspace?
        let ok = try pool.withWorkspace { (workspace) throws(JWEError) -> Bool in
            used = workspace
            let secrets = workspace.secrets.baseAddress!.assumingMemoryBound(to: UInt8.self)
            try workspace.random.take(44, into: secrets)
            let wrapped = workspace.wrap(secrets, count: 32)
            // While in use, the buffers hold the CEK.
            return wrapped == 256 && !isZero(workspace.secrets)
        }
        #expect(ok)
        let workspace = try #require(used)
        #expect(isZero(workspace.secrets))
        #expect(isZero(try #require(workspace.oaep).encoded))
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
        #expect(isZero(workspace.secrets))
    }

    @Test func secureMemoryWipesInPlace() {
        var bytes: [UInt8] = Array("4111111111111111".utf8)
        SecureMemory.wipe(&bytes)
        #expect(bytes == [UInt8](repeating: 0, count: 16))
    }
}
