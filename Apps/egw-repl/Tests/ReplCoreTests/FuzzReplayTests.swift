import FuzzSupport
import Testing

@testable import ReplCoreFuzz

/// Every checked-in fuzz input once through the checks `make fuzz` runs (see FuzzSupport's README).
@Test func fuzzCorporaAndRegressionsPass() {
    let report = FuzzReplay.run(ReplCoreFuzz.targets, packageOf: #filePath)
    #expect(report.failures == [])
    #expect(report.inputs.count == ReplCoreFuzz.targets.count)
}
