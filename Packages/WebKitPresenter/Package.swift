// swift-tools-version:6.0
import PackageDescription

// WebKitPresenter: PaymentFlow's pages (the issuer's 3-D Secure challenge, the hosted checkout) in a
// real WebKitGTK 6 web view, in a modal GTK 4 window over the app's window or inside one of its
// widgets. It uses PaymentFlow's public API and its lifecycle runtime (SPI `LifecycleRuntime`, which
// runs the page's lifecycle on the main queue); GTK and WebKitGTK stay behind the CWebKitShim target,
// reached with `internal import` (the pages' TLS trust is the relay's); EGWWire gives it the one HTML
// escaper (the bootstrap page that posts the challenge). Dispatch's main queue reaches GLib's
// loop through GLibMainQueue, the bridge PaymentUI shares.
let package = Package(
    name: "WebKitPresenter",
    products: [
        .library(name: "WebKitPresenter", targets: ["WebKitPresenter"])
    ],
    dependencies: [
        .package(path: "../EGWWire"),
        .package(path: "../GLibMainQueue"),
        .package(path: "../PaymentFlow"),
        .package(path: "../TestSupport"),
    ],
    targets: [
        .systemLibrary(
            name: "CWebKitGTK",
            pkgConfig: "webkitgtk-6.0",
            providers: [.apt(["libwebkitgtk-6.0-dev"])]
        ),
        .target(name: "CWebKitShim", dependencies: ["CWebKitGTK"]),
        .target(
            name: "WebKitPresenter",
            dependencies: [
                "CWebKitShim", .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "GLibMainQueue", package: "GLibMainQueue"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
            ]
        ),
        .testTarget(
            name: "WebKitPresenterTests",
            dependencies: [
                "WebKitPresenter", .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "StateExplorer", package: "TestSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
