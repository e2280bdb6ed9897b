// swift-tools-version:6.0
import PackageDescription

// PaymentUI: GTK 4 widgets over the headless SDK. Two products, so an app links only what it uses:
// `CardFields` (the three card entries, over CardValidation's editors) and `PaymentSheetWindow` (the
// payment sheet as a modal window, a `WalletSheetPresenter`). GTK comes in through a systemLibrary
// target; every GObject macro, variadic call and signal connection is in the C shim `CPaymentUIGtk`,
// imported with `internal import`, so no C type reaches the public API. Dispatch's main queue reaches GTK's
// loop through GLibMainQueue, the bridge WebKitPresenter shares (PaymentSheetWindow re-exports it).
let package = Package(
    name: "PaymentUI",
    products: [
        .library(name: "CardFields", targets: ["CardFields"]),
        .library(name: "PaymentSheetWindow", targets: ["PaymentSheetWindow"]),
        // Proof only: the buyer's hands for UI tests of PaymentUI and of apps on it. No shipped product
        // depends on it.
        .library(name: "PaymentUITesting", targets: ["PaymentUITesting"]),
    ],
    dependencies: [
        .package(path: "../BuyerText"),
        .package(path: "../CardValidation"),
        .package(path: "../GLibMainQueue"),
        .package(path: "../PaymentAuthorization"),
    ],
    targets: [
        .systemLibrary(name: "CGtk4", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .target(name: "CPaymentUIGtk", dependencies: ["CGtk4"]),
        // GTK started and PaymentUI's styles installed, once: what every PaymentUI target starts with.
        .target(
            name: "PaymentUIDisplay",
            dependencies: ["CPaymentUIGtk", .product(name: "GLibMainQueue", package: "GLibMainQueue")]),
        .target(
            name: "CardFields",
            dependencies: [
                "CGtk4", "CPaymentUIGtk", "PaymentUIDisplay", .product(name: "BuyerText", package: "BuyerText"),
                .product(name: "CardValidation", package: "CardValidation"),
                .product(name: "GLibMainQueue", package: "GLibMainQueue"),
            ]
        ),
        .target(
            name: "PaymentSheetWindow",
            dependencies: [
                "CGtk4", "CPaymentUIGtk", "PaymentUIDisplay", .product(name: "BuyerText", package: "BuyerText"),
                .product(name: "GLibMainQueue", package: "GLibMainQueue"),
                .product(name: "PaymentAuthorization", package: "PaymentAuthorization"),
            ]
        ),
        // Proof only: the test hooks (keys, clipboard, focus, accessibility checks, snapshots), kept out
        // of the products' C target.
        .target(name: "CPaymentUITestHooks", dependencies: ["CGtk4"]),
        .target(
            name: "PaymentUITesting",
            dependencies: [
                "CGtk4", "CPaymentUIGtk", "CPaymentUITestHooks", "PaymentUIDisplay",
                .product(name: "GLibMainQueue", package: "GLibMainQueue"),
            ]),
        .testTarget(
            name: "CardFieldsTests",
            dependencies: [
                "CardFields", "CGtk4", "CPaymentUIGtk", "CPaymentUITestHooks", "PaymentUITesting",
                .product(name: "BuyerText", package: "BuyerText"),
            ]
        ),
        .testTarget(
            name: "PaymentSheetWindowTests",
            dependencies: [
                "PaymentSheetWindow", "CGtk4", "CPaymentUIGtk", "CPaymentUITestHooks", "PaymentUITesting",
                .product(name: "BuyerText", package: "BuyerText"),
                .product(name: "PaymentAuthorization", package: "PaymentAuthorization"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
