// swift-tools-version:6.0
import PackageDescription

// The driver every package's `Fuzz/` harness shares: the libFuzzer entry under `make fuzz` and the
// corpus and regression replay under `swift test`; and, linked into every test binary with it, the
// shim that makes Synchronization.Mutex visible to ThreadSanitizer; the freed-memory scan that proves
// secrets are wiped before their memory is released. Tests and fuzzing only: no
// library product of the SDK depends on it.
let package = Package(
    name: "FuzzSupport",
    products: [
        .library(name: "FuzzSupport", targets: ["FuzzSupport"]),
        // Interposes free() in the test binary that links it: link it only into tests that use it.
        .library(name: "FreedMemoryScan", targets: ["FreedMemoryScan"]),
    ],
    targets: [
        .systemLibrary(name: "CLibFuzzer"),
        .target(name: "CMutexVisibility"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer", "CMutexVisibility"]),
        .target(name: "CFreedMemoryScan"),
        .target(name: "FreedMemoryScan", dependencies: ["CFreedMemoryScan"]),
        .testTarget(name: "FuzzSupportTests", dependencies: ["FuzzSupport", "FreedMemoryScan"]),
    ],
    swiftLanguageModes: [.v6]
)
