import FuzzSupport
import Testing

@testable import CardValidationFuzz

/// Every checked-in fuzz input once through the checks `make fuzz` runs (see FuzzSupport's README).
@Test func fuzzCorporaAndRegressionsPass() {
    let report = FuzzReplay.run(CardValidationFuzz.targets, packageOf: #filePath)
    #expect(report.failures == [])
    #expect(report.inputs.count == CardValidationFuzz.targets.count)
}
