internal import CFreedMemoryScan

/// Proof that an operation gives no copy of a secret back to the allocator: the test binary that links this
/// interposes `free` and `realloc`, and while ``scan(for:_:)`` runs `body`, every block the calling thread
/// releases is searched for any 16-byte run of a needle (any 23-byte copy of one, and any 16-byte prefix, is
/// found) before glibc gets it back. Blocks handed out during the scan are zeroed over their whole usable size,
/// so memory someone released unwiped earlier cannot make a hit of a block that never held the secret. Only the
/// calling thread's allocations and releases count, so tests on other threads do not disturb a scan; scans
/// themselves share one slot, so run the suites that use it `.serialized`.
///
/// Not available under ASan, TSan or MSan (their runtimes own `free`): check ``isAvailable`` and skip.
public enum FreedMemoryScan {
    /// What one scan saw.
    public struct Result: Sendable, Equatable {
        /// Blocks the thread released while the scan ran (frees, and reallocs that moved a block).
        public var releases: Int
        /// Their usable bytes, every one searched.
        public var bytesScanned: Int
        /// Released blocks that held a run of a needle.
        public var hits: Int
    }

    /// True when `free` is interposed in this build (false under a sanitizer).
    public static var isAvailable: Bool { egw_freescan_available() == 1 }

    /// Runs `body` with the scan armed on this thread for `needles` (at most 8, each up to 2,048 bytes).
    /// The needles are copied first; the caller's arrays are not hits unless released inside `body`.
    public static func scan<E: Error>(
        for needles: [[UInt8]], _ body: () throws(E) -> Void
    ) throws(E) -> Result {
        precondition(needles.count <= 8, "at most 8 needles")
        withExtendedLifetime(needles) {
            let pointers: [UnsafePointer<UInt8>?] = needles.map { needle in
                needle.withUnsafeBufferPointer { $0.baseAddress }
            }
            let lengths = needles.map(\.count)
            egw_freescan_begin(pointers, lengths, Int32(needles.count))
        }
        do {
            try body()
        } catch {
            _ = egw_freescan_end()
            throw error
        }
        let seen = egw_freescan_end()
        return Result(releases: seen.releases, bytesScanned: seen.bytesScanned, hits: seen.hits)
    }
}
