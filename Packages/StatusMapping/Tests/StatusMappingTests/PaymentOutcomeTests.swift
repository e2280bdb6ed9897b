import StatusMapping
import Testing

// Source of the table: CONTRACT.md "PaymentOutcome" and seed 000 (API reference,
// PaymentOutcome table) / seed 002 (result handling). Typed here from the seeds,
// not from the implementation.
private let seedTable: [(String, PaymentOutcome)] = [
    ("AUTHORIZED", .succeeded), ("CAPTURED", .succeeded), ("SETTLED", .succeeded), ("REFUNDED", .succeeded),
    ("FAILED", .failed),
    ("CANCELLED", .cancelled), ("ABANDONED", .cancelled),
    ("INITIALIZED", .unresolved), ("SENT_FOR_PROCESSING", .unresolved),
]

@Suite("PaymentOutcome mapping")
struct PaymentOutcomeTests {
    @Test("every platform status in the seed table", arguments: seedTable)
    func platformStatus(_ status: String, _ expected: PaymentOutcome) {
        #expect(PaymentOutcome(platformStatus: status) == expected)
    }

    @Test(
        "anything that is not an exact platform string is unresolved",
        arguments: [
            "", " ", "settled", "Settled", "SETTLED ", " SETTLED", "SETTLED\n", "AUTHORISED", "COMPLETED",
            "SUCCESS", "PAID", "failed", "Cancelled", "ABANDON", "REFUND", "PENDING", "null", "0",
            "SETTLED\u{0}", "ＳＥＴＴＬＥＤ",
        ])
    func unknownStatus(_ status: String) {
        #expect(PaymentOutcome(platformStatus: status) == .unresolved)
    }

    @Test func nilIsUnresolved() {
        #expect(PaymentOutcome(platformStatus: nil) == .unresolved)
    }

    @Test func rawValuesAreTheContractsNumbers() {
        #expect(PaymentOutcome.succeeded.rawValue == 0)
        #expect(PaymentOutcome.failed.rawValue == 1)
        #expect(PaymentOutcome.cancelled.rawValue == 2)
        #expect(PaymentOutcome.unresolved.rawValue == 3)
        #expect(PaymentOutcome.allCases.count == 4)
        #expect(PaymentOutcome(rawValue: 4) == nil)
    }

    @Test func descriptionsAreReadable() {
        #expect(PaymentOutcome.allCases.map(\.description) == ["succeeded", "failed", "cancelled", "unresolved"])
        #expect("\(EGWPaymentOutcome.cancelled)" == "cancelled")
    }
}
