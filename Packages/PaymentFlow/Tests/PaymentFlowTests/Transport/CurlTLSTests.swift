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

    private static func shell(_ command: String) throws -> String {
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
