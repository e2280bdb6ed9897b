// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "CardValidation",
    products: [
        .library(name: "CardValidation", targets: ["CardValidation"])
    ],
    // EGWWire (seeded random) for the benchmark and the tests only.
    dependencies: [
        .package(path: "../EGWWire"),
        .package(path: "../FuzzSupport"),
        .package(path: "../TestSupport"),
    ],
    targets: [
        // Foundation only (NSError, Date, Calendar); no system library.
        .target(name: "CardValidation"),
        // Release-built by ./bench.sh (`make bench`); not a test.
        .executableTarget(
            name: "CardValidationBench",
            dependencies: ["CardValidation", .product(name: "EGWWire", package: "EGWWire")]
        ),
        .executableTarget(
            name: "CardValidationFuzz",
            dependencies: ["CardValidation", .product(name: "FuzzSupport", package: "FuzzSupport")],
            path: "Fuzz/Harness"
        ),
        .testTarget(
            name: "CardValidationTests",
            dependencies: [
                "CardValidation", "CardValidationFuzz", .product(name: "EGWWire", package: "EGWWire"),
                .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
                .product(name: "FreedMemoryScan", package: "TestSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
