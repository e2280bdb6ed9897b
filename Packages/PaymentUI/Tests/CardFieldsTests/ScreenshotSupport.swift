import CGtk4
import CPaymentUIGtk
import CPaymentUITestHooks
import Foundation
import XCTest

/// Saves a PNG of `window` into `EGW_SCREENSHOTS` (`make screenshots` sets it to docs/screenshots);
/// does nothing when it is not set.
@MainActor
func saveScreenshot(_ window: UnsafeMutablePointer<GtkWidget>, _ name: String) throws {
    guard let folder = ProcessInfo.processInfo.environment["EGW_SCREENSHOTS"] else { return }
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    XCTAssertEqual(egwui_snapshot_png(window, "\(folder)/\(name).png"), 1, "screenshot \(name)")
}
