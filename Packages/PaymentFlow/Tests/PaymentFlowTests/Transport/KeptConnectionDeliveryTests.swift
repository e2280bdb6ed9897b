import Foundation
import Synchronization
import Testing

@testable import PaymentFlow

#if canImport(Glibc)
import Glibc
#endif

/// The case issue 18 found with the curl CLI, through the SDK's own libcurl transport: a one-connection
/// server answers a read with keep-alive, then reads the whole keyed POST that rides the kept connection,
/// "applies" it, closes its listener and resets the connection. libcurl retries on a new connection, which
/// is refused, and reports `CURLE_COULDNT_CONNECT`. The transport must report that the request was
/// written, and the SDK's classifier must call the step in doubt, not unreachable.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct KeptConnectionDeliveryTests {
    /// A server on a raw socket, so nothing in between can soften what the client sees.
    final class OneConnectionServer: @unchecked Sendable {
        let port: UInt16
        private let listener: Int32
        let appliedBody = Mutex<[UInt8]?>(nil)
        private let finished = DispatchSemaphore(value: 0)

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0, listen(fd, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            listener = fd
            port = UInt16(bigEndian: address.sin_port)
            let thread = Thread { [self] in serve() }
            thread.start()
        }

        /// Reads one request (head and `Content-Length` body) from `fd`.
        private func readRequest(_ fd: Int32, buffer: inout [UInt8]) -> (head: String, body: [UInt8])? {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                    let length =
                        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    if buffer.count >= end.upperBound + length {
                        let body = Array(buffer[end.upperBound..<(end.upperBound + length)])
                        buffer.removeFirst(end.upperBound + length)
                        return (head, body)
                    }
                }
                let n = recv(fd, &chunk, chunk.count, 0)
                if n <= 0 { return nil }
                buffer.append(contentsOf: chunk[0..<n])
            }
        }

        private func serve() {
            defer { finished.signal() }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var buffer: [UInt8] = []
            guard readRequest(connection, buffer: &buffer) != nil else { return }
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
            _ = answer.withCString { Glibc.send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            guard let post = readRequest(connection, buffer: &buffer) else { return }
            appliedBody.withLock { $0 = post.body }  // the gateway applied it
            close(listener)  // the gateway goes away: a reconnect is refused
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(connection)  // reset
        }

        func waitUntilDone() { _ = finished.wait(timeout: .now() + 10) }
    }

    func send(_ transport: CurlTransport, _ request: HTTPRequest) async -> Result<HTTPResponse, TransportError> {
        await withCheckedContinuation { continuation in
            transport.send(request) { continuation.resume(returning: $0) }
        }
    }

    @Test func aKeyedPostAppliedOnAKeptConnectionThenRefusedIsInDoubt() async throws {
        let server = try OneConnectionServer()
        let base = "http://127.0.0.1:\(server.port)"
        let transport = CurlTransport(connectionCache: CurlConnectionCache())
        let read = await send(transport, HTTPRequest(method: "GET", url: URL(string: base + "/session")!, timeout: 5))
        #expect((try? read.get().status) == 200)
        let body = Array(#"{"notificationUrl":"https://x","browser":{}}"#.utf8)
        let post = HTTPRequest(
            method: "POST", url: URL(string: base + "/authentication")!,
            headers: [HTTPHeader("Idempotency-Key", "k-1"), HTTPHeader("Content-Type", "application/json")],
            body: body, timeout: 5)
        let result = await send(transport, post)
        server.waitUntilDone()

        // The server read the whole POST: for the gateway the step happened.
        #expect(server.appliedBody.withLock { $0 } == body)
        guard case .failure(let error) = result else {
            Issue.record("the POST got an answer from a server that reset the connection")
            return
        }
        // What libcurl says is the refused reconnect (or the reset, on another libcurl) ...
        #expect([.connect, .reset].contains(error.kind), "\(error)")
        // ... but the facts say the request was written on a kept connection.
        #expect(error.delivery.requestStarted == true)
        #expect(error.delivery.rodeKeptConnection == true)
        #expect(!error.delivery.provesNeverSent)
        let call = GatewayCall.authenticate(
            sessionId: "s", notificationURL: URL(string: "https://x")!, idempotencyKey: UUID())
        guard case .doubtful = GatewayAPI.decodeSession(call, result) else {
            Issue.record("classified \(GatewayAPI.decodeSession(call, result)), not in doubt")
            return
        }
    }

    @Test func aFreshConnectionRefusedIsProvablyNeverSent() async throws {
        // A port nobody listens on: bind, learn the port, close.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) }
        }
        close(probe)
        let url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/authentication")!
        let transport = CurlTransport(connectionCache: CurlConnectionCache())
        let result = await send(
            transport,
            HTTPRequest(
                method: "POST", url: url, headers: [HTTPHeader("Idempotency-Key", "k-2")], body: Array("{}".utf8),
                timeout: 5))
        guard case .failure(let error) = result else {
            Issue.record("a closed port answered")
            return
        }
        #expect(error.kind == .connect)
        #expect(error.delivery.provesNeverSent, "\(error.delivery)")
        let call = GatewayCall.authenticate(
            sessionId: "s", notificationURL: URL(string: "https://x")!, idempotencyKey: UUID())
        guard case .unreachable = GatewayAPI.decodeSession(call, result) else {
            Issue.record("classified \(GatewayAPI.decodeSession(call, result)), not unreachable")
            return
        }
    }
}
