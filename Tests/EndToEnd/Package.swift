// swift-tools-version:6.0
import PackageDescription

// End-to-end suites that pay across packages against the sandbox. Not a product anyone ships:
// it depends on the products it proves, by relative path, and nothing depends on it.
let package = Package(
    name: "EndToEnd",
    dependencies: [
        .package(path: "../../Packages/PaymentFlow"),
        .package(path: "../../Packages/GatewaySandbox"),
        .package(path: "../../Packages/HeadlessBrowser"),
        .package(path: "../../Packages/WebKitPresenter"),
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
        // Real WebKitGTK under Xvfb (`xvfb-run -a swift test`), real loopback HTTP(S) to the sandbox.
        .testTarget(
            name: "WebKitEndToEndTests",
            dependencies: [
                "CGTK4",
                .product(name: "WebKitPresenter", package: "WebKitPresenter"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "LoopbackTestServer", package: "HeadlessBrowser"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
