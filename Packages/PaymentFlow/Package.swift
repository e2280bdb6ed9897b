// swift-tools-version:6.0
import PackageDescription

// PaymentFlow: the SDK integrators ship. GatewaySandbox and HeadlessBrowser are used by
// the tests and the benchmark only; the library itself links EGWWire, CardValidation,
// StatusMapping, JWE and the system libcurl. HeadlessBrowser depends on this package's
// library in turn: a package-level cycle SwiftPM accepts, as no target depends on itself
// (PaymentFlow <- HeadlessBrowser <- PaymentFlowTests, PaymentFlowBench).
let package = Package(
    name: "PaymentFlow",
    products: [
        .library(name: "PaymentFlow", targets: ["PaymentFlow"])
    ],
    dependencies: [
        .package(path: "../EGWWire"),
        .package(path: "../StatusMapping"),
        .package(path: "../CardValidation"),
        .package(path: "../JWE"),
        .package(path: "../GatewaySandbox"),
        .package(path: "../HeadlessBrowser"),
        .package(path: "../FuzzSupport"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .target(
            name: "PaymentFlow",
            dependencies: [
                "CCurlShim",
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "StatusMapping", package: "StatusMapping"),
                .product(name: "CardValidation", package: "CardValidation"),
                .product(name: "JWE", package: "JWE"),
            ]
        ),
        // Release-built by ./bench.sh (`make bench`); not a test.
        .executableTarget(
            name: "PaymentFlowBench",
            dependencies: [
                "PaymentFlow",
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "LatencyProxy", package: "GatewaySandbox"),
                .product(name: "JWE", package: "JWE"),
            ]
        ),
        .executableTarget(
            name: "PaymentFlowFuzz",
            dependencies: ["PaymentFlow", "CCurl", .product(name: "FuzzSupport", package: "FuzzSupport")],
            path: "Fuzz/Harness"
        ),
        .testTarget(
            name: "PaymentFlowTests",
            dependencies: [
                "PaymentFlow", "PaymentFlowFuzz", .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "LoopbackTestServer", package: "HeadlessBrowser"),
                .product(name: "LatencyProxy", package: "GatewaySandbox"),
                .product(name: "JWE", package: "JWE"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
