import CCheckoutGtk
import Foundation
import XCTest

@testable import CheckoutApp

/// Iterates GLib's main context only, until `condition` holds or `timeout` seconds passed.
@MainActor
func spin(timeout: Double = 10, until condition: () -> Bool = { false }) {
    let end = Date().addingTimeInterval(timeout)
    while !condition() && Date() < end {
        ckt_iterate()
        usleep(1000)
    }
}

@MainActor
func click(_ shop: CheckoutWindow, _ name: String) {
    guard let widget = ckt_find(shop.window, name) else { return XCTFail("no \(name)") }
    ckt_activate(widget)
}

@MainActor
func text(_ shop: CheckoutWindow, _ name: String) -> String? {
    ckt_find(shop.window, name).map { String(cString: ckt_text($0)) }
}

@MainActor
func close(_ shop: CheckoutWindow) {
    gtk_window_destroy(shop.window.assumingMemoryBound(to: GtkWindow.self))
    spin(timeout: 0.05)
}

/// Sends this process's stdout and stderr into a file until `finish()`, which restores them and returns
/// what was written.
final class OutputCapture {
    private let path = NSTemporaryDirectory() + "egw-checkout-output-\(getpid()).txt"
    private let savedOut = dup(STDOUT_FILENO)
    private let savedErr = dup(STDERR_FILENO)

    init() throws {
        fflush(nil)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        dup2(fd, STDOUT_FILENO)
        dup2(fd, STDERR_FILENO)
        close(fd)
        print("output capture started")
    }

    func finish() throws -> String {
        fflush(nil)
        dup2(savedOut, STDOUT_FILENO)
        dup2(savedErr, STDERR_FILENO)
        close(savedOut)
        close(savedErr)
        defer { unlink(path) }
        let output = try String(contentsOfFile: path, encoding: .utf8)
        // XCTest's failure lines written while capturing, shown again now (they never hold card data: the
        // tests keep digits out of their messages).
        for line in output.split(separator: "\n") where line.contains(": error: ") { print(line) }
        return output
    }
}
