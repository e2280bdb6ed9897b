import FuzzSupport
import Testing

@testable import EGWWireFuzz

/// Every checked-in fuzz input (`Fuzz/<target>/corpus` and `regressions`) once through the same checks
/// `make fuzz` runs, so an input that once broke an invariant keeps being tried.
@Test func fuzzCorporaAndRegressionsPass() {
    let report = FuzzReplay.run(EGWWireFuzz.targets, packageOf: #filePath)
    #expect(report.failures == [])
    #expect(report.inputs.count == EGWWireFuzz.targets.count)
}
