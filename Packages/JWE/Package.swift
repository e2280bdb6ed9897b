// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "JWE",
    products: [
        .library(name: "JWE", targets: ["JWE"]),
        .executable(name: "egw-jwe", targets: ["egw-jwe"]),
    ],
    dependencies: [
        .package(path: "../EGWWire"),
        .package(path: "../FuzzSupport"),
        .package(path: "../TestSupport"),
    ],
    targets: [
        // The system libcrypto (OpenSSL 3). Only the JWE target imports it, with `internal import`.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "JWE", dependencies: ["COpenSSL", .product(name: "EGWWire", package: "EGWWire")]),
        .executableTarget(name: "egw-jwe", dependencies: ["JWE"]),
        // Benchmarks only (bench.sh builds it by target name): not a product, not part of the library.
        .executableTarget(name: "jwe-bench", dependencies: ["JWE", "COpenSSL"]),
        // The fork-safety check of ForkTests, run as a single-threaded process of its own (not a product).
        .executableTarget(name: "jwe-fork-probe", dependencies: ["JWE"]),
        .executableTarget(
            name: "JWEFuzz",
            dependencies: [
                "JWE", .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "FuzzSupport", package: "FuzzSupport"),
            ],
            path: "Fuzz/Harness"
        ),
        .testTarget(
            name: "JWETests",
            dependencies: [
                "JWE", "COpenSSL", "jwe-fork-probe", "egw-jwe", "JWEFuzz",
                .product(name: "EGWWire", package: "EGWWire"), .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
                .product(name: "FreedMemoryScan", package: "TestSupport"),
            ],
            exclude: ["Vectors"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
