import FreedMemoryScan
import Testing

/// The scan can fail: what it must find, it finds; what was wiped, or released on another thread, it does not.
@Suite("Freed-memory scan", .serialized, .enabled(if: FreedMemoryScan.isAvailable, "free() is not interposed"))
struct FreedMemoryScanTests {
    /// 64 bytes no allocator or runtime writes by chance.
    static let secret: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

    @Test func findsACopyReleasedUnwiped() {
        let seen = FreedMemoryScan.scan(for: [Self.secret]) {
            let copy = Array(Self.secret) + [1]
            #expect(copy.count == 65)
        }
        #expect(seen.releases >= 1)
        #expect(seen.hits == 1)
    }

    @Test func findsAPrefixAndAMiddleRun() {
        let seen = FreedMemoryScan.scan(for: [Self.secret]) {
            #expect(Array(Self.secret.prefix(16)).count == 16)
            #expect(Array(Self.secret[20..<43]).count == 23)
        }
        #expect(seen.hits == 2)
    }

    @Test func ignoresAWipedCopyAndShortRuns() {
        let seen = FreedMemoryScan.scan(for: [Self.secret]) {
            var copy = Array(Self.secret) + [1]
            for index in copy.indices { copy[index] = 0 }
            #expect(copy.count == 65)
            #expect(Array(Self.secret[1..<16]).count == 15)
        }
        #expect(seen.releases >= 2)
        #expect(seen.hits == 0)
    }
}
