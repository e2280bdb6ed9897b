import FuzzSupport
import Testing

@testable import PaymentFlowFuzz

/// Every checked-in fuzz input once through the checks `make fuzz` runs (see FuzzSupport's README).
@Test func fuzzCorporaAndRegressionsPass() {
    let report = FuzzReplay.run(PaymentFlowFuzz.targets, packageOf: #filePath)
    #expect(report.failures == [])
    #expect(report.inputs.count == PaymentFlowFuzz.targets.count)
}
