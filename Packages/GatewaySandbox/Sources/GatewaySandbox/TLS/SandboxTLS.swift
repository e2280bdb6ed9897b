import Foundation

extension Sandbox {
    /// How a sandbox serves HTTPS (``Configuration/tls``): libmicrohttpd's TLS backend
    /// (GnuTLS on Debian) with a test identity.
    ///
    /// ```swift
    /// var configuration = Sandbox.Configuration()
    /// configuration.tls = Sandbox.TLS()                 // a fresh test CA and leaf for this run
    /// let sandbox = try Sandbox(configuration: configuration)
    /// sandbox.tlsTrust?.certificateAuthorityFile       // give this file to the client as its CA
    /// ```
    public struct TLS: Sendable {
        /// The certificates served: `nil` (default) issues a fresh test CA and a leaf for
        /// 127.0.0.1, ::1, localhost and the configured host at start.
        public var identity: SandboxTLSIdentity?
        /// The newest TLS version the server speaks; `nil` (default) leaves GnuTLS's defaults
        /// (TLS 1.2 and 1.3). `.tls1_1` makes a server that speaks TLS 1.0 and 1.1 only, for
        /// testing that a client refuses it.
        public var maximumVersion: SandboxTLSVersion?
        /// Where the CA certificate (PEM) is written for clients; `nil` (default): a new file
        /// in the temporary directory that `stop()` removes. A given path is overwritten and
        /// left in place.
        public var certificateAuthorityFile: String?

        /// HTTPS with the given identity (default: a generated one).
        public init(
            identity: SandboxTLSIdentity? = nil, maximumVersion: SandboxTLSVersion? = nil,
            certificateAuthorityFile: String? = nil
        ) {
            self.identity = identity
            self.maximumVersion = maximumVersion
            self.certificateAuthorityFile = certificateAuthorityFile
        }

        /// The GnuTLS priority string for `maximumVersion`.
        var priorities: String? {
            switch maximumVersion {
            case nil: nil
            case .tls1_1: "NORMAL:-VERS-ALL:+VERS-TLS1.1:+VERS-TLS1.0:+SHA1:%VERIFY_ALLOW_SIGN_WITH_SHA1"
            case .tls1_2: "NORMAL:-VERS-ALL:+VERS-TLS1.2"
            case .tls1_3: "NORMAL:-VERS-ALL:+VERS-TLS1.3"
            }
        }
    }

    /// Whether this machine's libmicrohttpd can serve HTTPS (it was built with GnuTLS).
    public static var supportsTLS: Bool { HTTPServer.supportsTLS }
}

/// A TLS protocol version, for ``Sandbox/TLS/maximumVersion``.
public enum SandboxTLSVersion: String, Sendable, CaseIterable {
    /// TLS 1.1 (RFC 4346), obsolete: only for testing that clients refuse it.
    case tls1_1 = "1.1"
    /// TLS 1.2 (RFC 5246).
    case tls1_2 = "1.2"
    /// TLS 1.3 (RFC 8446).
    case tls1_3 = "1.3"
}

/// What a client needs to trust an HTTPS sandbox (``Sandbox/tlsTrust``).
public struct SandboxTLSTrust: Sendable, Equatable {
    /// The CA certificate, PEM.
    public let certificateAuthorityPEM: String
    /// A readable file holding ``certificateAuthorityPEM`` (mode 0644).
    public let certificateAuthorityFile: String
    /// The SHA-256 fingerprint of the CA certificate, `AB:CD:...`.
    public let certificateAuthoritySHA256: String
    /// `sha256//BASE64` of the CA's public key.
    public let certificateAuthorityPublicKeyPin: String
    /// `sha256//BASE64` of the server's (leaf) public key: a pin a client such as libcurl
    /// (`CURLOPT_PINNEDPUBLICKEY`) checks against the certificate the server presents.
    public let serverPublicKeyPin: String
}

/// The CA file a sandbox wrote, removed on `stop()` when the sandbox chose its path.
final class CertificateAuthorityFile: Sendable {
    let path: String
    private let removesOnStop: Bool

    /// Writes `pem` to `path`, or to a new file in the temporary directory when `path` is `nil`.
    init(pem: String, path requested: String?) throws(SandboxError) {
        let path =
            requested
            ?? (NSTemporaryDirectory() as NSString).appendingPathComponent(
                Self.temporaryName(pid: getpid(), random: String(UUID().uuidString.prefix(8))))
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(pem.utf8), attributes: [.posixPermissions: 0o644])
        else { throw SandboxError(.invalidConfiguration, "cannot write the CA certificate to \(path)") }
        // createFile keeps an existing file's mode: make it readable as documented.
        try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        self.path = path
        removesOnStop = requested == nil
    }

    /// The name of a CA file the sandbox places itself. Letters lead the process id and the random
    /// part, so the name never holds a run of 12 or more digits: "-19690-12345678" would read as a
    /// card number to the card-data scans (ours and a data-loss scanner's) wherever the path is shown.
    static func temporaryName(pid: Int32, random: String) -> String {
        "egw-sandbox-ca-pid\(pid)-r\(random.lowercased()).pem"
    }

    func remove() {
        if removesOnStop { try? FileManager.default.removeItem(atPath: path) }
    }
}
