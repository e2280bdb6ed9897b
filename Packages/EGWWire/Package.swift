// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "EGWWire",
    products: [
        .library(name: "EGWWire", targets: ["EGWWire"])
    ],
    dependencies: [
        .package(path: "../FuzzSupport"),
        .package(path: "../TestSupport"),
    ],
    targets: [
        .target(name: "EGWWire"),
        .executableTarget(
            name: "EGWWireFuzz",
            dependencies: ["EGWWire", .product(name: "FuzzSupport", package: "FuzzSupport")],
            path: "Fuzz/Harness"
        ),
        .testTarget(
            name: "EGWWireTests",
            dependencies: [
                "EGWWire", "EGWWireFuzz", .product(name: "FuzzSupport", package: "FuzzSupport"),
                .product(name: "MutexVisibility", package: "TestSupport"),
                .product(name: "FreedMemoryScan", package: "TestSupport"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
