// swift-tools-version:6.0
import PackageDescription

// End-to-end proof of PaymentUI: the sheet window and the card entries paying against GatewaySandbox
// over loopback HTTP. Its own package (not Tests/EndToEnd) so that the UI suite and its GTK dependency
// stay apart; run under xvfb-run (the Makefile does).
let package = Package(
    name: "UIEndToEnd",
    dependencies: [
        .package(path: "../../Packages/PaymentUI"),
        .package(path: "../../Packages/PaymentAuthorization"),
        .package(path: "../../Packages/PaymentFlow"),
        .package(path: "../../Packages/GatewaySandbox"),
    ],
    targets: [
        .testTarget(
            name: "PaymentUIEndToEndTests",
            dependencies: [
                .product(name: "PaymentSheetWindow", package: "PaymentUI"),
                .product(name: "PaymentUITesting", package: "PaymentUI"),
                .product(name: "CardFields", package: "PaymentUI"),
                .product(name: "PaymentAuthorization", package: "PaymentAuthorization"),
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
