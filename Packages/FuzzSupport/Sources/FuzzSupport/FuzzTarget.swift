/// One fuzz target of a package: the name of its folder under the package's `Fuzz/` and the check that
/// runs on every input, both under libFuzzer (`make fuzz`) and in the corpus replay of `swift test`.
public struct FuzzTarget: Sendable {
    /// The folder under `Fuzz/` that holds the target's `corpus/`, `regressions/` and optional `dict`.
    public let name: String
    /// Runs one input through the code under test and checks its invariants. Throws a
    /// ``FuzzViolation`` when an invariant fails; a crash in the code under test stays a crash.
    public let check: @Sendable (UnsafeBufferPointer<UInt8>) throws(FuzzViolation) -> Void

    /// A target named `name` (a folder name: letters, digits and `-`) that runs `check`.
    public init(
        _ name: String, check: @escaping @Sendable (UnsafeBufferPointer<UInt8>) throws(FuzzViolation) -> Void
    ) {
        self.name = name
        self.check = check
    }

    /// Runs the check on `bytes`.
    public func run(_ bytes: [UInt8]) throws(FuzzViolation) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(FuzzViolation) in try check(buffer) }
    }
}

/// An invariant that an input broke: what was expected, in words. The text must not repeat secrets
/// from the input (a check that handles card numbers describes them by length and position only).
public struct FuzzViolation: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// A violation described by `description`.
    public init(_ description: String) {
        self.description = description
    }
}

/// Throws a ``FuzzViolation`` with `message` unless `condition` holds.
@inline(__always)
public func fuzzRequire(
    _ condition: Bool, _ message: @autoclosure () -> String
) throws(FuzzViolation) {
    if !condition { throw FuzzViolation(message()) }
}
