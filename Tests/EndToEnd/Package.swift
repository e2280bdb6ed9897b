// swift-tools-version:6.0
import PackageDescription

// EndToEnd: every suite that pays across packages, over loopback HTTP(S), against the sandbox
// gateway (libmicrohttpd) with the real libcurl transport and the headless browser, plus the
// latency and per-payment benchmark, and the WebKit suites (real WebKitGTK under Xvfb) with their
// bench, screenshots and the README's GTK app. Proof lives here, apart from the products: no SDK package
// depends on this one, so `swift test` in a product's folder builds neither the sandbox nor the
// browser. The few support files a suite shares with its package's unit tests are that package's
// own files, linked (Tests/*/Support), not copied.
let package = Package(
    name: "EndToEnd",
    dependencies: [
        .package(path: "../../Packages/EGWWire"),
        .package(path: "../../Packages/CardValidation"),
        .package(path: "../../Packages/JWE"),
        .package(path: "../../Packages/PaymentFlow"),
        .package(path: "../../Packages/HeadlessBrowser"),
        .package(path: "../../Packages/GatewaySandbox"),
        .package(path: "../../Packages/PaymentAuthorization"),
        .package(path: "../../Packages/WebKitPresenter"),
        .package(path: "../../Packages/TestSupport"),
    ],
    targets: [
        // GTK 4 itself, for the tests' own small app window (the parent a presenter is given).
        .systemLibrary(name: "CGTK4", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        // `make bench` (bench.sh): the presenter beside a bare WebKitGTK program (not tests).
        .systemLibrary(name: "CWebKitBare", pkgConfig: "webkitgtk-6.0", providers: [.apt(["libwebkitgtk-6.0-dev"])]),
        .executableTarget(name: "webkit-bare-load", dependencies: ["CWebKitBare"]),
        .executableTarget(
            name: "WebKitBench",
            dependencies: [
                .product(name: "WebKitPresenter", package: "WebKitPresenter"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
            ]
        ),
        // The GTK app of WebKitPresenter's README, compiled and run (not a test).
        .executableTarget(
            name: "GTKAppExample",
            dependencies: [
                "CGTK4",
                .product(name: "WebKitPresenter", package: "WebKitPresenter"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
            ]
        ),
        // `make screenshots`: docs/screenshots, captured from an Xvfb screen (not a test).
        .executableTarget(
            name: "WebKitScreenshots",
            dependencies: [
                "CGTK4",
                .product(name: "WebKitPresenter", package: "WebKitPresenter"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
            ]
        ),
        // One page in a process of its own, for WebKitPageTrustTests (private CA store, environment).
        .executableTarget(
            name: "webkit-page-probe",
            dependencies: [
                .product(name: "WebKitPresenter", package: "WebKitPresenter"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
            ]
        ),
        // Real WebKitGTK under Xvfb (`xvfb-run -a swift test`), real loopback HTTP(S) to the sandbox.
        .testTarget(
            name: "WebKitEndToEndTests",
            dependencies: [
                "CGTK4", "webkit-page-probe",
                .product(name: "WebKitPresenter", package: "WebKitPresenter"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "LoopbackTestServer", package: "TestSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
            ]
        ),
        // Release-built by ./bench.sh (`make bench`); not a test.
        .executableTarget(
            name: "EndToEndBench",
            dependencies: [
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "LatencyProxy", package: "TestSupport"),
                .product(name: "JWE", package: "JWE"),
            ]
        ),
        .testTarget(
            name: "PaymentFlowEndToEndTests",
            dependencies: [
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "CardValidation", package: "CardValidation"),
                .product(name: "JWE", package: "JWE"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "LatencyProxy", package: "TestSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
            ]
        ),
        .testTarget(
            name: "HeadlessBrowserEndToEndTests",
            dependencies: [
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "JWE", package: "JWE"),
                .product(name: "LoopbackTestServer", package: "TestSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
            ]
        ),
        .testTarget(
            name: "WalletEndToEndTests",
            dependencies: [
                .product(name: "PaymentAuthorization", package: "PaymentAuthorization"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "MutexVisibility", package: "TestSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
