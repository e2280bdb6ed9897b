// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CardValidation",
    products: [
        .library(name: "CardValidation", targets: ["CardValidation"])
    ],
    // EGWWire (seeded random) for the benchmark and the tests only.
    dependencies: [
        .package(path: "../EGWWire")
    ],
    targets: [
        // Foundation only (NSError, Date, Calendar); no system library.
        .target(name: "CardValidation"),
        // Release-built by ./bench.sh (`make bench`); not a test.
        .executableTarget(
            name: "CardValidationBench",
            dependencies: ["CardValidation", .product(name: "EGWWire", package: "EGWWire")]
        ),
        .testTarget(
            name: "CardValidationTests",
            dependencies: ["CardValidation", .product(name: "EGWWire", package: "EGWWire")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
