import Foundation
import LoopbackTestServer
import Testing

@testable import PaymentFlow

#if canImport(Glibc)
import Glibc
#endif

/// TLS verification and public-key pinning against a real TLS server:
/// `openssl s_server -www` with a throw-away certificate for 127.0.0.1. The
/// expected pin is computed by the `openssl` command line, independently of
/// libcurl. Skipped when no `openssl` binary is installed.
@Suite(.serialized, .timeLimit(.minutes(1)), .enabled(if: OpenSSLServer.isAvailable))
struct CurlTLSTests {
    @Test func verificationAndPinning() async throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/"))
        let request = HTTPRequest(method: "GET", url: url, timeout: 10)

        // Not trusted: the certificate is self-signed and verification stays on.
        let untrusted = await send(request, over: CurlTransport())
        #expect(untrusted.failureKind == .tls)

        // Trusted through the option, no pin.
        let trusted = CurlTransport(options: .init(trustedCertificatesPath: server.certificatePath))
        #expect(try await send(request, over: trusted).get().status == 200)

        // The right pin (among others), and https satisfying requireHTTPS.
        let pinned = CurlTransport(
            options: .init(
                requireHTTPS: true,
                pinnedPublicKeys: ["127.0.0.1": ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", server.pin]],
                trustedCertificatesPath: server.certificatePath))
        #expect(try await send(request, over: pinned).get().status == 200)

        // A wrong pin for this host.
        let wrong = CurlTransport(
            options: .init(
                pinnedPublicKeys: ["127.0.0.1": ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]],
                trustedCertificatesPath: server.certificatePath))
        #expect(await send(request, over: wrong).failureKind == .pinningFailed)

        // A pin for another host does not apply here.
        let elsewhere = CurlTransport(
            options: .init(
                pinnedPublicKeys: ["gateway.example": ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]],
                trustedCertificatesPath: server.certificatePath))
        #expect(try await send(request, over: elsewhere).get().status == 200)
    }
}

/// Issue 23: a configured CA file replaces the system store. The server's certificate is made the
/// "system store" of a child process (`curl-keylog-probe`) run in a private mount namespace whose
/// /etc/ssl/certs, where libcurl's built-in CA file and directory are, is a temporary directory holding
/// it (bundle and hash link) bind-mounted over the real one: the machine's store is never written
/// (issue 34: this test once linked the certificate into the real /etc/ssl/certs). The system store then
/// trusts the server, and a transport configured with another CA file must not. Before the fix libcurl
/// kept searching /etc/ssl/certs beside the file and connected. Skipped where no mount namespace can be
/// made (`unshare`).
@Suite(
    .serialized, .timeLimit(.minutes(1)),
    .enabled(if: OpenSSLServer.isAvailable && PrivateCertificateStore.isAvailable))
struct ConfiguredCAReplacesTheSystemStoreTests {
    @Test func aServerTrustedByTheSystemIsRefusedWhenACAFileIsConfigured() throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let store = try PrivateCertificateStore(trusting: server.certificatePath, in: server.directory)
        let other = try OpenSSLServer.selfSignedCertificate(in: server.directory, name: "other")
        let url = "https://127.0.0.1:\(server.port)/"
        // The private system store trusts the server (so the test can fail)...
        #expect(try store.probe(url, caFile: nil) == 0)
        // ...but a transport told to trust another CA trusts that one only.
        #expect(try store.probe(url, caFile: other) == 1)
    }
}

/// A "system store" for a child process: a temporary directory with a CA bundle and its OpenSSL hash
/// link, seen as /etc/ssl/certs inside a private mount namespace (`unshare --mount`, with
/// `--map-root-user` when not root). Nothing outside the namespace changes.
struct PrivateCertificateStore {
    let directory: URL

    static let unshare = "/usr/bin/unshare"
    static var namespaceArguments: [String] {
        ["--mount", "--propagation", "private"] + (getuid() == 0 ? [] : ["--map-root-user"])
    }

