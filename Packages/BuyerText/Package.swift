// swift-tools-version:6.0
import PackageDescription

// BuyerText: the text a buyer reads, one table per language (Resources/en, lv, et, lt, ru .json), the language
// chosen from the locale as gettext chooses it. PaymentFlow takes its errors' descriptions from it and
// PaymentUI its labels and messages, so both speak the same words. It depends on nothing.
let package = Package(
    name: "BuyerText",
    products: [
        .library(name: "BuyerText", targets: ["BuyerText"])
    ],
    targets: [
        .target(name: "BuyerText", resources: [.copy("Resources")]),
        .testTarget(name: "BuyerTextTests", dependencies: ["BuyerText"]),
    ],
    swiftLanguageModes: [.v6]
)
