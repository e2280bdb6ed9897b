internal import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// Costs of the pieces of one encryption, for the benchmark's breakdown (not used by the library).
@_spi(Benchmarks)
public enum BenchmarkComponents {
    /// Runs each piece of the encrypt path `iterations` times under `key` and returns nanoseconds per call,
    /// keyed by piece name. `clock` returns monotonic seconds.
    public static func encryptBreakdown(
        key: RSAPublicKey, plaintextCount: Int, iterations: Int, clock: () -> Double
    ) throws(JWEError) -> [(String, Double)] {
        let workspace = try CryptoWorkspace(key: key.key, direction: .encrypt)
        let secrets = workspace.secrets.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let plaintext = [UInt8](repeating: 0x41, count: plaintextCount)
        var ciphertext = [UInt8](repeating: 0, count: plaintextCount)
        var tag = [UInt8](repeating: 0, count: 16)
        let aad = [UInt8](repeating: 0x65, count: 70)
        var results: [(String, Double)] = []

        func time(_ name: String, _ body: () -> Void) {
            for _ in 0..<100 { body() }
            let start = clock()
            for _ in 0..<iterations { body() }
            results.append((name, (clock() - start) / Double(iterations) * 1e9))
        }
        time("RAND_priv_bytes(44)") { _ = RAND_priv_bytes(secrets, 44) }
        time("RAND_bytes(32)") { _ = RAND_bytes(secrets, 32) }
        time("wrap: own OAEP + raw RSA") { _ = workspace.wrap(secrets, count: 32) }
        if let oaep = workspace.oaep {
            time("own OAEP encode") { _ = oaep.encode(secrets, count: 32, seed: secrets + 44) }
        }
        let opensslOAEP = try CryptoWorkspace(key: key.key, direction: .encryptWithOpenSSLOAEP)
        time("EVP_PKEY_encrypt (OpenSSL OAEP-256)") { _ = opensslOAEP.wrap(secrets, count: 32) }
        time("AES-256-GCM seal") {
            aad.withUnsafeBufferPointer { aad in
                plaintext.withUnsafeBytes { plaintext in
                    ciphertext.withUnsafeMutableBufferPointer { ciphertext in
                        tag.withUnsafeMutableBytes { tag in
                            _ = workspace.seal(
                                key: secrets, iv: secrets + 32, aad: aad, plaintext: plaintext,
                                ciphertext: ciphertext.baseAddress!, tag: tag.baseAddress!)
                        }
                    }
                }
            }
        }
        time("workspace wipe") { workspace.wipe() }
        time("getpid") { _ = getpid() }
        let sha = try FetchedAlgorithms.get().sha256
        var digest = [UInt8](repeating: 0, count: 32)
        time("EVP_Digest SHA-256 (36 B)") {
            var length: UInt32 = 0
            _ = EVP_Digest(secrets, 36, &digest, &length, sha, nil)
        }
        time("SHA256() one-shot (36 B)") { _ = SHA256(secrets, 36, &digest) }
        let mdContext = EVP_MD_CTX_new()
        time("EVP_MD_CTX reuse SHA-256 (36 B)") {
            var length: UInt32 = 0
            _ = EVP_DigestInit_ex2(mdContext, sha, nil)
            _ = EVP_DigestUpdate(mdContext, secrets, 36)
            _ = EVP_DigestFinal_ex(mdContext, &digest, &length)
        }
        let prepared = EVP_MD_CTX_new()
        _ = EVP_DigestInit_ex2(prepared, sha, nil)
        time("EVP_MD_CTX_copy_ex + update/final (36 B)") {
            var length: UInt32 = 0
            _ = EVP_MD_CTX_copy_ex(mdContext, prepared)
            _ = EVP_DigestUpdate(mdContext, secrets, 36)
            _ = EVP_DigestFinal_ex(mdContext, &digest, &length)
        }
        time("EVP_DigestInit_ex (no 2) reuse (36 B)") {
            var length: UInt32 = 0
            _ = EVP_DigestInit_ex(mdContext, nil, nil)
            _ = EVP_DigestUpdate(mdContext, secrets, 36)
            _ = EVP_DigestFinal_ex(mdContext, &digest, &length)
        }
        EVP_MD_CTX_free(prepared)
        EVP_MD_CTX_free(mdContext)
        if let raw = EVP_PKEY_CTX_new_from_pkey(nil, key.key.pointer, nil) {
            _ = EVP_PKEY_encrypt_init(raw)
            _ = EVP_PKEY_CTX_set_rsa_padding(raw, RSA_NO_PADDING)
            var input = [UInt8](repeating: 0x11, count: key.key.modulusByteCount)
            input[0] = 0
            var output = [UInt8](repeating: 0, count: key.key.modulusByteCount)
            time("EVP_PKEY_encrypt raw (no padding)") {
                var length = output.count
                _ = EVP_PKEY_encrypt(raw, &output, &length, input, input.count)
            }
            EVP_PKEY_CTX_free(raw)
        }
        let cipher = try FetchedAlgorithms.get().aes256gcm
        let gcm = EVP_CIPHER_CTX_new()
        _ = EVP_EncryptInit_ex2(gcm, cipher, nil, nil, nil)
        time("GCM EVP_EncryptInit_ex2 key+iv") { _ = EVP_EncryptInit_ex2(gcm, nil, secrets, secrets + 32, nil) }
        time("GCM EVP_EncryptInit_ex2 iv only") { _ = EVP_EncryptInit_ex2(gcm, nil, nil, secrets + 32, nil) }
        EVP_CIPHER_CTX_free(gcm)
        time("base64url 256 B -> String") {
            _ = Base64URL.encode(ciphertext.count > 0 ? Array(repeating: 1, count: 256) : [])
        }
        return results
    }

