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
        // A delaying, counting TCP proxy for PaymentFlow's bench and tests (no dependency).
        .library(name: "LatencyProxy", targets: ["LatencyProxy"]),
    ],
    dependencies: [
        .package(path: "../EGWWire"),
        .package(path: "../StatusMapping"),
        .package(path: "../JWE"),
        .package(path: "../FuzzSupport"),
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
        .target(
            name: "GatewaySandbox",
            dependencies: [
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
        .target(name: "LatencyProxy"),
        // OpenSSL's libssl for the tests' own TLS client (an HTTPS client independent of the server).
        .systemLibrary(
            name: "CSandboxTestSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .testTarget(
            name: "GatewaySandboxTests",
            dependencies: [
                "GatewaySandbox", "GatewaySandboxFuzz", "LatencyProxy", "CSandboxTestSSL",
                .product(name: "JWE", package: "JWE"),
                .product(name: "FuzzSupport", package: "FuzzSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
