import Foundation
import XCTest

/// What the WebKit presenter leaves under the private HOME / XDG / TMPDIR root, sorted by kind so
/// that neither web data nor a runtime socket hides behind the other.
///
/// - `proxySockets`: WebKit's D-Bus proxies, `runtime/webkitgtk/bus-proxy-*` and `a11y-proxy-*`
///   (sockets). WebKitGTK 6 starts one xdg-dbus-proxy per process, when the first web process
///   starts with a session bus and an accessibility bus present (every desktop), and binds both
///   sockets into every later web process's sandbox; so they live as long as the app, and
///   xdg-dbus-proxy removes them when the app exits. Removing them earlier would break the next page.
/// - `sandboxRecords`: bubblewrap's `runtime/.flatpak/webkit-*/bwrapinfo.json` (pid and namespace
///   numbers; bookkeeping, no page data).
/// - `settingsFlag`: `runtime/dconf/user`, dconf's change-notification flag (a byte or two, no
///   data), which GSettings' dconf backend in the app's own process makes when a session bus is
///   present; every desktop session has one, shared by every dconf client of the user.
/// - `written`: everything else: web data, which must be empty.
struct RuntimeFiles {
    var proxySockets: [String] = []
    var sandboxRecords: [String] = []
    var settingsFlag: [String] = []
    var written: [String] = []

    init(_ paths: Set<String>, under root: URL) {
        for path in paths.sorted() {
            let name = path.components(separatedBy: "/").last ?? path
            if path.hasPrefix("runtime/webkitgtk/"), name.hasPrefix("bus-proxy-") || name.hasPrefix("a11y-proxy-"),
                Self.isSocket(root.appendingPathComponent(path))
            {
                proxySockets.append(path)
            } else if path.hasPrefix("runtime/.flatpak/webkit-"), path.hasSuffix("/bwrapinfo.json") {
                sandboxRecords.append(path)
            } else if path == "runtime/dconf/user", Self.size(root.appendingPathComponent(path)) <= 8 {
                settingsFlag.append(path)
            } else {
                written.append(path)
            }
        }
    }

    static func isSocket(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    static func size(_ url: URL) -> Int {
        var status = stat()
        return lstat(url.path, &status) == 0 ? Int(status.st_size) : Int.max
    }
}

/// `testPaymentsWriteNothingToHomeXDGOrTMPDIR` again, in a child process of this bundle on a private
/// session bus (`dbus-run-session`, on which GTK activates AT-SPI's bus as on a desktop), with a
/// private root of its own: web data written fails the child; WebKit's runtime sockets still on
/// disk after the child has exited fail here, as a cleanup failure.
final class WebKitRuntimeFilesTests: XCTestCase {
    func testWithAnAccessibilityBusNoWebDataAndNoRuntimeSocketOutlivesTheApp() throws {
        // Runs in make test again (issue 32): its child's crash on a clean clone (exit 133, stop 38's first
        // try) no longer happens: three runs beside WebKitGTKAppTests and one from a clean clone passed.
        // EGW_A11Y_BUS_TEST=0 skips it (a machine without dbus-run-session).
        guard ProcessInfo.processInfo.environment["EGW_A11Y_BUS_TEST"] != "0" else {
            throw XCTSkip("EGW_A11Y_BUS_TEST=0: the accessibility-bus variant is skipped")
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../.build/webkit-private-root-a11y-bus"
        ).standardizedFileURL
        try? FileManager.default.removeItem(at: root)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-run-session")
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        child.arguments = [
            "--", bundle, "WebKitEndToEndTests.WebKitGTKAppTests/testPaymentsWriteNothingToHomeXDGOrTMPDIR",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["AT_SPI_BUS_ADDRESS"] = nil
        environment["EGW_WEBKIT_PRIVATE_ROOT"] = root.path
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        child.standardInput = FileHandle.nullDevice
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0, "the child run failed (web data written?):\n\(text)")
        let sockets = text.components(separatedBy: "\n").first { $0.hasPrefix("EGW-RUNTIME-SOCKETS: ") } ?? ""
        XCTAssertTrue(
            sockets.contains("a11y-proxy-") && sockets.contains("bus-proxy-"),
            "the child had no accessibility bus, so this test proved nothing: \(sockets)")
        let after = RuntimeFiles(WebKitGTKAppTests.files(under: root), under: root)
        XCTAssertEqual(after.proxySockets, [], "runtime sockets left behind after the app exited (cleanup failed)")
        XCTAssertEqual(after.written, [], "web data written under \(root.path)")
    }
}
