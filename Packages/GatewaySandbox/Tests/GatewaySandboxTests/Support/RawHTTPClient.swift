import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A response read off the socket by `RawHTTPClient`, parsed independently of the server.
struct RawResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The Content-Length the server announced, if any.
    var declaredLength: Int?

    /// False when the connection closed before the announced body arrived.
    var isComplete: Bool { declaredLength.map { $0 == body.count } ?? true }

    func header(_ name: String) -> String? {
        headers.first(where: { $0.name.lowercased() == name.lowercased() })?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body through Foundation's JSONSerialization (a second JSON implementation).
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw RawHTTPError.malformed("body is not a JSON object: \(text)")
        }
        return object
    }

    /// `error.code` of a gateway error body.
    var errorCode: String? {
        ((try? json())?["error"] as? [String: Any])?["code"] as? String
    }
}

enum RawHTTPError: Error, Equatable {
    case connect(Int32)
    case send(Int32)
    /// The server closed the connection without sending a byte.
    case noResponse
    case malformed(String)
}

/// A tiny blocking HTTP/1.1 client over a plain socket: one request per connection
/// (`Connection: close`), 10-second socket timeouts, exact bytes in and out. It lets tests
/// see what a library client would hide: a dropped connection, a truncated body.
enum RawHTTPClient {
    static func request(
        _ method: String, _ url: URL, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> RawResponse {
        let port = UInt16(url.port ?? 80)
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(url.host ?? "127.0.0.1"):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return try exchange(port: port, bytes: Array(head.utf8) + (body ?? []))
    }

    /// Sends `bytes` as they are and reads until the server closes.
    static func exchange(port: UInt16, bytes: [UInt8]) throws -> RawResponse {
        let raw = try roundTrip(port: port, bytes: bytes)
        guard !raw.isEmpty else { throw RawHTTPError.noResponse }
        return try parse(raw)
    }

    static func roundTrip(port: UInt16, bytes: [UInt8]) throws -> [UInt8] {
        let fd = try connectedSocket(port: port)
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw RawHTTPError.send(errno) }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return received
    }

    /// A socket connected to 127.0.0.1:`port` with 10-second send and receive timeouts.
    static func connectedSocket(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTPError.connect(errno) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            throw RawHTTPError.connect(error)
        }
        return fd
    }

    static func parse(_ raw: [UInt8]) throws -> RawResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard
            let end = (0...(max(0, raw.count - 4))).first(where: {
                Array(raw[$0..<min(raw.count, $0 + 4)]) == separator
            })
        else { throw RawHTTPError.malformed("no end of header") }
        let head = String(decoding: raw[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw RawHTTPError.malformed("bad status line \(head[0])")
        }
        var headers: [(name: String, value: String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let declared = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap { Int($0.value) }
        return RawResponse(status: status, headers: headers, body: Array(raw[(end + 4)...]), declaredLength: declared)
    }
}
