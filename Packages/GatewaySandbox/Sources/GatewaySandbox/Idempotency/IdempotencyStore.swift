import Foundation

/// The answers kept for `Idempotency-Key` (GATEWAY.md, "Common to every checkout-API call"),
/// as a value: events in, decisions out, no I/O. The server keeps it under its lock.
///
/// Per (payment, key) it holds the digest of the first request and, once that request was
/// handled, the answer the gateway meant to give (before any fault replaced it on the wire),
/// for `lifetime` from when it was stored. A request is first `admit`ted, then, when admitted
/// with `.handle`, `finish`ed with its answer.
struct IdempotencyStore: Sendable {
    /// Keys are scoped to a payment: the same key on two payments names two requests.
    struct Scope: Hashable, Sendable {
        let paymentId: String
        let key: String
    }

    /// What to do with a request that carries a key.
    enum Admission: Sendable {
        /// Nothing is stored for this key: handle the request, then call `finish`.
        case handle
        /// The same request was answered before: send this answer again, unchanged.
        case replay(HTTPResponse)
        /// The first request with this key is still being handled (409 `REQUEST_IN_PROGRESS`).
        case inProgress
        /// The key came with another method, path or body (422 `IDEMPOTENCY_KEY_REUSED`).
        case keyReused
    }

    private enum Entry: Sendable {
        case handling(RequestDigest)
        case stored(RequestDigest, answer: HTTPResponse, storedAt: Date)
    }

    /// How long an answer is kept: 24 hours.
    static let lifetime: TimeInterval = 24 * 60 * 60

    /// How often expired answers of other keys are dropped (the key asked for is checked each time).
    static let sweepInterval: TimeInterval = 60 * 60

    private var entries: [Scope: Entry] = [:]
    private var lastSweep: Date?

    /// The number of keys held (in progress or stored, expired ones not yet dropped included).
    var count: Int { entries.count }

    /// Whether an answer is stored: only when the request was applied (2xx, or the hosted page's
    /// 303). A refusal (4xx) changed nothing, so it is not kept and a repeat is handled afresh:
    /// a `409 CHALLENGE_NOT_COMPLETED` must not hide the buyer's later answer, and a
    /// `422 UNKNOWN_KEY` must not stand in the way of the card sent again to the new key.
    static func keepsAnswer(status: Int) -> Bool { (200..<400).contains(status) }

    /// Decides for one request with `key` whose method, path and body hash to `digest`.
    /// An answer stored `lifetime` ago or longer counts as absent (and is dropped).
    mutating func admit(_ scope: Scope, digest: RequestDigest, now: Date) -> Admission {
        sweepIfDue(now: now)
        if case .stored(_, _, let storedAt) = entries[scope], Self.isExpired(storedAt, now: now) {
            entries[scope] = nil
        }
        switch entries[scope] {
        case nil:
            entries[scope] = .handling(digest)
            return .handle
        case .handling(let first):
            return first == digest ? .inProgress : .keyReused
        case .stored(let first, let answer, _):
            return first == digest ? .replay(answer) : .keyReused
        }
    }

    /// Ends a request admitted with `.handle`: keeps `answer` (the one the gateway meant to
    /// give, before any fault replaced it on the wire) when `keepsAnswer`, else forgets the key.
    mutating func finish(_ scope: Scope, answer: HTTPResponse, now: Date) {
        guard case .handling(let digest) = entries[scope] else {
            // Only `admit` creates an entry in `.handling`, and only one request holds it.
            assertionFailure("finish without admit for a key")
            return
        }
        if answer.delivery == .complete, Self.keepsAnswer(status: answer.status) {
            entries[scope] = .stored(digest, answer: answer, storedAt: now)
        } else {
            entries[scope] = nil
        }
    }

    private static func isExpired(_ storedAt: Date, now: Date) -> Bool {
        now.timeIntervalSince(storedAt) >= lifetime
    }

    /// Drops every expired answer, at most once per `sweepInterval`, so memory stays bounded
    /// without scanning all keys on every request.
    private mutating func sweepIfDue(now: Date) {
        if let lastSweep, now.timeIntervalSince(lastSweep) < Self.sweepInterval, now >= lastSweep { return }
        lastSweep = now
        entries = entries.filter { _, entry in
            switch entry {
            case .handling: true
            case .stored(_, _, let storedAt): !Self.isExpired(storedAt, now: now)
            }
        }
    }
}
