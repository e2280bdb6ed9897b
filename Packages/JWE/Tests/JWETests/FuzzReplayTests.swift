import FuzzSupport
import Testing

@testable import JWEFuzz

/// Every checked-in fuzz input once through the checks `make fuzz` runs (see FuzzSupport's README).
@Test func fuzzCorporaAndRegressionsPass() {
    let report = FuzzReplay.run(JWEFuzz.targets, packageOf: #filePath)
    #expect(report.failures == [])
    #expect(report.inputs.count == JWEFuzz.targets.count)
}
