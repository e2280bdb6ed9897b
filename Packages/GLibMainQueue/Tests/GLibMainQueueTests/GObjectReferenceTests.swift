import CGLib2
import CGLibGtk4
import XCTest

@_spi(GTK) @testable import GLibMainQueue

/// The owning reference counts as GLib counts: one more reference while it lives, given back on the
/// loop's thread once it is gone (this suite starts no GTK: the hop is GLib's idle source, run when
/// this thread iterates the default main context).
final class GObjectReferenceTests: XCTestCase {
    func testAReferenceHoldsTheObjectAndGivesItBackOnTheLoop() throws {
        let object = try XCTUnwrap(g_object_new_with_properties(GType(20 << 2), 0, nil, nil))  // G_TYPE_OBJECT
        defer { g_object_unref(object) }
        let count = { object.withMemoryRebound(to: GObject.self, capacity: 1) { $0.pointee.ref_count } }
        XCTAssertEqual(count(), 1)
        var reference: GObjectReference? = GObjectReference(retaining: UnsafeMutableRawPointer(object))
        XCTAssertEqual(count(), 2, "the reference holds the object")
        XCTAssertEqual(reference?.pointer, UnsafeMutableRawPointer(object))
        XCTAssertEqual(
            reference?.withUnsafePointer { ($0, count()) }.0, UnsafeMutableRawPointer(object),
            "the app's own GTK calls get the object")
        XCTAssertEqual(reference?.withUnsafePointer { _ in count() }, 2, "held during the call")
        reference = nil
        XCTAssertEqual(count(), 2, "given back on the loop, not on the dropping thread")
        let deadline = Date().addingTimeInterval(5)
        while count() > 1, Date() < deadline { _ = g_main_context_iteration(nil, 0) }
        XCTAssertEqual(count(), 1, "given back once the loop turned")
    }
}
