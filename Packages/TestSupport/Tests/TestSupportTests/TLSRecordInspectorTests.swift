import Testing

@testable import LatencyProxy

/// The proxy's reading of first TLS records, on records built here byte by byte from the
/// structures of RFC 8446 sections 4.1.2 and 4.1.3 (and RFC 5246 7.4.1.3 for TLS 1.2).
@Suite struct TLSRecordInspectorTests {
    static func record(_ handshake: [UInt8]) -> [UInt8] {
        [22, 3, 1, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xFF)] + handshake
    }

    static func message(type: UInt8, _ body: [UInt8]) -> [UInt8] {
        [type, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    static func vector16(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }

    static let sessionID = [UInt8](repeating: 0xA5, count: 32)
    static let random = [UInt8](repeating: 0x11, count: 32)

    static func clientHello() -> [UInt8] {
        let extensions = vector16([0, 43, 0, 3, 2, 3, 4])  // supported_versions: [TLS 1.3]
        let body: [UInt8] = [3, 3] + random + [32] + sessionID + [0, 2, 0x13, 0x01] + [1, 0] + extensions
        return record(message(type: 1, body))
    }

    static func serverHello(extensions: [UInt8]?, sessionID: [UInt8]) -> [UInt8] {
        var body: [UInt8] = [3, 3] + random + [UInt8(sessionID.count)] + sessionID + [0x13, 0x01, 0]
        if let extensions { body += vector16(extensions) }
        return record(message(type: 2, body))
    }

    @Test func findsTheClientHelloAcrossChunks() {
        var inspector = TLSRecordInspector()
        let bytes = Self.clientHello()
        #expect(inspector.feed(Array(bytes[0..<3])) == nil)
        #expect(inspector.feed(Array(bytes[3..<40])) == nil)
        #expect(inspector.feed(Array(bytes[40...])) == .client(sessionID: Self.sessionID))
        // Only the first record counts.
        #expect(inspector.feed(bytes) == nil)
    }

    @Test func tellsAResumedTLS13HandshakeByItsPreSharedKey() {
        let versions: [UInt8] = [0, 43, 0, 2, 3, 4]
        let psk: [UInt8] = [0, 41, 0, 2, 0, 0]
        var full = TLSRecordInspector()
        #expect(
            full.feed(Self.serverHello(extensions: versions, sessionID: Self.sessionID))
                == .server(resumed: false, sessionID: Self.sessionID))
        var resumed = TLSRecordInspector()
        #expect(
            resumed.feed(Self.serverHello(extensions: psk + versions, sessionID: Self.sessionID))
                == .server(resumed: true, sessionID: Self.sessionID))
    }

    @Test func leavesTLS12ResumptionToTheEchoedSessionID() {
        var inspector = TLSRecordInspector()
        #expect(
            inspector.feed(Self.serverHello(extensions: nil, sessionID: Self.sessionID))
                == .server(resumed: nil, sessionID: Self.sessionID))
    }

    @Test func plainHTTPAndGarbageAreNotTLS() {
        var http = TLSRecordInspector()
        #expect(http.feed(Array("GET / HTTP/1.1\r\n\r\n".utf8)) == nil)
        #expect(http.feed(Self.clientHello()) == nil)
        var truncated = TLSRecordInspector()
        // A record that claims more than the message inside it holds: no hello, no crash.
        #expect(truncated.feed([22, 3, 3, 0, 6, 1, 0, 0, 40, 3, 3]) == nil)
    }
}
