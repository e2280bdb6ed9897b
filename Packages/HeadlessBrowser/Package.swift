// swift-tools-version:6.0
import PackageDescription

// HeadlessBrowser: a scripted buyer for PaymentFlow's pages, with no screen. It
// loads pages through PaymentFlow's public transport (libcurl, the kit's
// transport security), follows redirects, keeps cookies and submits forms.
// It uses only PaymentFlow's public presenter and transport API.
//
// Its own tests use plain pages from TestSupport's loopback server; the suites that
// pay against the sandbox live in Tests/EndToEnd. BuyerVocabulary (the buyer's
// choices, no dependency) is what the shell's pure interpreter needs of it.
let package = Package(
    name: "HeadlessBrowser",
    products: [
        .library(name: "HeadlessBrowser", targets: ["HeadlessBrowser"]),
        .library(name: "BuyerVocabulary", targets: ["BuyerVocabulary"]),
    ],
    dependencies: [
        .package(path: "../EGWWire"),
        .package(path: "../PaymentFlow"),
        .package(path: "../FuzzSupport"),
        .package(path: "../TestSupport"),
    ],
    targets: [
        // The system libpsl: the Public Suffix List the cookie jar refuses Domain attributes by.
        .systemLibrary(
            name: "CPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev"])]
        ),
        .target(name: "BuyerVocabulary"),
        .target(
            name: "HeadlessBrowser",
            dependencies: [
                "BuyerVocabulary", "CPSL",
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
            ]
        ),
        .executableTarget(
            name: "HeadlessBrowserFuzz",
            dependencies: ["HeadlessBrowser", .product(name: "FuzzSupport", package: "FuzzSupport")],
            path: "Fuzz/Harness"
        ),
        .testTarget(
            name: "HeadlessBrowserTests",
            dependencies: [
                "HeadlessBrowser", "HeadlessBrowserFuzz",
                .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "LoopbackTestServer", package: "TestSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
                .product(name: "StateExplorer", package: "TestSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
