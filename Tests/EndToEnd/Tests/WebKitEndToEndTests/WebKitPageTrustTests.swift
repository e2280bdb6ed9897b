import Foundation
import GatewaySandbox
import LoopbackTestServer
import Synchronization
import XCTest

/// Issue 34, items 1 and 2: every byte a page sends is held to the kit's trust before it leaves, and
/// WebKit honours neither `SSLKEYLOGFILE` nor an unconfigured proxy. Each case runs one page in
/// `webkit-page-probe`, a process of its own, inside a private mount namespace whose /etc/ssl/certs
/// (the "system store" WebKit's GnuTLS reads) is a temporary directory trusting the test CAs, so the
/// system store trusts every server here and only the kit's own rules can refuse one: before the fix
/// WebKit sent each request on the system's word. The machine's store is never written.
final class WebKitPageTrustTests: XCTestCase {
    var directory: URL!
    /// The CA the kit's configuration trusts (its file), and a leaf for localhost it signed.
    var trusted: SandboxTLSIdentity!
    var caFile: String { directory.appendingPathComponent("kit-ca.pem").path }

    override func setUpWithError() throws {
        try XCTSkipUnless(PrivateSystemStore.isAvailable, "no private mount namespace (unshare) here")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("egw-pagetrust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        trusted = try SandboxTLSIdentity.generate(hosts: ["localhost"])
        try trusted.certificateAuthorityPEM.write(toFile: caFile, atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// A loopback http page (the test's own server) that makes one request to `target`.
    func page(_ body: @escaping @Sendable (String) -> String, target: CountingTLSServer) throws -> LoopbackServer {
        let origin = "https://localhost:\(target.port)"
        return try LoopbackServer { _ in
            .html(200, [], "<!DOCTYPE html><html><head><title>probe</title></head><body>\(body(origin))</body></html>")
        }
    }

    /// The page's request to a pinned host whose key fails its pin: no byte of it reaches the host, and
    /// the page fails with the pin as its reason.
    func assertPinFailingHostHearsNothing(
        _ body: @escaping @Sendable (String) -> String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let target = try CountingTLSServer.start(identity: trusted, in: directory)
        defer { target.stop() }
        let server = try page(body, target: target)
        defer { server.stop() }
        let store = try PrivateSystemStore(trusting: [trusted.certificateAuthorityPEM], in: directory)
        let wrongPin = trusted.certificateAuthorityPublicKeyPin  // a key of the chain, not the server's
        let lines = try store.probe(server.url("/page").absoluteString, caFile: caFile, pins: ["localhost=\(wrongPin)"])
        XCTAssertEqual(
            target.bytesReceived, 0, "the pin-failing host received the request: \(lines)", file: file, line: line)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("failed ") && $0.contains("does not match the pins for localhost") },
            "the page did not fail on the pin: \(lines)", file: file, line: line)
    }

    func testTheChallengeCodesFormPostNeverReachesAPinFailingHost() throws {
        try assertPinFailingHostHearsNothing { origin in
            """
            <form method="post" action="\(origin)/challenge"><input name="challengeCode" value="1234"></form>
            <script>document.forms[0].submit();</script>
            """
        }
    }

    func testAScriptsFetchNeverReachesAPinFailingHost() throws {
        try assertPinFailingHostHearsNothing { origin in
            #"<script>fetch("\#(origin)/api", {method: "POST", body: "challengeCode=1234"}).catch(() => {});</script>"#
        }
    }

    func testASubresourceNeverReachesAPinFailingHost() throws {
        try assertPinFailingHostHearsNothing { origin in #"<img src="\#(origin)/pixel.png" alt="">"# }
    }

    func testASubframesRequestNeverReachesAPinFailingHost() throws {
        try assertPinFailingHostHearsNothing { origin in #"<iframe src="\#(origin)/frame"></iframe>"# }
    }

    /// With a CA file configured, a page signed by another CA (one the system store trusts) does not load.
    func testAPageSignedByACAOutsideTheConfiguredFileDoesNotLoad() throws {
        let other = try SandboxTLSIdentity.generate(hosts: ["localhost"])
        let target = try CountingTLSServer.start(identity: other, in: directory, answers: true)
        defer { target.stop() }
        let store = try PrivateSystemStore(
            trusting: [trusted.certificateAuthorityPEM, other.certificateAuthorityPEM], in: directory)
        let lines = try store.probe("https://localhost:\(target.port)/", caFile: caFile)
        XCTAssertFalse(lines.contains { $0.hasPrefix("loaded ") }, "\(lines)")
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("failed ") && $0.contains("is not trusted by the kit") }, "\(lines)")
        XCTAssertEqual(target.bytesReceived, 0)
    }

    /// A server that speaks TLS 1.1 only (OpenSSL at SECLEVEL=0) does not load: the kit requires 1.2.
    func testATLS11OnlyServerDoesNotLoad() throws {
        let target = try CountingTLSServer.start(identity: trusted, in: directory, answers: true, tls11Only: true)
        defer { target.stop() }
        let store = try PrivateSystemStore(trusting: [trusted.certificateAuthorityPEM], in: directory)
        let lines = try store.probe("https://localhost:\(target.port)/", caFile: caFile)
        XCTAssertFalse(lines.contains { $0.hasPrefix("loaded ") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("failed ") && $0.contains("TLS handshake") }, "\(lines)")
    }

    /// A host nobody listens on: the relay answers WebKit 502 and the page fails with the relay's reason
    /// (WebKit shows that 502 as the page's answer), not a bare "HTTP status 502".
    func testAnUnreachableHostFailsWithTheRelaysReason() throws {
        let port = try LoopbackServer.closedPort()
        let store = try PrivateSystemStore(trusting: [trusted.certificateAuthorityPEM], in: directory)
        let lines = try store.probe("https://localhost:\(port)/", caFile: caFile)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("failed ") && $0.contains("could not connect to localhost:\(port)") },
            "\(lines)")
    }

    /// WebKit's network process writes no TLS secrets to `SSLKEYLOGFILE` (nor does the relay).
    func testSSLKeyLogFileStaysEmpty() throws {
        let target = try CountingTLSServer.start(identity: trusted, in: directory, answers: true)
        defer { target.stop() }
        let store = try PrivateSystemStore(trusting: [trusted.certificateAuthorityPEM], in: directory)
        let log = directory.appendingPathComponent("keys.log").path
        let lines = try store.probe(
            "https://localhost:\(target.port)/", caFile: caFile, environment: ["SSLKEYLOGFILE": log])
        XCTAssertTrue(lines.contains { $0.hasPrefix("loaded ") }, "the page must load over TLS: \(lines)")
        let written = (try? Data(contentsOf: URL(fileURLWithPath: log)))?.count ?? 0
        XCTAssertEqual(written, 0, "TLS secrets were written to SSLKEYLOGFILE")
    }

    /// `https_proxy` (and friends) set, the kit's default `.direct`: the page connects straight to its
    /// host; the proxy's listener sees no connection.
    func testHTTPSProxyInTheEnvironmentIsNotUsed() throws {
        let target = try CountingTLSServer.start(identity: trusted, in: directory, answers: true)
        defer { target.stop() }
        let proxy = try LoopbackServer { _ in .http(502) }
        defer { proxy.stop() }
        let store = try PrivateSystemStore(trusting: [trusted.certificateAuthorityPEM], in: directory)
        let address = "http://127.0.0.1:\(proxy.port)"
        let lines = try store.probe(
            "https://localhost:\(target.port)/", caFile: caFile,
            environment: ["https_proxy": address, "HTTPS_PROXY": address, "http_proxy": address, "all_proxy": address])
        XCTAssertTrue(lines.contains { $0.hasPrefix("loaded ") }, "\(lines)")
        XCTAssertEqual(proxy.connectionCount, 0, "the page went through the environment's proxy")
    }
}

