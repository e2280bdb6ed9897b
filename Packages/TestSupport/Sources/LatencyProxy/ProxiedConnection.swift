import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One way bytes travel through the proxy.
enum Direction: Sendable {
    case toServer
    case toClient
}

/// A client connection and its upstream connection, pumped by two threads (one per direction).
final class ProxiedConnection: Sendable {
    let id: Int
    private let client: Int32
    private let server: Int32
    private let delay: Duration
    /// The earliest a client byte may reach the server (accept time plus the modelled TCP handshake).
    private let clientBytesNotBefore: ContinuousClock.Instant
    private let killed = Atomic(false)
    private let finishedPumps = Atomic(0)
    /// Whether the two descriptors are still open; `kill` and `closeSockets` check it under the
    /// lock so that a descriptor number is never shut down after it was closed (and reused).
    private let socketsOpen = Mutex(true)
    /// The session id of the ClientHello, to recognise a TLS 1.2 resumption in the ServerHello.
    let clientSessionID = Mutex<[UInt8]>([])

    init(id: Int, client: Int32, server: Int32, delay: Duration, clientBytesNotBefore: ContinuousClock.Instant) {
        self.id = id
        self.client = client
        self.server = server
        self.delay = delay
        self.clientBytesNotBefore = clientBytesNotBefore
    }

    /// Closes both sides now: pending bytes are dropped and both pumps end.
    func kill() {
        killed.store(true, ordering: .sequentiallyConsistent)
        socketsOpen.withLock { open in
            guard open else { return }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
        }
    }

    /// Records that one pump ended; `true` for the second one (which then closes the sockets).
    func finish() -> Bool {
        finishedPumps.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue == 2
    }

    func closeSockets() {
        socketsOpen.withLock { open in
            guard open else { return }
            open = false
            close(client)
            close(server)
        }
    }

    /// Forwards one direction until its source closes (then half-closes the destination) or the
    /// connection is killed. `inspect` sees every chunk read, before it is queued.
    func run(_ direction: Direction, inspect: ([UInt8]) -> Void) {
        let (source, destination) = direction == .toServer ? (client, server) : (server, client)
        let clock = ContinuousClock()
        var queue: [(due: ContinuousClock.Instant, bytes: [UInt8])] = []
        var head = 0
        var sourceOpen = true
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while !killed.load(ordering: .sequentiallyConsistent) {
            let now = clock.now
            while head < queue.count, queue[head].due <= now {
                guard Socket.sendAll(destination, queue[head].bytes) else {
                    kill()
                    return
                }
                head += 1
            }
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
                if !sourceOpen {
                    shutdown(destination, Int32(SHUT_WR))
                    return
                }
            }
            // Wake for the next due chunk (rounded up to the millisecond poll counts in), and at
            // least every quarter second to notice `kill`.
            var timeout: Int32 = 250
            if head < queue.count {
                let wait = (queue[head].due - now).components
                let milliseconds =
                    wait.seconds * 1000 + (wait.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                timeout = Int32(clamping: max(0, min(250, milliseconds)))
            }
            guard sourceOpen else {
                usleep(UInt32(timeout) * 1000)
                continue
            }
            var descriptor = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, timeout)
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                let read = clock.now
                let start = direction == .toServer ? max(read, clientBytesNotBefore) : read
                let chunk = Array(buffer[0..<count])
                inspect(chunk)
                queue.append((start + delay, chunk))
            } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                sourceOpen = false
            }
        }
    }
}

/// The few socket calls the proxy makes.
enum Socket {
    static func address(_ host: String, _ port: UInt16) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        return address
    }

    /// A listening socket on 127.0.0.1 and the port it got.
    static func listen(port: UInt16) throws(LatencyProxyError) -> (Int32, UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw LatencyProxyError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard var address = address("127.0.0.1", port) else {
            close(descriptor)
            throw LatencyProxyError("no loopback address")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(descriptor, 128) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw LatencyProxyError("cannot listen on 127.0.0.1:\(port): \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// A connected socket to `host:port` with Nagle's algorithm off, or `nil`.
    static func connect(_ host: String, _ port: UInt16) -> Int32? {
        guard var address = address(host, port) else { return nil }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        noDelay(descriptor)
        return descriptor
    }

    /// Turns Nagle's algorithm off: the proxy decides when bytes go, the kernel should not hold them.
    static func noDelay(_ descriptor: Int32) {
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes all of `bytes`; `false` when the peer is gone.
    static func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
