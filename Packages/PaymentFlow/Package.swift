// swift-tools-version:6.0
import PackageDescription

// PaymentFlow: the SDK integrators ship. The library links BuyerText (its errors' words), EGWWire,
// CardValidation, StatusMapping, JWE and the system libcurl, and nothing else, in any target: its
// tests are the machines, the transport against TestSupport's loopback server, the driver with stubs
// and the exploration. The
// suites that pay against the sandbox through the browser, and the benchmark, live in Tests/EndToEnd.
let package = Package(
    name: "PaymentFlow",
    products: [
        .library(name: "PaymentFlow", targets: ["PaymentFlow"])
    ],
    dependencies: [
        .package(path: "../BuyerText"),
        .package(path: "../EGWWire"),
        .package(path: "../StatusMapping"),
        .package(path: "../CardValidation"),
        .package(path: "../JWE"),
        .package(path: "../FuzzSupport"),
        .package(path: "../TestSupport"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // libcurl's variadics behind fixed-arity functions; libssl for the one OpenSSL call the shim
        // makes itself (no TLS key log, see ccurl_disable_tls_keylog).
        .target(name: "CCurlShim", dependencies: ["CCurl"], linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        .target(
            name: "PaymentFlow",
            dependencies: [
                "CCurlShim",
                .product(name: "BuyerText", package: "BuyerText"),
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "StatusMapping", package: "StatusMapping"),
                .product(name: "CardValidation", package: "CardValidation"),
                .product(name: "JWE", package: "JWE"),
            ]
        ),
        // The SSLKEYLOGFILE check of the tests, run as a process of its own (not a product).
        .executableTarget(name: "curl-keylog-probe", dependencies: ["PaymentFlow"]),
        // The proxy-environment check of the tests, with the variables set before the process starts.
        .executableTarget(name: "curl-proxy-probe", dependencies: ["PaymentFlow"]),
        // The core-dump check of the tests: a card held mid-payment, dumped with gcore (not a product).
        .executableTarget(
            name: "card-dump-probe", dependencies: ["PaymentFlow", .product(name: "JWE", package: "JWE")]),
        .executableTarget(
            name: "PaymentFlowFuzz",
            dependencies: ["PaymentFlow", "CCurl", .product(name: "FuzzSupport", package: "FuzzSupport")],
            path: "Fuzz/Harness"
        ),
        .testTarget(
            name: "PaymentFlowTests",
            dependencies: [
                "PaymentFlow", "PaymentFlowFuzz", "curl-keylog-probe", "curl-proxy-probe", "card-dump-probe", "CCurl",
                .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "BuyerText", package: "BuyerText"),
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "JWE", package: "JWE"),
                .product(name: "LoopbackTestServer", package: "TestSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
                .product(name: "StateExplorer", package: "TestSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
