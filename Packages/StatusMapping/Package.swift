// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "StatusMapping",
    products: [
        .library(name: "StatusMapping", targets: ["StatusMapping"])
    ],
    targets: [
        .target(name: "StatusMapping"),
        .testTarget(name: "StatusMappingTests", dependencies: ["StatusMapping"]),
    ],
    swiftLanguageModes: [.v6]
)
