// swift-tools-version:6.0
import PackageDescription

// GLibMainQueue: the SDK's one bridge from Dispatch's main queue into GLib's main loop, so blocks on
// `DispatchQueue.main` run in a GTK app (whose main thread runs GLib's loop, not a run loop). GLib comes
// in through a systemLibrary target; the source and libdispatch's two run-loop entry points are in the
// C shim `CGLibMainQueue`, imported with `internal import`, so no C type reaches the public API.
// PaymentUI and WebKitPresenter both depend on it, so an app using both installs one source. It is also
// the one package that knows GTK's lifecycle (GTKRuntime: gtk_init_check once, the GTK thread, the hop
// onto it), through the C shim `CGTKRuntime` over the systemLibrary `CGLibGtk4`.
let package = Package(
    name: "GLibMainQueue",
    products: [
        .library(name: "GLibMainQueue", targets: ["GLibMainQueue"])
    ],
    targets: [
        .systemLibrary(name: "CGLib2", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .target(name: "CGLibMainQueue", dependencies: ["CGLib2"]),
        .systemLibrary(name: "CGLibGtk4", pkgConfig: "gtk4", providers: [.apt(["libgtk-4-dev"])]),
        .target(name: "CGTKRuntime", dependencies: ["CGLibGtk4"]),
        .target(name: "GLibMainQueue", dependencies: ["CGLibMainQueue", "CGTKRuntime"]),
        .testTarget(name: "GLibMainQueueTests", dependencies: ["GLibMainQueue", "CGLib2", "CGLibGtk4"]),
    ],
    swiftLanguageModes: [.v6]
)
