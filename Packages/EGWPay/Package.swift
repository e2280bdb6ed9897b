// swift-tools-version:6.0
import PackageDescription

// EGWPay: the module name the seeds use. `import EGWPay` gives an app everything it needs to pay:
// PaymentFlow (PaymentKit, the requests, results and errors), which itself re-exports CardValidation
// (CardInput, the card editors) and StatusMapping (PaymentOutcome). No code of its own, no system library
// beyond PaymentFlow's (libcurl, OpenSSL).
let package = Package(
    name: "EGWPay",
    products: [
        .library(name: "EGWPay", targets: ["EGWPay"])
    ],
    dependencies: [
        .package(path: "../PaymentFlow")
    ],
    targets: [
        .target(name: "EGWPay", dependencies: [.product(name: "PaymentFlow", package: "PaymentFlow")]),
        .testTarget(name: "EGWPayTests", dependencies: ["EGWPay"]),
    ],
    swiftLanguageModes: [.v6]
)
