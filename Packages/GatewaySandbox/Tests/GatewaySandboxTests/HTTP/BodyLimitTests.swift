import Foundation
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// The request-body cap of `HTTPServer`: the default 64 KiB (`Sandbox.Configuration.bodyLimit`,
    /// 65,536 bytes), an answer for every oversized body, and no wait for a body declared too large to read.
    @Suite struct BodyLimit {
        /// `{}` padded with spaces (JSON whitespace) to `count` bytes: still the empty object.
        func paddedEmptyObject(_ count: Int) -> [UInt8] {
            Array("{}".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: count - 2)
        }

        @Test func aBodyExactlyAtTheLimitIsRead() throws {
            let gateway = try TestGateway()
            let response = try RawHTTPClient.request(
                "POST", gateway.url("/sandbox/payments"), headers: [("Content-Type", "application/json")],
                body: paddedEmptyObject(65_536))
            #expect(response.status == 201)
        }

        @Test func aBodyOneByteOverTheLimitGetsInvalidRequest() throws {
            let gateway = try TestGateway()
            let response = try RawHTTPClient.request(
                "POST", gateway.url("/sandbox/payments"), headers: [("Content-Type", "application/json")],
                body: paddedEmptyObject(65_537))
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_REQUEST")
            #expect(gateway.sandbox.requestLog.last?.status == 400)
        }

        @Test func aChunkedBodyOverTheLimitIsReadToTheEndAndRefused() throws {
            // No Content-Length to judge by: one chunk of 0x11171 = 70,001 bytes, then the last chunk.
            let gateway = try TestGateway()
            let head =
                "POST /sandbox/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n11171\r\n"
            let bytes = Array(head.utf8) + paddedEmptyObject(70_001) + Array("\r\n0\r\n\r\n".utf8)
            let response = try RawHTTPClient.exchange(port: gateway.port, bytes: bytes)
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_REQUEST")
        }

        @Test func aBodyDeclaredFarTooLargeIsAnsweredWithoutWaitingForIt() throws {
            // 1 GiB announced, nothing sent: the answer must come from the headers alone (the
            // client's 10-second receive timeout would otherwise end with no response).
            let gateway = try TestGateway()
            let head =
                "POST /sandbox/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 1073741824\r\n\r\n"
            let response = try RawHTTPClient.exchange(port: gateway.port, bytes: Array(head.utf8))
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_REQUEST")
        }
    }
}
