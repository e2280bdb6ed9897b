// swift-tools-version:6.0
import PackageDescription

// HeadlessBrowser: a scripted buyer for PaymentFlow's pages, with no screen. It
// loads pages through PaymentFlow's public transport (libcurl, the kit's
// transport security), follows redirects, keeps cookies and submits forms.
// It uses only PaymentFlow's public presenter and transport API.
//
// PaymentFlow's end-to-end tests depend on this package in turn (a package-level
// cycle SwiftPM accepts since there is no cycle between targets:
// HeadlessBrowser -> PaymentFlow, PaymentFlowTests -> HeadlessBrowser).
let package = Package(
    name: "HeadlessBrowser",
    products: [
        .library(name: "HeadlessBrowser", targets: ["HeadlessBrowser"]),
        // Test support, not for apps: a raw-socket HTTP server that can misbehave on purpose,
        // shared by these tests and PaymentFlow's transport tests (one copy).
        .library(name: "LoopbackTestServer", targets: ["LoopbackTestServer"]),
    ],
    dependencies: [
        .package(path: "../EGWWire"),
        .package(path: "../PaymentFlow"),
        .package(path: "../GatewaySandbox"),
        .package(path: "../JWE"),
        .package(path: "../FuzzSupport"),
    ],
    targets: [
        // The system libpsl: the Public Suffix List the cookie jar refuses Domain attributes by.
        .systemLibrary(
            name: "CPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev"])]
        ),
        .target(
            name: "HeadlessBrowser",
            dependencies: [
                "CPSL",
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
            ]
        ),
        .target(
            name: "LoopbackTestServer",
            dependencies: [.product(name: "PaymentFlow", package: "PaymentFlow")],
            path: "Tests/LoopbackTestServer"
        ),
        .executableTarget(
            name: "HeadlessBrowserFuzz",
            dependencies: ["HeadlessBrowser", .product(name: "FuzzSupport", package: "FuzzSupport")],
            path: "Fuzz/Harness"
        ),
        .testTarget(
            name: "HeadlessBrowserTests",
            dependencies: [
                "HeadlessBrowser", "LoopbackTestServer", "HeadlessBrowserFuzz",
                .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "JWE", package: "JWE"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
