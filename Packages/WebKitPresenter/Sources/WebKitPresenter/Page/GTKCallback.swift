/// A Swift closure handed to a C callback that WebKit or GTK calls once, on the GTK thread (the main
/// actor, by GTKRuntime's rule): ``retained(_:)`` turns it into the callback's user data, and the C
/// trampoline calls ``call(_:with:)`` with it, which runs the closure once and releases it.
@MainActor
final class GTKCallback<Value: Sendable> {
    private let body: @MainActor (Value) -> Void

    private init(_ body: @escaping @MainActor (Value) -> Void) { self.body = body }

    /// `body` as user data for one C callback; released by ``call(_:with:)``, or by ``release(_:)``
    /// when the C side says it will not call.
    static func retained(_ body: @escaping @MainActor (Value) -> Void) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(GTKCallback(body)).toOpaque()
    }

    /// From the C trampoline, on the GTK thread: runs the closure behind `data` with `value`, once.
    nonisolated static func call(_ data: UnsafeMutableRawPointer?, with value: Value) {
        guard let data else { return }
        let callback = Unmanaged<GTKCallback>.fromOpaque(data).takeRetainedValue()
        MainActor.assumeIsolated { callback.body(value) }
    }

    /// Drops the closure behind `data` without running it (the C side will not call).
    nonisolated static func release(_ data: UnsafeMutableRawPointer) {
        Unmanaged<GTKCallback>.fromOpaque(data).release()
    }
}
