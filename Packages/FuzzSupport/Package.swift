// swift-tools-version:6.0
import PackageDescription

// The driver every package's `Fuzz/` harness shares: the libFuzzer entry under `make fuzz` and the
// corpus and regression replay under `swift test`. Fuzzing only: no library product of the SDK
// depends on it (the ThreadSanitizer shim every test binary links lives in TestSupport).
let package = Package(
    name: "FuzzSupport",
    products: [
        .library(name: "FuzzSupport", targets: ["FuzzSupport"])
    ],
    targets: [
        .systemLibrary(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"]),
        .testTarget(name: "FuzzSupportTests", dependencies: ["FuzzSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
