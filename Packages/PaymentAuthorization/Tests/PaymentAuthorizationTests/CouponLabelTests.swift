import Foundation
import Testing

@testable import PaymentAuthorization

/// Issue 32: the coupon line is the merchant's words, so a shop can word it in the buyer's language
/// (before, it was always the English "Coupon <code>").
struct CouponLabelTests {
    let book = PaymentSummaryItem(label: "Grāmata", amount: Decimal(string: "12.50")!)

    @Test func theCouponLineIsWordedByTheMerchant() {
        let merchant = SimulatedMerchant(
            name: "EGW veikals", goods: [book], currencyCode: "EUR", couponLabel: { "Kupons \($0)" })
        let lines = merchant.items(method: nil, coupon: ("SAVE10", .percentOff(10)))
        #expect(lines.map(\.label) == ["Grāmata", "Kupons SAVE10", "EGW veikals"])
        #expect(lines[1].amount == Decimal(string: "-1.25"))
    }

    @Test func anUnwordedCouponLineStaysAsItWas() {
        let merchant = SimulatedMerchant(name: "Example shop", goods: [book], currencyCode: "EUR")
        #expect(merchant.items(method: nil, coupon: ("SAVE10", .percentOff(10)))[1].label == "Coupon SAVE10")
    }
}
