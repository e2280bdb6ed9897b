import EGWWire

/// The sandbox's seeded generator: the project's one SplitMix64, so a run is replayed from its seed.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    /// A uniform value in [0, 1) with 53 bits of precision.
    mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// `count` random bytes as lower-case hex.
    mutating func hex(bytes count: Int) -> String {
        var out = ""
        var remaining = count
        while remaining > 0 {
            var word = next()
            for _ in 0..<min(8, remaining) {
                let byte = UInt8(truncatingIfNeeded: word)
                word >>= 8
                out += byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
            }
            remaining -= min(8, remaining)
        }
        return out
    }

    /// Derives an independent seed for a sub-stream (fault number `index` of a sandbox seeded with `seed`).
    static func derive(_ seed: UInt64, _ index: UInt64) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (index &* 0xD1B5_4A32_D192_ED03))
        return mixer.next()
    }
}
