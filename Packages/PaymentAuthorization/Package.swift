// swift-tools-version:6.0
import PackageDescription

// PaymentAuthorization: the PassKit-style payment sheet (CONTRACT.md section 7), headless, paid
// through an EGW card payment. GatewaySandbox, HeadlessBrowser (the buyer on a 3-D Secure
// challenge) and EGWWire (the seeded generator) are dependencies of the tests only.
let package = Package(
    name: "PaymentAuthorization",
    products: [
        .library(name: "PaymentAuthorization", targets: ["PaymentAuthorization"])
    ],
    dependencies: [
        .package(path: "../PaymentFlow"),
        .package(path: "../CardValidation"),
        .package(path: "../StatusMapping"),
        .package(path: "../HeadlessBrowser"),
        .package(path: "../GatewaySandbox"),
        .package(path: "../EGWWire"),
        .package(path: "../FuzzSupport"),
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
                .product(name: "HeadlessBrowser", package: "HeadlessBrowser"),
                .product(name: "GatewaySandbox", package: "GatewaySandbox"),
                .product(name: "EGWWire", package: "EGWWire"),
                // Linked for its ThreadSanitizer view of `Mutex` under `make sanitize` (see FuzzSupport).
                .product(name: "FuzzSupport", package: "FuzzSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
