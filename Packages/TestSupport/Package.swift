// swift-tools-version:6.0
import PackageDescription

// TestSupport: what the suites of several packages share, once, and no SDK type: the loopback HTTP
// server the transport and plain-page tests talk to, the latency proxy the connection and round-trip
// measurements go through, and the shim that makes Synchronization.Mutex visible to
// ThreadSanitizer (every test binary links it; see Sources/CMutexVisibility). No library product of
// the SDK depends on this package; tests and benchmarks only.
let package = Package(
    name: "TestSupport",
    products: [
        .library(name: "MutexVisibility", targets: ["CMutexVisibility"]),
        .library(name: "LatencyProxy", targets: ["LatencyProxy"]),
        .library(name: "LoopbackTestServer", targets: ["LoopbackTestServer"]),
    ],
    targets: [
        .target(name: "CMutexVisibility"),
        .target(name: "LatencyProxy"),
        .target(name: "LoopbackTestServer"),
        .testTarget(
            name: "TestSupportTests", dependencies: ["LatencyProxy", "LoopbackTestServer", "CMutexVisibility"]),
    ],
    swiftLanguageModes: [.v6]
)
