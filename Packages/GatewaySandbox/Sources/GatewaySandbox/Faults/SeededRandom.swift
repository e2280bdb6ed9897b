/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
/// a tiny generator whose whole state is one `UInt64`, so a run is replayed from its seed.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

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
        var mixer = SeededRandom(seed: seed ^ (index &* 0xD1B5_4A32_D192_ED03))
        return mixer.next()
    }
}
