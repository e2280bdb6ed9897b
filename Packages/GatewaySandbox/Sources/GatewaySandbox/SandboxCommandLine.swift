import Foundation
import JWE

/// Helpers the `egw-sandbox` executable shares with tests.
public enum SandboxCommandLine {
    /// Loads a private RSA key from `file` (a private JWK, or a PKCS#8 PEM) into `configuration`.
    ///
    /// - Throws: `SandboxError` `.keyUnavailable` when the file cannot be read or is not a usable key.
    public static func applyKey(file: String, to configuration: inout Sandbox.Configuration) throws(SandboxError) {
        guard let data = FileManager.default.contents(atPath: file), data.count <= 64 << 10,
            let text = String(data: data, encoding: .utf8)
        else { throw SandboxError(.keyUnavailable, "cannot read the key file \(file)") }
        do {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            configuration.privateKey =
                trimmed.hasPrefix("-----BEGIN") ? try RSAPrivateKey(pem: trimmed) : try RSAPrivateKey(jwk: trimmed)
        } catch {
            throw SandboxError(.keyUnavailable, "\(file) is not a usable private RSA key: \(error)")
        }
    }
}
