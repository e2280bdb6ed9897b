import Foundation
import Synchronization

/// The card-encryption keys a `PaymentKit` keeps between its payments, per `checkoutBaseURL`: the one
/// storage of the key cache, and only storage. What is kept, for how long, and when a key is dropped is
/// the card machine's decision (`KeyCacheChange`), which the executor performs here; the run reads the
/// cache once, when it starts (`FlowEvent.start(cachedKey:)`).
///
/// Thread-safe (one mutex): a kit's payments, one at a time, may run on different queues.
final class EncryptionKeyCache: Sendable {
    private struct Entry {
        var key: EncryptionKey
        /// On the run's monotonic clock (`FlowClock.now`).
        var expires: TimeInterval
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The key kept for `base` while `now` is before its expiry; an expired key is forgotten.
    func key(for base: URL, now: TimeInterval) -> EncryptionKey? {
        entries.withLock { entries in
            guard let entry = entries[base.absoluteString] else { return nil }
            guard now < entry.expires else {
                entries[base.absoluteString] = nil
                return nil
            }
            return entry.key
        }
    }

    /// Keeps `key` for `base` until `expires`, replacing any key kept before.
    func store(_ key: EncryptionKey, for base: URL, until expires: TimeInterval) {
        entries.withLock { $0[base.absoluteString] = Entry(key: key, expires: expires) }
    }

    /// Forgets the key kept for `base`, if any.
    func remove(for base: URL) {
        _ = entries.withLock { $0.removeValue(forKey: base.absoluteString) }
    }
}
