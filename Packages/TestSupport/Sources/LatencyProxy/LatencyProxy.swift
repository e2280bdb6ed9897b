import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on loopback that delays every byte by a fixed one-way time, for measuring how
/// many round trips a client makes (benchmarks) and for closing its connections on demand
/// (tests).
///
/// ```swift
/// let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port, oneWayDelay: .milliseconds(25)))
/// // point the client at 127.0.0.1:proxy.port (an HTTPS client checks the server's
/// // certificate as usual: the proxy forwards TLS untouched)
/// proxy.statistics       // connections, TLS handshakes (full and resumed), bytes each way
/// proxy.stop()
/// ```
///
/// Model: each chunk read from one side is written to the other `oneWayDelay` later, in order.
/// With ``Configuration/modelsTCPHandshake`` (default) a new connection's first bytes to the
/// server also wait one round trip, as the client's SYN / SYN-ACK would cost: the client's
/// `connect` returns at once on loopback, so without it a fresh connection would look a round
/// trip cheaper than it is.
///
/// TLS is only looked at, never changed: the first record from each side is parsed to count
/// ClientHellos (one per TLS handshake) and to tell a resumed handshake (TLS 1.3 with a
/// pre-shared key, or TLS 1.2 with the session id echoed) from a full one.
///
/// Threading: every member may be called from any thread. Each connection runs on two threads
/// of its own (one per direction); `stop()` ends them all.
public final class LatencyProxy: Sendable {
    /// How to start a proxy.
    public struct Configuration: Sendable {
        /// Where connections are forwarded: a numeric IPv4 address. Default `127.0.0.1`.
        public var targetHost: String
        /// The port connections are forwarded to.
        public var targetPort: UInt16
        /// Added to every byte in each direction (half the round trip time). Default zero.
        public var oneWayDelay: Duration
        /// The port to listen on (127.0.0.1); 0 (default) picks a free one.
        public var listenPort: UInt16
        /// Whether a new connection's first client bytes wait one extra round trip (the TCP
        /// handshake). Default `true`.
        public var modelsTCPHandshake: Bool

        /// A configuration; unspecified members take their defaults.
        public init(
            targetHost: String = "127.0.0.1", targetPort: UInt16, oneWayDelay: Duration = .zero,
            listenPort: UInt16 = 0, modelsTCPHandshake: Bool = true
        ) {
            self.targetHost = targetHost
            self.targetPort = targetPort
            self.oneWayDelay = oneWayDelay
            self.listenPort = listenPort
            self.modelsTCPHandshake = modelsTCPHandshake
        }
    }

    /// The port the proxy listens on (127.0.0.1).
    public let port: UInt16
    /// The configuration it runs with.
    public let configuration: Configuration

    private let listener: Int32
    private let state = Mutex(ProxyState())
    private let counters = Mutex(LatencyProxyStatistics())
    /// Signalled when a thread of the proxy ends, for `stop()`.
    private let threadsEnded = NSCondition()
    /// The kernel thread ids of every thread the proxy started, so tests can ask the kernel
    /// (`/proc/self/task`) whether exactly those threads are gone, whatever else the process runs.
    let startedThreadIDs = Mutex<[Int32]>([])

    /// Starts listening and forwarding; returns once the socket listens.
    ///
    /// - Throws: `LatencyProxyError` when the target is not a numeric IPv4 address, the delay is
    ///   negative, or the listening socket cannot be opened.
    public init(configuration: Configuration) throws(LatencyProxyError) {
        guard configuration.oneWayDelay >= .zero else { throw LatencyProxyError("the delay must not be negative") }
        guard Socket.address(configuration.targetHost, configuration.targetPort) != nil else {
            throw LatencyProxyError("the target \(configuration.targetHost) is not a numeric IPv4 address")
        }
        let (listener, port) = try Socket.listen(port: configuration.listenPort)
        self.listener = listener
        self.port = port
        self.configuration = configuration
        state.withLock { $0.threads = 1 }
        let thread = Thread { [self] in
            noteThreadStarted()
            acceptLoop()
        }
        thread.name = "egw.proxy.accept"
        thread.start()
    }

    deinit { stop() }

    /// What the proxy has seen since it started or ``resetStatistics()`` was called.
    public var statistics: LatencyProxyStatistics {
        var copy = counters.withLock { $0 }
        copy.openConnections = state.withLock { $0.connections.count }
        return copy
    }

    /// Sets every counter back to zero (open connections stay open).
    public func resetStatistics() { counters.withLock { $0 = LatencyProxyStatistics() } }

    /// Closes every open connection at once, both sides, dropping bytes still being delayed:
    /// the client sees the connection closed as if the server had closed it, and the server
    /// sees the client go. New connections are accepted as before.
    public func closeAllConnections() {
        let open = state.withLock { Array($0.connections.values) }
        for connection in open { connection.kill() }
    }

