import EGWWire
import Testing

@Suite struct SplitMix64Tests {
    /// The first five outputs of Vigna's reference `splitmix64.c` (https://prng.di.unimi.it/splitmix64.c),
    /// obtained by compiling that C with gcc and printing `next()` five times after setting `x` to the seed;
    /// not computed with this package.
    static let reference: [(seed: UInt64, outputs: [UInt64])] = [
        (
            0,
            [
                0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F, 0xF88B_B8A8_724C_81EC,
                0x1B39_896A_51A8_749B,
            ]
        ),
        (
            1,
            [
                0x910A_2DEC_8902_5CC1, 0xBEEB_8DA1_658E_EC67, 0xF893_A2EE_FB32_555E, 0x71C1_8690_EE42_C90B,
                0x71BB_54D8_D101_B5B9,
            ]
        ),
    ]

    @Test(arguments: 0..<2)
    func firstOutputsMatchTheReferenceImplementation(index: Int) {
        let (seed, outputs) = Self.reference[index]
        var random = SplitMix64(seed: seed)
        #expect((0..<outputs.count).map { _ in random.next() } == outputs)
    }

    @Test func sameSeedReplaysTheSameValues() {
        var first = SplitMix64(seed: 0x5EED)
        var second = SplitMix64(seed: 0x5EED)
        let a = (0..<100).map { _ in Int.random(in: 0..<1000, using: &first) }
        let b = (0..<100).map { _ in Int.random(in: 0..<1000, using: &second) }
        #expect(a == b)
    }
}
