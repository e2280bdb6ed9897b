// swift-tools-version:6.0
import PackageDescription

// PaymentAuthorization: the PassKit-style payment sheet (CONTRACT.md section 7), headless, paid
// through an EGW card payment. EGWWire (the seeded generator) and TestSupport are dependencies
// of the tests only; the suites that pay against the sandbox live in Tests/EndToEnd.
let package = Package(
    name: "PaymentAuthorization",
    products: [
        .library(name: "PaymentAuthorization", targets: ["PaymentAuthorization"])
    ],
    dependencies: [
        .package(path: "../PaymentFlow"),
        .package(path: "../CardValidation"),
        .package(path: "../StatusMapping"),
        .package(path: "../EGWWire"),
        .package(path: "../TestSupport"),
    ],
    targets: [
        .target(
            name: "PaymentAuthorization",
            dependencies: [
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "CardValidation", package: "CardValidation"),
                .product(name: "StatusMapping", package: "StatusMapping"),
            ]
        ),
        .testTarget(
            name: "PaymentAuthorizationTests",
            dependencies: [
                "PaymentAuthorization",
                .product(name: "PaymentFlow", package: "PaymentFlow"),
                .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "MutexVisibility", package: "TestSupport"),
                .product(name: "StateExplorer", package: "TestSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
