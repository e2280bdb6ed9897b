import FuzzSupport
import Testing

@testable import HeadlessBrowserFuzz

/// Every checked-in fuzz input once through the checks `make fuzz` runs (see FuzzSupport's README).
@Test func fuzzCorporaAndRegressionsPass() {
    let report = FuzzReplay.run(HeadlessBrowserFuzz.targets, packageOf: #filePath)
    #expect(report.failures == [])
    #expect(report.inputs.count == HeadlessBrowserFuzz.targets.count)
}
