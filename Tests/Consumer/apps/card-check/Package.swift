// swift-tools-version:6.0
// An outside app that uses CardValidation alone, by URL and version (Tests/Consumer/run.sh sets the URL).
import PackageDescription

let package = Package(
    name: "card-check",
    dependencies: [.package(url: "EGWPAY_URL", from: "1.0.0")],
    targets: [
        .executableTarget(
            name: "card-check", dependencies: [.product(name: "CardValidation", package: "EGWPAY_IDENTITY")])
    ],
    swiftLanguageModes: [.v6]
)
