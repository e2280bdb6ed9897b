/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014), the one
/// seeded generator of the project's tests, benchmarks and fault schedules.
///
/// The whole state is one `UInt64`, so a run is replayed from its seed. Not for secrets: the output is
/// predictable from a few values.
///
/// ```swift
/// var random = SplitMix64(seed: 2026)
/// let digit = Int.random(in: 0...9, using: &random)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that starts from `seed`; two generators with the same seed give the same values.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
