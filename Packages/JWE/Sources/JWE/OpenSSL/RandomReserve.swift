internal import COpenSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts forks; a child process sees a different value than its parent had, so random bytes a parent
/// drew in advance are never used by both processes.
let forkGeneration = Atomic<Int>(0)

/// Registers the fork handler once per process.
let forkHandlerRegistered: Bool = {
    pthread_atfork(nil, nil) {
        forkGeneration.add(1, ordering: .relaxed)
    } == 0
}()

/// Bytes drawn from `RAND_priv_bytes` in one call and handed out in small pieces.
///
/// Each call to `RAND_priv_bytes` in OpenSSL 3 costs about as much as a few kilobytes of output (locking,
/// a fork check, re-keying the DRBG), and one message needs 76 bytes (CEK, IV, OAEP seed), so drawing 16 messages'
/// worth at once removes most of that cost. Bytes handed out are wiped from the reserve at once; the reserve is
/// refilled after a fork (so parent and child never share bytes) and wiped on deinit.
///
/// Not thread-safe: owned by one ``CryptoWorkspace``.
final class RandomReserve {
    private let storage: UnsafeMutableRawBufferPointer
    private var offset: Int
    private var generation: Int

    init(capacity: Int = 76 * 16) {
        _ = forkHandlerRegistered
        storage = .allocate(byteCount: capacity, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        offset = capacity  // empty: filled on first use
        generation = forkGeneration.load(ordering: .relaxed)
    }

    deinit {
        OPENSSL_cleanse(storage.baseAddress!, storage.count)
        storage.deallocate()
    }

    /// Bytes left before the next refill.
    var remaining: Int { storage.count - offset }

    /// Writes `count` fresh random bytes at `destination` (count at most the capacity).
    @inline(__always)
    func take(_ count: Int, into destination: UnsafeMutableRawPointer) throws(JWEError) {
        let current = forkGeneration.load(ordering: .relaxed)
        if offset + count > storage.count || current != generation {
            guard RAND_priv_bytes(storage.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(storage.count)) == 1
            else {
                throw OpenSSLErrorQueue.error(.internalFailure, "the random generator failed")
            }
            offset = 0
            generation = current
        }
        let source = storage.baseAddress! + offset
        destination.copyMemory(from: source, byteCount: count)
        OPENSSL_cleanse(source, count)
        offset += count
    }
}
