// swift-tools-version:6.0
import PackageDescription

// GatewaySandbox: a loopback payment gateway (libmicrohttpd) that plays every host of
// GATEWAY.md, plus the `egw-sandbox` executable.
let package = Package(
    name: "GatewaySandbox",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GatewaySandbox", targets: ["GatewaySandbox"]),
        .executable(name: "egw-sandbox", targets: ["egw-sandbox"]),
        // The sandbox's endpoint and fault names, with no dependency (the shell's pure interpreter).
        .library(name: "SandboxVocabulary", targets: ["SandboxVocabulary"]),
    ],
    dependencies: [
        .package(path: "../EGWWire"),
        .package(path: "../StatusMapping"),
        .package(path: "../JWE"),
        .package(path: "../FuzzSupport"),
        .package(path: "../TestSupport"),
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(name: "CMicroHTTPDShim", dependencies: ["CMicroHTTPD"]),
        // The system libcrypto (OpenSSL 3), for SHA-256 only; reached with `internal import`.
        .systemLibrary(
            name: "CSandboxOpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "SandboxVocabulary"),
        .target(
            name: "GatewaySandbox",
            dependencies: [
                "SandboxVocabulary",
                "CMicroHTTPD",
                "CMicroHTTPDShim",
                "CSandboxOpenSSL",
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "StatusMapping", package: "StatusMapping"),
                .product(name: "JWE", package: "JWE"),
            ]
        ),
        .executableTarget(name: "egw-sandbox", dependencies: ["GatewaySandbox"]),
        .executableTarget(
            name: "GatewaySandboxFuzz",
            dependencies: [
                "GatewaySandbox", .product(name: "EGWWire", package: "EGWWire"), .product(name: "JWE", package: "JWE"),
                .product(name: "FuzzSupport", package: "FuzzSupport"),
            ],
            path: "Fuzz/Harness"
        ),
        // OpenSSL's libssl for the tests' own TLS client (an HTTPS client independent of the server).
        .systemLibrary(
            name: "CSandboxTestSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .testTarget(
            name: "GatewaySandboxTests",
            dependencies: [
                "GatewaySandbox", "GatewaySandboxFuzz", "CSandboxTestSSL",
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "JWE", package: "JWE"),
                .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "LatencyProxy", package: "TestSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
