import EGWWire
import Foundation
import GatewaySandbox
import JWE

#if canImport(Glibc)
import Glibc
#endif

/// Starts the embedded sandbox fast: its RSA-2048 card-encryption key is made
/// once and kept in the user's cache directory, because generating one costs
/// hundreds of milliseconds (a random prime search) and start-up should not.
///
/// The key only protects what is sent to this loopback sandbox (test cards); it
/// is written with mode 0600 and replaced whenever it cannot be read back. It is
/// stored as `n`, `e`, `d` only: with the CRT primes present, importing it runs
/// OpenSSL's pairwise check (primality tests, ~50 ms); without them the JWE
/// package proves the key with one trial round trip (~5 ms).
/// `EGW_SANDBOX_KEY` names another file (a private JWK or PKCS#8 PEM);
/// `EGW_SANDBOX_KEY=none` makes a fresh key every start and stores nothing.
enum EmbeddedSandbox {
    /// The sandbox, or the reason it could not start; over HTTPS from a fresh test CA with `tls`.
    static func start(environment: [String: String], tls: Bool = false) -> Result<Sandbox, SandboxError> {
        var configuration = Sandbox.Configuration()
        configuration.tls = tls ? Sandbox.TLS() : nil
        if let explicit = environment["EGW_SANDBOX_KEY"], !explicit.isEmpty, explicit != "none" {
            configuration.privateKey = loadKey(at: explicit)
        } else if let path = keyPath(environment: environment) {
            configuration.privateKey = loadOrCreateKey(at: path)
        }
        do {
            return .success(try Sandbox(configuration: configuration))
        } catch {
            return .failure(error)
        }
    }

    /// Where the key is kept, or `nil` for a fresh key every time.
    static func keyPath(environment: [String: String]) -> String? {
        if let explicit = environment["EGW_SANDBOX_KEY"], !explicit.isEmpty {
            return explicit == "none" ? nil : explicit
        }
        let cache: String
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            cache = xdg
        } else if let home = Platform.homeDirectory(environment: environment) {
            cache = home + "/.cache"
        } else {
            return nil
        }
        return cache + "/egw-repl/sandbox-key.jwk"
    }

    /// A private JWK or PKCS#8 PEM key from `path`, if it is usable.
    static func loadKey(at path: String) -> RSAPrivateKey? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 64 << 10,
            let text = String(data: data, encoding: .utf8)
        else {
            return nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let key = trimmed.hasPrefix("-----BEGIN") ? try? RSAPrivateKey(pem: trimmed) : try? RSAPrivateKey(jwk: trimmed)
        guard let key, key.publicKey.bitCount >= 2048 else {
            return nil
        }
        return key
    }

    /// The cached key at `path`, or a new one saved there (`nil` lets the sandbox generate its own).
    static func loadOrCreateKey(at path: String) -> RSAPrivateKey? {
        if let key = loadKey(at: path) {
            return key
        }
        guard let key = try? RSAPrivateKey.generate(bits: 2048) else {
            return nil
        }
        save(withoutPrimes(key.jwkJSON()) ?? key.jwkJSON(), to: path)
        return key
    }

    /// A private JWK reduced to `kty`, `n`, `e`, `d` and `kid` (RFC 7518 section 6.3.2
    /// lets the other private members be left out).
    static func withoutPrimes(_ jwk: String) -> String? {
        guard case .object(let members)? = try? StrictJSONParser.parse(Array(jwk.utf8)) else { return nil }
        let kept = members.compactMap { member in
            ["kty", "n", "e", "d", "kid"].contains(member.name)
                ? member.value.stringValue.map { (member.name, $0) } : nil
        }
        guard kept.count >= 4 else { return nil }
        return JSONWriter.object(kept.sorted { $0.0 < $1.0 })
    }

    /// Writes `text` to `path` through a private temporary file and a rename.
    static func save(_ text: String, to path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            return
        }
        Platform.write(text + "\n", to: fd)
        close(fd)
        if rename(temporary, path) != 0 {
            unlink(temporary)
        }
    }
}
