import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A deliberately tiny HTTP/1.1 server on 127.0.0.1 for transport and browser
/// tests: Glibc sockets, one thread per connection, `Connection: close`.
/// It can misbehave on purpose (hang, close early, stream forever), which a
/// real server library would not let us do.
///
/// Test support only (the `LoopbackTestServer` product): the one copy that
/// PaymentFlow's transport tests and HeadlessBrowser's plain-page tests share (it knows no SDK type).
public final class LoopbackServer: Sendable {
    /// One request as the server parsed it.
    public struct Request: Sendable {
        /// `GET`, `POST`, ...
        public var method: String
        /// The request target as sent: path and query.
        public var target: String
        /// The headers in the order received.
        public var headers: [(name: String, value: String)]
        /// The body bytes (`Content-Length` of them).
        public var body: [UInt8]

        /// The first header named `name` (any case).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        /// Every header named `name` (any case), in order.
        public func headers(named name: String) -> [String] {
            headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }
        /// The target without its query.
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    }

    /// What the server does with a request.
    public enum Reply: Sendable {
        /// Writes these bytes, then closes.
        case bytes([UInt8])
        /// Reads the request and never answers (the connection stays open until `stop`).
        case hang
        /// Closes without writing a byte.
        case close
        /// Writes `head`, then `chunk` over and over until the client goes away
        /// (or `limit` chunks were written), then closes.
        case stream(head: [UInt8], chunk: [UInt8], limit: Int)

        /// A complete HTTP/1.1 response with `Content-Length` and `Connection: close`.
        public static func http(_ status: Int, _ headers: [(String, String)] = [], body: [UInt8] = []) -> Reply {
            var text = "HTTP/1.1 \(status) Status\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            return .bytes(Array(text.utf8) + body)
        }

        /// A complete HTML response (`text/html; charset=utf-8`).
        public static func html(_ status: Int = 200, _ headers: [(String, String)] = [], _ page: String) -> Reply {
            http(status, [("Content-Type", "text/html; charset=utf-8")] + headers, body: Array(page.utf8))
        }
    }

    private struct State {
        var requests: [Request] = []
        var connections = 0
        var openSockets: Set<Int32> = []
        var stopped = false
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: UInt16
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    private let state = Mutex(State())

    /// Starts listening on an ephemeral port of 127.0.0.1.
    public init(handler: @escaping @Sendable (Request) -> Reply) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        self.handler = handler
        let thread = Thread { [self] in self.acceptLoop() }
        thread.start()
    }

    deinit {
        stop()
    }

    /// The base URL, e.g. `http://127.0.0.1:4711`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// `http://127.0.0.1:port` + `path`.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Every request received so far, in arrival order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Connections accepted so far.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// Stops accepting and closes every open connection. Idempotent.
    public func stop() {
        let sockets: Set<Int32>? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            let open = state.openSockets
            state.openSockets.removeAll()
            return open
        }
        guard let sockets else { return }
        // The accept thread wakes up with an error and closes the listener.
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in sockets {
            shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections += 1
                state.openSockets.insert(fd)
                return true
            }
            guard accepted else {
                close(fd)
                close(listener)
                return
            }
            let thread = Thread { [self] in self.serve(fd) }
            thread.start()
        }
    }

    /// Closes a connection socket; only its own thread closes it, so `stop`
    /// (which merely shuts sockets down) never races a reused descriptor.
    private func finish(_ fd: Int32) {
        state.withLock { _ = $0.openSockets.remove(fd) }
        close(fd)
    }

    private func serve(_ fd: Int32) {
        guard let request = readRequest(fd) else {
            finish(fd)
            return
        }
        state.withLock { $0.requests.append(request) }
        switch handler(request) {
        case .bytes(let bytes):
            writeAll(fd, bytes)
            shutdown(fd, Int32(SHUT_WR))
            drain(fd)
        case .hang:
            // Wait until the client gives up or the server stops.
            drain(fd)
        case .close:
            break
        case .stream(let head, let chunk, let limit):
            if writeAll(fd, head) {
                var written = 0
                while written < limit, writeAll(fd, chunk) {
                    written += 1
                }
            }
        }
        finish(fd)
    }

    /// Reads until end of stream (the peer closed or `stop` shut the socket down).
    private func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            if count < 0 && errno == EINTR { continue }
            return
        }
    }

    @discardableResult
    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        while headerEnd == nil {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            data.append(contentsOf: buffer[0..<count])
            if data.first == 0x16 {
                // A TLS ClientHello (record type 22): report it as such, so a
                // plain-HTTP answer can be sent to a client expecting TLS.
                return Request(method: "TLS", target: "", headers: [], body: data)
            }
            headerEnd = Self.find([13, 10, 13, 10], in: data)
            if data.count > 1 << 20 { return nil }
        }
        guard let end = headerEnd else { return nil }
        let head = String(decoding: data[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (
                    String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                    String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
                ))
        }
        var request = Request(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: [])
        let length = Int(request.header("Content-Length") ?? "0") ?? 0
        var body = Array(data[(end + 4)...])
        while body.count < length {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            body.append(contentsOf: buffer[0..<count])
        }
        request.body = Array(body.prefix(length))
        return request
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count)
        where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }

    /// A port on 127.0.0.1 that nothing listens on (bound, then released).
    public static func closedPort() throws -> UInt16 {
        let server = try LoopbackServer { _ in .close }
        let port = server.port
        server.stop()
        return port
    }
}
