internal import CSandboxOpenSSL

/// SHA-256 of a request's method, path and body: what an `Idempotency-Key` is bound to.
///
/// Only the hash is kept, never the body (a card-session body carries the encrypted card).
/// The three parts are joined with a NUL byte, which neither a method nor a decoded path
/// holds, so two different requests cannot be made to hash the same input.
struct RequestDigest: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes of the SHA-256 digest.
    let bytes: [UInt8]

    /// The digest of one request, or `nil` when libcrypto failed (it only does when it cannot allocate).
    init?(method: String, path: String, body: [UInt8]) {
        guard let digest = Self.sha256(Array(method.utf8) + [0] + Array(path.utf8) + [0] + body) else { return nil }
        bytes = digest
    }

    /// The digest in lower-case hex.
    var description: String {
        bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// SHA-256 (FIPS 180-4) through libcrypto's one-shot `EVP_Digest`; `nil` if libcrypto failed.
    static func sha256(_ input: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let succeeded = input.withUnsafeBytes { data in
            EVP_Digest(data.baseAddress, data.count, &output, &length, EVP_sha256(), nil) == 1
        }
        guard succeeded, length == 32 else { return nil }
        return Array(output.prefix(32))
    }
}
