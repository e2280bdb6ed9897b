import Synchronization

/// Counters for leak checks in benchmarks and tests; not part of the SDK's API.
@_spi(Diagnostics)
public enum PaymentDiagnostics {
    static let runs = Atomic<Int>(0)

    /// Payment runs alive right now (started and not yet released after delivering).
    public static var livePaymentRuns: Int { runs.load(ordering: .relaxed) }
}
