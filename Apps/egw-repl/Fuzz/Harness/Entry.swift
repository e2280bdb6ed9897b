import FuzzSupport

/// The executable's entry: SwiftPM links an executable target's entry point as `<target>_main`.
@_cdecl("ReplCoreFuzz_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzDriver.main(argc: argc, argv: argv, targets: ReplCoreFuzz.targets)
}
