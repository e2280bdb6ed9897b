// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "EGWWire",
    products: [
        .library(name: "EGWWire", targets: ["EGWWire"])
    ],
    targets: [
        .target(name: "EGWWire"),
        .testTarget(name: "EGWWireTests", dependencies: ["EGWWire"]),
    ],
    swiftLanguageModes: [.v6]
)
