// swift-tools-version:6.0
import PackageDescription

// PaymentFlow: the SDK integrators ship. Sibling packages are added to the
// dependency list as they land (CardValidation, JWE; GatewaySandbox for tests).
let package = Package(
    name: "PaymentFlow",
    products: [
        .library(name: "PaymentFlow", targets: ["PaymentFlow"])
    ],
    dependencies: [
        .package(path: "../StatusMapping"),
        .package(path: "../JWE"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .target(
            name: "PaymentFlow",
            dependencies: [
                "CCurlShim",
                .product(name: "StatusMapping", package: "StatusMapping"),
                .product(name: "JWE", package: "JWE"),
            ]
        ),
        .testTarget(name: "PaymentFlowTests", dependencies: ["PaymentFlow"]),
    ],
    swiftLanguageModes: [.v6]
)