/// `openssl s_server` on localhost with `identity`: counting the application bytes it receives (it
/// prints them and never answers), or, with `answers`, a `-www` server whose pages load.
final class CountingTLSServer: Sendable {
    let port: UInt16
    private let process: Process
    private let input: Pipe
    /// Kept, so that its read source is cancelled (``stop()``) before its descriptor is closed: a
    /// FileHandle let go with its readability handler still set closes the descriptor under a live
    /// Dispatch source, which once crashed libdispatch's event loop in this suite (`_dispatch_event_loop_drain`).
    private let output: Pipe
    private let received = Mutex(0)

    var bytesReceived: Int { received.withLock { $0 } }

    private init(port: UInt16, process: Process, input: Pipe, output: Pipe) {
        self.port = port
        self.process = process
        self.input = input
        self.output = output
    }

    static func start(
        identity: SandboxTLSIdentity, in directory: URL, answers: Bool = false, tls11Only: Bool = false
    ) throws -> CountingTLSServer {
        let name = UUID().uuidString
        let certificate = directory.appendingPathComponent("\(name)-chain.pem").path
        let key = directory.appendingPathComponent("\(name)-key.pem").path
        try identity.certificateChainPEM.write(toFile: certificate, atomically: true, encoding: .utf8)
        try identity.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        let port = try LoopbackServer.closedPort()
        let process = Process()
        // stdbuf: s_server prints what it receives through stdio, which would hold it in a buffer.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments =
            [
                "-o0", "/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key",
                key, "-quiet",
            ]
            + (answers ? ["-www"] : []) + (tls11Only ? ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"] : [])
        let input = Pipe()  // kept open: s_server ends its connections at the end of its input
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let server = CountingTLSServer(port: port, process: process, input: input, output: output)
        output.fileHandleForReading.readabilityHandler = { [weak server] handle in
            let count = handle.availableData.count
            server?.received.withLock { $0 += count }
        }
        try process.run()
        for _ in 0..<200 {  // until it listens (bounded; not a timing assertion)
            if (try? LoopbackServer.canConnect(port)) == true { return server }
            usleep(25_000)
        }
        server.stop()
        throw POSIXError(.ETIMEDOUT)
    }

    /// Ends the server, then its output's read source (set to nil, the handler's source is cancelled).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        output.fileHandleForReading.readabilityHandler = nil
    }

