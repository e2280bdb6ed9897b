// swift-tools-version:6.0
// An outside app that pays a challenged card against the SDK's embedded gateway (GatewaySandbox), with the
// headless buyer answering the 3-D Secure challenge, by URL and version (Tests/Consumer/run.sh sets the URL).
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
            ])
    ],
    swiftLanguageModes: [.v6]
)
