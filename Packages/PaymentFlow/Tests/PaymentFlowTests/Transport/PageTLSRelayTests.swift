import Foundation
import LoopbackTestServer
import Synchronization
import Testing

@_spi(Presenters) @testable import PaymentFlow

#if canImport(Glibc)
import Glibc
#endif

/// Issue 34: the pages' TLS relay answers a web view's `CONNECT` only after libcurl opened the
/// upstream with the kit's trust. Over loopback against `openssl s_server` (a self-signed 127.0.0.1
/// certificate, given as the CA file); the "view" is a plain socket speaking the proxy protocol.
@Suite(.serialized, .timeLimit(.minutes(1)), .enabled(if: OpenSSLServer.isAvailable))
struct PageTLSRelayTests {
    final class Calls: Sendable {
        let admitted = Mutex<[String]>([])
        let refusals = Mutex<[PageTLSRelay.Refusal]>([])
    }

    func relay(_ security: TransportSecurity, _ calls: Calls) throws -> PageTLSRelay {
        let admit: @Sendable (String) -> Bool = { host in
            calls.admitted.withLock { $0.append(host) }
            return true
        }
        let refused: @Sendable (PageTLSRelay.Refusal) -> Void = { refusal in
            calls.refusals.withLock { $0.append(refusal) }
        }
        let relay = PageTLSRelay(transportSecurity: security, admit: admit, refused: refused)
        return try #require(relay)
    }

    @Test func aPinFailingUpstreamIsAnswered502AndNeverAdmitted() throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let calls = Calls()
        let zeros = "sha256//" + Data(count: 32).base64EncodedString()
        let relay = try relay(
            TransportSecurity(
                pinnedPublicKeys: ["127.0.0.1.": [zeros]], certificateAuthorityFile: server.certificatePath),
            calls)
        defer { relay.stop() }
        let answer = try ProxyClient.connect(relayPort: relay.port, to: "127.0.0.1:\(server.port)")
        #expect(answer.hasPrefix("HTTP/1.1 502"))
        #expect(calls.admitted.withLock { $0 }.isEmpty)
        let refusal = try #require(calls.refusals.withLock { $0 }.first)
        #expect(refusal.isTrustFailure)
        #expect(refusal.reason.contains("does not match the pins"))
    }

    @Test func aServerOutsideTheCAFileIsAnswered502() throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let other = try OpenSSLServer.selfSignedCertificate(in: server.directory, name: "other")
        let calls = Calls()
        let relay = try relay(TransportSecurity(certificateAuthorityFile: other), calls)
        defer { relay.stop() }
        let answer = try ProxyClient.connect(relayPort: relay.port, to: "127.0.0.1:\(server.port)")
        #expect(answer.hasPrefix("HTTP/1.1 502"))
        #expect(calls.refusals.withLock { $0 }.first?.isTrustFailure == true)
    }

    @Test func aTrustedPinnedUpstreamIsAdmittedThenAnswered200() throws {
        let server = try OpenSSLServer.start()
        defer { server.stop() }
        let calls = Calls()
        let relay = try relay(
            TransportSecurity(
                pinnedPublicKeys: ["127.0.0.1": [server.pin]], certificateAuthorityFile: server.certificatePath),
            calls)
        defer { relay.stop() }
        let answer = try ProxyClient.connect(relayPort: relay.port, to: "127.0.0.1:\(server.port)")
        #expect(answer.hasPrefix("HTTP/1.1 200"))
        #expect(calls.admitted.withLock { $0 } == ["127.0.0.1"])
        #expect(calls.refusals.withLock { $0 }.isEmpty)
        #expect(relay.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(!relay.certificatePEM.contains("PRIVATE KEY"))
    }

    @Test func anythingButCONNECTIsRefusedAndStopClosesTheListener() throws {
        let calls = Calls()
        let relay = try relay(TransportSecurity(), calls)
        let answer = try ProxyClient.send("GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", to: relay.port)
        #expect(answer.hasPrefix("HTTP/1.1 405"))
        relay.stop()
        #expect(throws: POSIXError.self) { try ProxyClient.send("CONNECT a:1 HTTP/1.1\r\n\r\n", to: relay.port) }
    }
}

/// A blocking socket client of the relay: sends a proxy request head, returns the answer's head.
enum ProxyClient {
    static func connect(relayPort: UInt16, to authority: String) throws -> String {
        try send("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n", to: relayPort)
    }

    static func send(_ head: String, to port: UInt16) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let bytes = Array(head.utf8)
        guard Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw POSIXError(.EIO) }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) == 1 {
            answer.append(byte)
            if answer.count >= 4, answer.suffix(4) == [13, 10, 13, 10] { break }
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
