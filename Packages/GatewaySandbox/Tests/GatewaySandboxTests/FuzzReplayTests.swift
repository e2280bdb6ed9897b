import FuzzSupport
import Testing

@testable import GatewaySandboxFuzz

/// Every checked-in fuzz input once through the checks `make fuzz` runs (see FuzzSupport's README).
@Test func fuzzCorporaAndRegressionsPass() {
    let report = FuzzReplay.run(GatewaySandboxFuzz.targets, packageOf: #filePath)
    #expect(report.failures == [])
    #expect(report.inputs.count == GatewaySandboxFuzz.targets.count)
}
