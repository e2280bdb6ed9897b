// swift-tools-version:6.0
import PackageDescription

// TestSupport: what the suites of several packages share, once, and no SDK type: the loopback HTTP
// server the transport and plain-page tests talk to, the latency proxy the connection and round-trip
// measurements go through, the shim that makes Synchronization.Mutex visible to ThreadSanitizer
// (every test binary links it; see Sources/CMutexVisibility), and the freed-memory scan that proves a
// secret is wiped before its memory is released (it interposes free(): link it only into the tests
// that use it), and the one state explorer every lifecycle's exploration walks with. No library
// product of the SDK depends on this package; tests and benchmarks only.
let package = Package(
    name: "TestSupport",
    products: [
        .library(name: "MutexVisibility", targets: ["CMutexVisibility"]),
        .library(name: "LatencyProxy", targets: ["LatencyProxy"]),
        .library(name: "LoopbackTestServer", targets: ["LoopbackTestServer"]),
        .library(name: "FreedMemoryScan", targets: ["FreedMemoryScan"]),
        .library(name: "StateExplorer", targets: ["StateExplorer"]),
    ],
    targets: [
        .target(name: "CMutexVisibility"),
        .target(name: "LatencyProxy"),
        .target(name: "LoopbackTestServer"),
        .target(name: "CFreedMemoryScan"),
        .target(name: "FreedMemoryScan", dependencies: ["CFreedMemoryScan"]),
        .target(name: "StateExplorer"),
        .testTarget(
            name: "TestSupportTests",
            dependencies: [
                "LatencyProxy", "LoopbackTestServer", "CMutexVisibility", "FreedMemoryScan", "StateExplorer",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