    /// Whether a private mount namespace can be made here.
    static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: unshare),
            FileManager.default.fileExists(atPath: "/etc/ssl/certs")
        else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: unshare)
        process.arguments = namespaceArguments + ["/bin/true"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// The store in `parent`/`system-store`, trusting the certificate at `certificate`.
    init(trusting certificate: String, in parent: URL) throws {
        directory = parent.appendingPathComponent("system-store")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: certificate, toPath: directory.appendingPathComponent("ca-certificates.crt").path)
        let hash = try OpenSSLServer.shell("\(OpenSSLServer.binary) x509 -hash -noout -in '\(certificate)'")
        try FileManager.default.copyItem(
            atPath: certificate, toPath: directory.appendingPathComponent("\(hash).0").path)
    }

    /// `curl-keylog-probe url caFile` (nil: the system store) with this store as /etc/ssl/certs; its exit status.
    func probe(_ url: String, caFile: String?) throws -> Int32 {
        let probe = SiblingProbe.url("curl-keylog-probe").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.unshare)
        process.arguments =
            Self.namespaceArguments + [
                "/bin/sh", "-c", #"mount --bind "$0" /etc/ssl/certs && exec "$@""#, directory.path, probe, url,
                caFile ?? "-",
            ]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Issue 23: libcurl honours `SSLKEYLOGFILE`, so whoever sets an app's environment could read its TLS
/// traffic. The SDK's transport writes no key log unless its configuration asks by the dangerous name.
/// Run in a child process (`curl-keylog-probe`): libcurl reads the variable once per process.
@Suite(.serialized, .timeLimit(.minutes(1)), .enabled(if: OpenSSLServer.isAvailable))
struct KeyLogTests {
    func probe(_ server: OpenSSLServer, log: String, allow: Bool) throws -> Int32 {
        var environment = ProcessInfo.processInfo.environment
        environment["SSLKEYLOGFILE"] = log
        return try SiblingProbe.run(
            "curl-keylog-probe",
            ["https://127.0.0.1:\(server.port)/", server.certificatePath] + (allow ? ["dangerously-write"] : []),
            environment: environment)
    }

    @Test func sslKeyLogFileIsIgnoredUnlessAskedFor() throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let ignored = server.directory.appendingPathComponent("ignored.log").path
        #expect(try probe(server, log: ignored, allow: false) == 0)
        let written = (try? Data(contentsOf: URL(fileURLWithPath: ignored))) ?? Data()
        #expect(written.isEmpty, "TLS secrets were logged: \(written.count) bytes")
        // The same probe allowed to: libcurl writes the secrets (so the first check could fail).
        let allowed = server.directory.appendingPathComponent("allowed.log").path
        #expect(try probe(server, log: allowed, allow: true) == 0)
        let secrets = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: allowed))) ?? Data(), as: UTF8.self)
        #expect(secrets.contains("CLIENT_") || secrets.contains("TRAFFIC_SECRET"))
    }
}

/// A child `openssl s_server` process (started and stopped by the test).
struct OpenSSLServer {
    static let binary = "/usr/bin/openssl"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    let process: Process
    let port: UInt16
    let directory: URL
    let pin: String
    var certificatePath: String { directory.appendingPathComponent("cert.pem").path }

    static func start() throws -> OpenSSLServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("egw-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        try run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
        ])
        // RFC 7469-style pin: base64(SHA-256(DER SubjectPublicKeyInfo)).
        let pin = try shell(
            "\(binary) x509 -in '\(cert)' -pubkey -noout | \(binary) pkey -pubin -outform der"
                + " | \(binary) dgst -sha256 -binary | \(binary) enc -base64 -A")
        let port = try LoopbackServer.closedPort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", cert, "-key", key, "-www", "-quiet"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let server = OpenSSLServer(process: process, port: port, directory: directory, pin: "sha256//" + pin)
        // Readiness: poll until the port accepts (bounded; not a timing assertion).
        for _ in 0..<200 {
            if canConnect(port) { return server }
            usleep(25_000)
        }
        server.stop()
        throw POSIXError(.ETIMEDOUT)
    }

    func stop() {
        if process.isRunning {
            // SIGKILL, not terminate(): a child spawned from a Dispatch worker
            // thread inherits its blocked SIGTERM and would ignore it.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A self-signed certificate (a CA of its own) named `name` in `directory`; its path.
    static func selfSignedCertificate(in directory: URL, name: String) throws -> String {
        let cert = directory.appendingPathComponent("\(name).pem").path
        try run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=\(name)", "-keyout", directory.appendingPathComponent("\(name)-key.pem").path, "-out", cert,
        ])
        return cert
    }

    private static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw POSIXError(.EINVAL) }
    }

    static func shell(_ command: String) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw POSIXError(.EINVAL) }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func canConnect(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
    }
}
