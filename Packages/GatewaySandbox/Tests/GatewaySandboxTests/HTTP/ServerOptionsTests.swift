import Foundation
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// `OPTIONS *`, the request RFC 9110 (9.3.7) gives for asking about the server rather than a
    /// resource: the SDK sends it to open a connection ahead of the card-session request. It gets
    /// `204` with `Allow` and leaves an HTTP/1.1 connection open; `*` with any other method is no route.
    @Suite struct ServerOptions {
        @Test func optionsStarIsAnsweredWithoutABodyAndKeepsTheConnection() throws {
            let gateway = try TestGateway()
            let head = "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            // Keep-alive: the raw client reads until the server closes, so a second request on the same
            // bytes proves the first one left the connection open.
            let second = "GET /sandbox/cards HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            let raw = try RawHTTPClient.roundTrip(port: gateway.port, bytes: Array((head + second).utf8))
            let text = String(decoding: raw, as: UTF8.self)
            let answers = text.components(separatedBy: "HTTP/1.1 ").dropFirst()
            #expect(answers.count == 2)
            let first = try RawHTTPClient.parse(Array(("HTTP/1.1 " + (answers.first ?? "")).utf8))
            #expect(first.status == 204)
            #expect(first.header("Allow") == "GET, HEAD, POST, DELETE, OPTIONS")
            #expect(answers.dropFirst().first?.hasPrefix("200") == true)
            #expect(gateway.sandbox.requestLog.first?.status == 204)
        }

        @Test func theStarIsOnlyForOptions() {
            #expect(Route.match(method: "OPTIONS", path: "*") == .serverOptions)
            #expect(Route.match(method: "GET", path: "*") == .notFound)
            #expect(Route.match(method: "POST", path: "*") == .notFound)
            #expect(Route.match(method: "OPTIONS", path: "/sandbox/cards") == .methodNotAllowed(allowed: ["GET"]))
        }
    }
}
