internal import CCurl
internal import CCurlShim
import Dispatch
import Foundation
import Synchronization

/// The connections one owner (a `PaymentKit`) keeps open between requests, so a payment's
/// second request to a host does not pay for a new TCP connection and TLS handshake.
///
/// Reuse is by keeping idle libcurl easy handles, each with its own live connection, per
/// origin (scheme, host, port): a request checks one out, and gives it back when it got a
/// complete answer. libcurl's shared connection cache (`CURL_LOCK_DATA_CONNECT`) is not
/// used: libcurl documents it as unsafe between threads that transfer at once. What is
/// shared across the handles, behind locks, is the TLS session cache (a new connection to a
/// host resumes the session of an earlier one, when the server issues tickets) and the DNS
/// cache.
///
/// An idle connection is reused only within ``maximumIdleTime`` of its last answer (libcurl
/// checks that it is still alive before it sends on it); older ones are closed when next seen.
/// Releasing the cache (the last transport holding it is gone, which for a kit means the kit
/// was released and its transfers ended) closes every connection it holds.
///
/// Which requests may use a reused connection is the transport's rule, not the cache's:
/// see ``CurlTransport``.
///
/// Threading: every member may be called from any thread.
public final class CurlConnectionCache: Sendable {
    /// How long, in seconds, an idle connection stays reusable. Default 15.
    public let maximumIdleTime: TimeInterval
    /// How many idle connections are kept per origin. Default 2.
    public let maximumIdleConnectionsPerOrigin: Int

    let share: CurlShare?
    private let idle = Mutex<[String: [IdleHandle]]>([:])
    /// Origins a connection is being opened to ahead of a request (``CurlTransport`` `prepareConnection`),
    /// each with the group a request waits on until that connection is checked in or given up.
    private let opening = Mutex<[String: DispatchGroup]>([:])
    private let counters = Mutex(CacheCounters())

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - maximumIdleTime: seconds an idle connection stays reusable (at least 1, at most 300).
    ///   - maximumIdleConnectionsPerOrigin: idle connections kept per origin (at least 1).
    public init(maximumIdleTime: TimeInterval = 15, maximumIdleConnectionsPerOrigin: Int = 2) {
        self.maximumIdleTime = maximumIdleTime.isFinite ? min(300, max(1, maximumIdleTime)) : 15
        self.maximumIdleConnectionsPerOrigin = max(1, maximumIdleConnectionsPerOrigin)
        share = CurlShare()
    }

    deinit {
        // Idle handles are dropped here; each one's curl_easy_cleanup closes its connection.
        closeIdleConnections()
    }

    /// Closes every idle connection now (connections in use are closed when their request ends
    /// instead of being kept).
    public func closeIdleConnections() {
        let dropped = idle.withLock { idle -> [String: [IdleHandle]] in
            defer { idle = [:] }
            return idle
        }
        withExtendedLifetime(dropped) {}
    }

    /// An idle handle for `origin` whose connection is still within the idle window, or `nil`.
    /// Handles past the window are closed on the way.
    func checkout(origin: String, now: TimeInterval) -> CurlEasyHandle? {
        let (found, stale) = idle.withLock { idle -> (CurlEasyHandle?, [IdleHandle]) in
            var list = idle[origin] ?? []
            let stale = list.filter { now - $0.since > maximumIdleTime }
            list.removeAll { now - $0.since > maximumIdleTime }
            let found = list.popLast()?.handle
            idle[origin] = list.isEmpty ? nil : list
            return (found, stale)
        }
        withExtendedLifetime(stale) {}  // closed outside the lock
        counters.withLock {
            if found != nil { $0.checkouts += 1 } else { $0.misses += 1 }
        }
        return found
    }

    /// Keeps `handle` (with the connection its last request left open) for a later request to
    /// `origin`; over the per-origin limit, the oldest idle one is closed instead.
    func checkin(_ handle: CurlEasyHandle, origin: String, now: TimeInterval) {
        let evicted = idle.withLock { idle -> IdleHandle? in
            var list = idle[origin] ?? []
            list.append(IdleHandle(handle: handle, since: now))
            let evicted = list.count > maximumIdleConnectionsPerOrigin ? list.removeFirst() : nil
            idle[origin] = list
            return evicted
        }
        withExtendedLifetime(evicted) {}
    }

    /// Claims the opening of a connection to `origin` ahead of a request: `false` when one is already
    /// being opened, or an idle one is still within the window (nothing to do). A `true` must be
    /// followed by ``finishOpening(origin:)``, whatever became of the attempt.
    func beginOpening(origin: String, now: TimeInterval) -> Bool {
        let hasIdle = idle.withLock { idle in
            (idle[origin] ?? []).contains { now - $0.since <= maximumIdleTime }
        }
        guard !hasIdle else { return false }
        return opening.withLock { opening in
            guard opening[origin] == nil else { return false }
            let group = DispatchGroup()
            group.enter()
            opening[origin] = group
            return true
        }
    }

    /// Ends the opening claimed by ``beginOpening(origin:now:)`` (after its handle, if any, was
    /// checked in), releasing every request waiting for it.
    func finishOpening(origin: String) {
        opening.withLock { $0.removeValue(forKey: origin) }?.leave()
    }

    /// Waits, at most `timeout` seconds, while a connection to `origin` is being opened ahead of a
    /// request; returns at once when none is. Blocking: only called on transfer threads.
    func awaitOpening(origin: String, timeout: TimeInterval) {
        guard let group = opening.withLock({ $0[origin] }), timeout > 0 else { return }
        _ = group.wait(timeout: .now() + min(timeout, 86_400))
    }

    /// Idle handles kept right now (tests).
    var idleCount: Int { idle.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Checkouts that found an idle handle, and ones that did not (tests).
    var counts: (reused: Int, missed: Int) { counters.withLock { ($0.checkouts, $0.misses) } }

    /// The cache key of a URL: lower-case scheme and host, and the port (default filled in).
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}

private struct IdleHandle: Sendable {
    let handle: CurlEasyHandle
    let since: TimeInterval
}

private struct CacheCounters: Sendable {
    var checkouts = 0
    var misses = 0
}

/// A libcurl share handle (TLS sessions and DNS, with locks; see the C shim). Every easy handle
/// attached to it holds a reference, so it is destroyed only after the last of them.
final class CurlShare: @unchecked Sendable {
    // Set once in init; libcurl's own locks (the shim's mutexes) guard what it points to.
    let pointer: OpaquePointer

    init?() {
        guard CurlGlobal.initialised, let made = ccurl_share_create() else { return nil }
        pointer = made
    }

    deinit { ccurl_share_destroy(pointer) }
}
