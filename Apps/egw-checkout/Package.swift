// swift-tools-version:6.0
import PackageDescription

// egw-checkout: a small GTK 4 shop that pays through PaymentUI's card entries and sheet window, against
// the embedded sandbox by default. `bare-gtk-window` is the baseline its start-up is measured against.
let package = Package(
    name: "egw-checkout",
    products: [
        .executable(name: "egw-checkout", targets: ["egw-checkout"])
    ],
    dependencies: [
        .package(path: "../../Packages/BuyerText"),
        .package(path: "../../Packages/PaymentUI"),
        .package(path: "../../Packages/PaymentAuthorization"),
        .package(path: "../../Packages/PaymentFlow"),
        .package(path: "../../Packages/CardValidation"),
        .package(path: "../../Packages/EGWWire"),
        .package(path: "../../Packages/GatewaySandbox"),
        .package(path: "../../Packages/HeadlessBrowser"),
        .package(path: "../../Packages/WebKitPresenter"),
    ],
    targets: [
        .systemLibrary(name: "CCheckoutGtk4", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        // The shop's window from a GtkBuilder description, its signals and main loop.
        .target(name: "CCheckoutGtk", dependencies: ["CCheckoutGtk4"]),
        // The shop window's GtkBuilder description, shared with its baseline (bare-gtk-window --shop).
        .target(name: "ShopWindowLayout", dependencies: [.product(name: "BuyerText", package: "BuyerText")]),
        .target(
            name: "CheckoutApp",
            dependencies: [
                "CCheckoutGtk", "ShopWindowLayout",
                .product(name: "BuyerText", package: "BuyerText"),
                .product(name: "CardFields", package: "PaymentUI"),
                .product(name: "PaymentSheetWindow", package: "PaymentUI"),
                .product(name: "PaymentAuthorization", package: "PaymentAuthorization"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "CardValidation", package: "CardValidation"),
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "WebKitPresenter", package: "WebKitPresenter"),
            ]
        ),
        .executableTarget(name: "egw-checkout", dependencies: ["CheckoutApp"]),
        .executableTarget(
            name: "bare-gtk-window",
            dependencies: ["CCheckoutGtk", "ShopWindowLayout", .product(name: "BuyerText", package: "BuyerText")]),
        // measure.sh's baseline of the challenge window: a bare WebKitGTK program (C, none of the SDK).
        .systemLibrary(
            name: "CCheckoutWebKit", pkgConfig: "webkitgtk-6.0", providers: [.apt(["libwebkitgtk-6.0-dev"])]),
        .executableTarget(name: "bare-webkit-window", dependencies: ["CCheckoutWebKit"]),
        .testTarget(
            name: "CheckoutAppTests",
            dependencies: [
                "CheckoutApp", "CCheckoutGtk4", .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "BuyerText", package: "BuyerText"),
                .product(name: "PaymentSheetWindow", package: "PaymentUI"),
                .product(name: "PaymentUITesting", package: "PaymentUI"),
                .product(name: "WebKitPresenter", package: "WebKitPresenter"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
