import CSandboxTestSSL
import Foundation
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// HTTPS through libmicrohttpd's GnuTLS backend, checked with OpenSSL's libssl as the client
    /// (its own certificate verification, host and IP checks, version negotiation).
    ///
    /// Expected verification codes are OpenSSL's documented `X509_V_ERR_*` values
    /// (openssl-verify(1)): 20 unable to get local issuer certificate, 62 hostname mismatch,
    /// 64 IP address mismatch.
    @Suite struct TLS {
        static func https(_ tls: Sandbox.TLS = Sandbox.TLS()) throws -> Sandbox {
            var configuration = Sandbox.Configuration()
            configuration.tls = tls
            return try Sandbox(configuration: configuration, keys: JWECardKeys(key: TestKeys.shared))
        }

        static func options(_ sandbox: Sandbox, host: String = "127.0.0.1") -> TLSTestClient.Options {
            TLSTestClient.Options(certificateAuthorityFile: sandbox.tlsTrust?.certificateAuthorityFile, host: host)
        }

        @Test func libmicrohttpdHereCanServeTLS() {
            #expect(Sandbox.supportsTLS)
        }

        @Test func servesHTTPSWithAGeneratedTestCertificateAuthority() throws {
            let sandbox = try Self.https()
            defer { sandbox.stop() }
            for url in [
                sandbox.apiBaseURL, sandbox.checkoutAPIBaseURL, sandbox.checkoutBaseURL, sandbox.merchantBaseURL,
            ] {
                #expect(url.scheme == "https")
            }
            let created = try TLSTestClient.request(
                "POST", sandbox.merchantBaseURL.appendingPathComponent("sandbox/payments"), port: sandbox.port,
                headers: [("Content-Type", "application/json")], body: Array(#"{"amount": 990}"#.utf8),
                options: Self.options(sandbox))
            #expect(created.version == "TLSv1.3")
            #expect(created.response.status == 201)
            let json = try created.response.json()
            #expect(json["amount"] as? Int == 990)
            // Links the sandbox hands out are https too.
            let links = json["_links"] as? [String: Any]
            let href = (links?["checkoutRedirect"] as? [String: Any])?["href"] as? String
            #expect(href?.hasPrefix("https://127.0.0.1:\(sandbox.port)/") == true)
            #expect(sandbox.requestLog.last?.path == "/sandbox/payments")
        }

        @Test func theLeafCoversTheLoopbackNamesAndNothingElse() throws {
            let sandbox = try Self.https()
            defer { sandbox.stop() }
            let url = sandbox.merchantBaseURL.appendingPathComponent("sandbox/cards")
            for host in ["127.0.0.1", "::1", "localhost"] {
                let answer = try TLSTestClient.request(
                    "GET", url, port: sandbox.port, options: Self.options(sandbox, host: host))
                #expect(answer.response.status == 200, "\(host)")
            }
            #expect(throws: TLSTestClient.Failure.handshake(verifyResult: 64, reason: "certificate verify failed")) {
                try TLSTestClient.request(
                    "GET", url, port: sandbox.port, options: Self.options(sandbox, host: "127.0.0.2"))
            }
            #expect(throws: TLSTestClient.Failure.handshake(verifyResult: 62, reason: "certificate verify failed")) {
                try TLSTestClient.request(
                    "GET", url, port: sandbox.port, options: Self.options(sandbox, host: "example.com"))
            }
        }

        /// Issue 23: the test CA is name-constrained to the names the sandbox serves, read back by the
        /// `openssl` command line (a second parser): trusted by mistake, it vouches for nothing else.
        @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
        func theTestAuthorityIsNameConstrainedToTheLoopbackNames() throws {
            let identity = try SandboxTLSIdentity.generate()
            let file = NSTemporaryDirectory() + "egw-ca-\(UUID().uuidString).pem"
            try identity.certificateAuthorityPEM.write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["x509", "-noout", "-ext", "nameConstraints", "-in", file]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(text.contains("X509v3 Name Constraints: critical"), "\(text)")
            #expect(text.contains("IP:127.0.0.1/255.255.255.255"))
            #expect(text.contains("IP:0:0:0:0:0:0:0:1/FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF:FFFF"))
            #expect(text.contains("DNS:localhost"))
            #expect(!text.contains("Excluded"))
        }

        @Test func anotherSandboxsCertificateAuthorityIsNotTrusted() throws {
            let sandbox = try Self.https()
            let other = try Self.https()
            defer {
                sandbox.stop()
                other.stop()
            }
            #expect(sandbox.tlsTrust?.certificateAuthorityPEM != other.tlsTrust?.certificateAuthorityPEM)
            let url = sandbox.merchantBaseURL.appendingPathComponent("sandbox/cards")
            var options = Self.options(other)
            #expect(throws: TLSTestClient.Failure.handshake(verifyResult: 20, reason: "certificate verify failed")) {
                try TLSTestClient.request("GET", url, port: sandbox.port, options: options)
            }
            options.certificateAuthorityFile = nil
            #expect(throws: TLSTestClient.Failure.handshake(verifyResult: 20, reason: "certificate verify failed")) {
                try TLSTestClient.request("GET", url, port: sandbox.port, options: options)
            }
            // The handshake failed before any request: the gateway saw nothing.
            #expect(sandbox.requestLog.isEmpty)
        }

        @Test func trustMaterialMatchesWhatTheServerPresents() throws {
            let sandbox = try Self.https()
            let trust = try #require(sandbox.tlsTrust)
            let file = trust.certificateAuthorityFile
            // The file is readable by anyone and holds exactly the CA certificate.
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == trust.certificateAuthorityPEM)
            // The fingerprint is SHA-256 over the DER inside the PEM armour (decoded here with Foundation).
            let body = trust.certificateAuthorityPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            let der = try #require(Data(base64Encoded: body))
            let fingerprint = try #require(RequestDigest.sha256(Array(der)))
            #expect(
                trust.certificateAuthoritySHA256
                    == fingerprint.map { String(format: "%02X", $0) }.joined(separator: ":"))
            // The server pin is the SHA-256 of the SubjectPublicKeyInfo of the certificate the server sends.
            let presented = try TLSTestClient.peerPublicKeyDER(port: sandbox.port, options: Self.options(sandbox))
            let pin = try #require(RequestDigest.sha256(presented))
            #expect(trust.serverPublicKeyPin == "sha256//" + Data(pin).base64EncodedString())
            #expect(trust.certificateAuthorityPublicKeyPin != trust.serverPublicKeyPin)
            sandbox.stop()
            #expect(!FileManager.default.fileExists(atPath: file))
        }

        /// The CA file's path is printed (the shell's `config`, the sandbox's banner), and a random part of
        /// all digits once made "-19690-12345678" a 13-digit run, which the card-data scans rightly flag.
        @Test(arguments: [(Int32(19690), "12345678"), (Int32(4_194_304), "99999999"), (Int32(7), "D2B379B7")])
        func theCAFilesOwnNameHoldsNoCardNumberLikeRun(pid: Int32, random: String) throws {
            let name = CertificateAuthorityFile.temporaryName(pid: pid, random: random)
            let run = try Regex(#"\d(?:[ \-]?\d){11,}"#)
            #expect(name.firstMatch(of: run) == nil, "\(name)")
            #expect(name.hasPrefix("egw-sandbox-ca-") && name.hasSuffix(".pem"))
            #expect(name.contains(String(pid)) && name.contains(random.lowercased()), "pid and random part kept")
        }

        @Test func aGivenCertificateAuthorityFileIsWrittenAndKept() throws {
            let path = NSTemporaryDirectory() + "egw-tls-test-\(UUID().uuidString).pem"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let sandbox = try Self.https(Sandbox.TLS(certificateAuthorityFile: path))
            #expect(sandbox.tlsTrust?.certificateAuthorityFile == path)
            let answer = try TLSTestClient.request(
                "GET", sandbox.merchantBaseURL, port: sandbox.port,
                options: TLSTestClient.Options(certificateAuthorityFile: path))
            #expect(answer.response.status == 200)
            sandbox.stop()
            #expect(FileManager.default.fileExists(atPath: path))
        }

        @Test func aServerCappedAtTLS11IsRefusedByATLS12Client() throws {
            let sandbox = try Self.https(Sandbox.TLS(maximumVersion: .tls1_1))
            defer { sandbox.stop() }
            let url = sandbox.merchantBaseURL.appendingPathComponent("sandbox/cards")
            #expect(throws: TLSTestClient.Failure.self) {
                try TLSTestClient.request("GET", url, port: sandbox.port, options: Self.options(sandbox))
            }
            #expect(sandbox.requestLog.isEmpty)
            // The server does speak TLS 1.1: a client that allows it gets through.
            var legacy = Self.options(sandbox)
            legacy.minimumVersion = TLS1_1_VERSION
            legacy.allowsLegacy = true
            let answer = try TLSTestClient.request("GET", url, port: sandbox.port, options: legacy)
            #expect(answer.version == "TLSv1.1")
            #expect(answer.response.status == 200)
        }

        @Test func plainHTTPToTheHTTPSPortGetsNoHTTPAnswer() throws {
            let sandbox = try Self.https()
            defer { sandbox.stop() }
            let plain = URL(string: "http://127.0.0.1:\(sandbox.port)/sandbox/cards")!
            #expect(throws: (any Error).self) { try RawHTTPClient.request("GET", plain) }
            #expect(sandbox.requestLog.isEmpty)
        }

        @Test func faultsWorkOverTLS() throws {
            let sandbox = try Self.https()
            defer { sandbox.stop() }
            let payment = sandbox.createPayment()
            let url = sandbox.apiBaseURL.appendingPathComponent("checkout/api/egw/v1/payments/\(payment.paymentId)")
            let headers = [("Obp-Verification-Key", payment.verificationKey), ("X-Request-Id", "tls-fault")]
            sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .dropConnection))
            #expect(throws: RawHTTPError.noResponse) {
                try TLSTestClient.request(
                    "GET", url, port: sandbox.port, headers: headers, options: Self.options(sandbox))
            }
            sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .truncatedBody))
            let truncated = try TLSTestClient.request(
                "GET", url, port: sandbox.port, headers: headers, options: Self.options(sandbox))
            #expect(truncated.response.status == 200)
            #expect(!truncated.response.isComplete)
            let whole = try TLSTestClient.request(
                "GET", url, port: sandbox.port, headers: headers, options: Self.options(sandbox))
            #expect(try whole.response.json()["paymentStatus"] as? String == "INITIALIZED")
        }

        @Test func loadsAGivenIdentityFromFiles() throws {
            let identity = try SandboxTLSIdentity.generate(hosts: ["127.0.0.1"])
            let directory = NSTemporaryDirectory() + "egw-tls-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let certificate = directory + "/chain.pem"
            let key = directory + "/key.pem"
            // A chain file as a user writes one: the leaf, then the CA it is to be trusted through.
            try (identity.certificateChainPEM + identity.certificateAuthorityPEM).write(
                toFile: certificate, atomically: true, encoding: .utf8)
            try identity.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)

            let loaded = try SandboxTLSIdentity.load(certificateFile: certificate, keyFile: key)
            #expect(loaded.certificateAuthorityPEM == identity.certificateAuthorityPEM)
            #expect(loaded.serverPublicKeyPin == identity.serverPublicKeyPin)
            #expect(loaded.privateKeyPEM == identity.privateKeyPEM)
            let sandbox = try Self.https(Sandbox.TLS(identity: loaded))
            defer { sandbox.stop() }
            #expect(sandbox.tlsTrust?.certificateAuthorityPEM == identity.certificateAuthorityPEM)
            let answer = try TLSTestClient.request(
                "GET", sandbox.merchantBaseURL, port: sandbox.port, options: Self.options(sandbox))
            #expect(answer.response.status == 200)
            // The leaf only covers what it was issued for.
            #expect(throws: TLSTestClient.Failure.self) {
                try TLSTestClient.request(
                    "GET", sandbox.merchantBaseURL, port: sandbox.port,
                    options: Self.options(sandbox, host: "localhost"))
            }

            // A key that is not the leaf's, and a file with no certificate, are refused.
            let stranger = try SandboxTLSIdentity.generate()
            try stranger.privateKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
            #expect(throws: SandboxError.self) {
                try SandboxTLSIdentity.load(certificateFile: certificate, keyFile: key)
            }
            #expect(throws: SandboxError.self) { try SandboxTLSIdentity.load(certificateFile: key, keyFile: key) }
        }

        @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
        func servesACertificateMadeByTheOpenSSLCommand() throws {
            // A second issuer: an RSA self-signed certificate from openssl req, not from our builder.
            let directory = NSTemporaryDirectory() + "egw-tls-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", directory + "/key.pem", "-out",
                directory + "/cert.pem",
            ]
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            let identity = try SandboxTLSIdentity.load(
                certificateFile: directory + "/cert.pem", keyFile: directory + "/key.pem")
            let sandbox = try Self.https(Sandbox.TLS(identity: identity))
            defer { sandbox.stop() }
            let answer = try TLSTestClient.request(
                "GET", sandbox.merchantBaseURL, port: sandbox.port, options: Self.options(sandbox))
            #expect(answer.response.status == 200)
        }

        @Test func refusesUnusableIdentityRequests() {
            #expect(throws: SandboxError.self) { try SandboxTLSIdentity.generate(hosts: []) }
            #expect(throws: SandboxError.self) { try SandboxTLSIdentity.generate(hosts: ["a,DNS:evil"]) }
            #expect(throws: SandboxError.self) { try SandboxTLSIdentity.generate(lifetime: .seconds(5)) }
        }
    }
}
