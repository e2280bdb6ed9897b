// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CardValidation",
    products: [
        .library(name: "CardValidation", targets: ["CardValidation"])
    ],
    targets: [
        // Foundation only (NSError, Date, Calendar); no system library.
        .target(name: "CardValidation"),
        // Release-built by ./bench.sh (`make bench`); not a test.
        .executableTarget(name: "CardValidationBench", dependencies: ["CardValidation"]),
        .testTarget(name: "CardValidationTests", dependencies: ["CardValidation"]),
    ],
    swiftLanguageModes: [.v6]
)
