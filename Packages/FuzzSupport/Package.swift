// swift-tools-version:6.0
import PackageDescription

// The driver every package's `Fuzz/` harness shares: the libFuzzer entry under `make fuzz` and the
// corpus and regression replay under `swift test`; and, linked into every test binary with it, the
// shim that makes Synchronization.Mutex visible to ThreadSanitizer. Tests and fuzzing only: no
// library product of the SDK depends on it.
let package = Package(
    name: "FuzzSupport",
    products: [
        .library(name: "FuzzSupport", targets: ["FuzzSupport"])
    ],
    targets: [
        .systemLibrary(name: "CLibFuzzer"),
        .target(name: "CMutexVisibility"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer", "CMutexVisibility"]),
        .testTarget(name: "FuzzSupportTests", dependencies: ["FuzzSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