    deinit { output.fileHandleForReading.readabilityHandler = nil }
}

extension LoopbackServer {
    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    static func canConnect(_ port: UInt16) throws -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// A "system store" for the probe: a temporary directory holding the given CAs (bundle and OpenSSL hash
/// links), bind-mounted over /etc/ssl/certs inside a private mount namespace (`unshare --mount`).
struct PrivateSystemStore {
    let directory: URL
    let home: URL

    static let unshare = "/usr/bin/unshare"
    static var namespaceArguments: [String] {
        ["--mount", "--propagation", "private"] + (getuid() == 0 ? [] : ["--map-root-user"])
    }

    static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: unshare),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/stdbuf")
        else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: unshare)
        process.arguments = namespaceArguments + ["/bin/true"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    init(trusting authorities: [String], in parent: URL) throws {
        directory = parent.appendingPathComponent("system-store-\(UUID().uuidString)")
        home = parent.appendingPathComponent("home-\(UUID().uuidString)")
        for folder in [directory, home] {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try authorities.joined(separator: "\n").write(
            to: directory.appendingPathComponent("ca-certificates.crt"), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
    }

    /// `webkit-page-probe url caFile pins...` with this store as /etc/ssl/certs; its stdout lines.
    func probe(
        _ url: String, caFile: String?, pins: [String] = [], environment extra: [String: String] = [:]
    ) throws
        -> [String]
    {
        let probe = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("webkit-page-probe").path
        var environment = ProcessInfo.processInfo.environment.filter {
            ![
                "SSLKEYLOGFILE", "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
                "NO_PROXY",
            ]
            .contains($0.key)
        }
        for (variable, name) in [
            ("HOME", "home"), ("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"),
            ("XDG_RUNTIME_DIR", "runtime"), ("TMPDIR", "tmp"),
        ] {
            let folder = home.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            environment[variable] = folder.path
        }
        environment.merge(extra) { $1 }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.unshare)
        process.arguments =
            Self.namespaceArguments + [
                "/bin/sh", "-c", #"mount --bind "$0" /etc/ssl/certs && exec "$@""#, directory.path, probe, url,
                caFile ?? "-",
            ] + pins
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