    /// Stops listening, closes every connection and waits (up to 5 seconds) for the proxy's
    /// threads to end; idempotent.
    public func stop() {
        let first = state.withLock { current -> Bool in
            defer { current.stopping = true }
            return !current.stopping
        }
        if first {
            // shutdown wakes the thread blocked in accept(); the accept thread closes the socket.
            shutdown(listener, Int32(SHUT_RDWR))
        }
        closeAllConnections()
        let deadline = Date(timeIntervalSinceNow: 5)
        threadsEnded.lock()
        while state.withLock({ $0.threads }) > 0, threadsEnded.wait(until: deadline) {}
        threadsEnded.unlock()
    }

    private func noteThreadStarted() {
        // /proc/thread-self names the calling thread: "<pid>/task/<tid>".
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        guard let id = link.split(separator: "/").last.flatMap({ Int32($0) }) else { return }
        startedThreadIDs.withLock { $0.append(id) }
    }

    private func threadEnded() {
        threadsEnded.lock()
        state.withLock { $0.threads -= 1 }
        threadsEnded.broadcast()
        threadsEnded.unlock()
    }

    private func acceptLoop() {
        defer {
            close(listener)
            threadEnded()
        }
        while true {
            let client = accept(listener, nil, nil)
            let accepted = ContinuousClock.now
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Socket.noDelay(client)
            guard let server = Socket.connect(configuration.targetHost, configuration.targetPort) else {
                close(client)
                continue
            }
            let handshakeCost = configuration.modelsTCPHandshake ? configuration.oneWayDelay * 2 : .zero
            let connection = state.withLock { current -> ProxiedConnection? in
                guard !current.stopping else { return nil }
                current.nextID += 1
                let made = ProxiedConnection(
                    id: current.nextID, client: client, server: server, delay: configuration.oneWayDelay,
                    clientBytesNotBefore: accepted + handshakeCost)
                current.connections[made.id] = made
                current.threads += 2
                return made
            }
            guard let connection else {
                close(client)
                close(server)
                return
            }
            counters.withLock { $0.connections += 1 }
            for direction in [Direction.toServer, .toClient] {
                let thread = Thread { [self] in
                    noteThreadStarted()
                    pump(connection, direction)
                    threadEnded()
                }
                thread.name = "egw.proxy.pump"
                thread.start()
            }
        }
    }

    private func pump(_ connection: ProxiedConnection, _ direction: Direction) {
        var inspector = TLSRecordInspector()
        connection.run(direction) { bytes in
            counters.withLock {
                if direction == .toServer { $0.bytesToServer += bytes.count } else { $0.bytesToClient += bytes.count }
            }
            guard let hello = inspector.feed(bytes) else { return }
            switch (direction, hello) {
            case (.toServer, .client(let sessionID)):
                connection.clientSessionID.withLock { $0 = sessionID }
                counters.withLock { $0.tlsHandshakes += 1 }
            case (.toClient, .server(let resumed, let echoedSessionID)):
                let clientID = connection.clientSessionID.withLock { $0 }
                let isResumed = resumed ?? (!echoedSessionID.isEmpty && echoedSessionID == clientID)
                if isResumed { counters.withLock { $0.resumedTLSHandshakes += 1 } }
            default: break
            }
        }
        if connection.finish() {
            connection.closeSockets()
            _ = state.withLock { $0.connections.removeValue(forKey: connection.id) }
        }
    }
}

/// What a ``LatencyProxy`` has counted.
public struct LatencyProxyStatistics: Sendable, Equatable, CustomStringConvertible {
    /// TCP connections accepted (each one forwarded to the target).
    public var connections = 0
    /// TLS handshakes begun: connections whose first client record was a ClientHello.
    public var tlsHandshakes = 0
    /// Of those, the handshakes the server answered as a resumption (no certificate sent).
    public var resumedTLSHandshakes = 0
    /// Connections open right now.
    public var openConnections = 0
    /// Bytes received from clients for the server (counted when read, so bytes still being
    /// delayed are included, and bytes dropped by ``LatencyProxy/closeAllConnections()`` too).
    public var bytesToServer = 0
    /// Bytes received from the server for clients (counted the same way).
    public var bytesToClient = 0

    /// A statistics value with every counter at zero.
    public init() {}

    /// `3 connections, 3 TLS handshakes (1 resumed), 1 open, 2048 B up, 4096 B down`.
    public var description: String {
        "\(connections) connections, \(tlsHandshakes) TLS handshakes (\(resumedTLSHandshakes) resumed), "
            + "\(openConnections) open, \(bytesToServer) B up, \(bytesToClient) B down"
    }
}

/// Why a ``LatencyProxy`` could not start.
public struct LatencyProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A sentence a developer can act on.
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    /// The reason.
    public var description: String { reason }
}

private struct ProxyState: Sendable {
    var connections: [Int: ProxiedConnection] = [:]
    var nextID = 0
    var threads = 0
    var stopping = false
}
