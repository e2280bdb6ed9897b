// swift-tools-version:6.0
// Outside apps that pay, by URL and version (Tests/Consumer/run.sh sets the URL), in one package so they
// share one build folder (each SDK module compiled once for all three):
//   pay-challenged  pays a challenged card against the SDK's embedded gateway (GatewaySandbox), the
//                   headless buyer answering the 3-D Secure challenge;
//   pay-flow-only   uses the PaymentFlow product alone; run.sh builds it first, where pkg-config and the
//                   compiler see only libcurl's and OpenSSL's development files;
//   seed-samples    seed 000's and 001's Swift samples with only the UIKit words replaced by GTK's
//                   (`import EGWPay`, the three card fields, `from: self`), paying against the sandbox.
import PackageDescription

let package = Package(
    name: "pay-challenged",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "EGWPAY_URL", from: "1.0.0")],
    targets: [
        .executableTarget(
            name: "pay-challenged",
            dependencies: [
                .product(name: "PaymentFlow", package: "EGWPAY_IDENTITY"),
                .product(name: "HeadlessBrowser", package: "EGWPAY_IDENTITY"),
                .product(name: "GatewaySandbox", package: "EGWPAY_IDENTITY"),
            ]),
        .executableTarget(
            name: "pay-flow-only", dependencies: [.product(name: "PaymentFlow", package: "EGWPAY_IDENTITY")]),
        .executableTarget(
            name: "seed-samples",
            dependencies: [
                .product(name: "EGWPay", package: "EGWPAY_IDENTITY"),
                .product(name: "CardFields", package: "EGWPAY_IDENTITY"),
                .product(name: "PaymentUITesting", package: "EGWPAY_IDENTITY"),
                .product(name: "HeadlessBrowser", package: "EGWPAY_IDENTITY"),
                .product(name: "GatewaySandbox", package: "EGWPAY_IDENTITY"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
