// swift-tools-version:6.0
import PackageDescription

// GLibMainQueue: the SDK's one bridge from Dispatch's main queue into GLib's main loop, so blocks on
// `DispatchQueue.main` run in a GTK app (whose main thread runs GLib's loop, not a run loop). GLib comes
// in through a systemLibrary target; the source and libdispatch's two run-loop entry points are in the
// C shim `CGLibMainQueue`, imported with `internal import`, so no C type reaches the public API.
// PaymentUI and WebKitPresenter both depend on it, so an app using both installs one source.
let package = Package(
    name: "GLibMainQueue",
    products: [
        .library(name: "GLibMainQueue", targets: ["GLibMainQueue"])
    ],
    targets: [
        .systemLibrary(name: "CGLib2", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .target(name: "CGLibMainQueue", dependencies: ["CGLib2"]),
        .target(name: "GLibMainQueue", dependencies: ["CGLibMainQueue"]),
        .testTarget(name: "GLibMainQueueTests", dependencies: ["GLibMainQueue", "CGLib2"]),
    ],
    swiftLanguageModes: [.v6]
)