    /// Runs each piece of the decrypt path `iterations` times and returns nanoseconds per call.
    public static func decryptBreakdown(
        key: RSAPrivateKey, token: String, iterations: Int, clock: () -> Double
    ) throws(JWEError) -> [(String, Double)] {
        let workspace = try CryptoWorkspace(key: key.key, direction: .decrypt)
        var results: [(String, Double)] = []
        func time(_ name: String, _ body: () -> Void) {
            for _ in 0..<10 { body() }
            let start = clock()
            for _ in 0..<iterations { body() }
            results.append((name, (clock() - start) / Double(iterations) * 1e9))
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, let encryptedKey = Base64URL.decode(parts[1]) else {
            throw JWEError(.malformed, "bad benchmark token")
        }
        time("EVP_PKEY_decrypt (OAEP-256)") {
            _ = encryptedKey.withUnsafeBufferPointer { workspace.unwrap($0) }
        }
        if let raw = EVP_PKEY_CTX_new_from_pkey(nil, key.key.pointer, nil) {
            _ = EVP_PKEY_decrypt_init(raw)
            _ = EVP_PKEY_CTX_set_rsa_padding(raw, RSA_NO_PADDING)
            var output = [UInt8](repeating: 0, count: key.key.modulusByteCount)
            time("EVP_PKEY_decrypt raw (no padding)") {
                var length = output.count
                _ = EVP_PKEY_decrypt(raw, &output, &length, encryptedKey, encryptedKey.count)
            }
            EVP_PKEY_CTX_free(raw)
        }
        if let sign = EVP_PKEY_CTX_new_from_pkey(nil, key.key.pointer, nil) {
            _ = EVP_PKEY_sign_init(sign)
            _ = EVP_PKEY_CTX_set_rsa_padding(sign, RSA_PKCS1_PADDING)
            var output = [UInt8](repeating: 0, count: key.key.modulusByteCount)
            let digest = [UInt8](repeating: 7, count: 36)
            time("EVP_PKEY_sign PKCS#1 (36 B)") {
                var length = output.count
                _ = EVP_PKEY_sign(sign, &output, &length, digest, digest.count)
            }
            EVP_PKEY_CTX_free(sign)
        }
        let decrypter = JWEDecrypter(key: key)
        time("JWEDecrypter.decrypt") { _ = try? decrypter.decrypt(token) }
        var header = parts
        header[0] = "eyJhbGciOiJub25lIiwiZW5jIjoiQTI1NkdDTSJ9"
        let refused = header.joined(separator: ".")
        time("parse + refuse alg none") { _ = try? decrypter.decrypt(refused) }
        return results
    }
}
