import Foundation

@testable import PaymentAuthorization

/// The seeds and buyer actions of the randomized sheet schedules, shared by the stub schedules here
/// and the sandbox schedules in Tests/EndToEnd (one copy; that suite links this file).
enum SheetSchedules {
    static var schedules: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["EGW_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["EGW_SCHEDULES"].flatMap(Int.init) ?? 1000
        return (0..<UInt64(count)).map { $0 &* 0x9E37_79B9 &+ 12 }
    }

    static let actions: [SheetBuyerAction] = [
        .selectContact(0), .selectContact(1), .selectShippingMethod("express"), .selectShippingMethod("standard"),
        .selectCard(0), .selectCard(1), .enterCouponCode("SAVE10"), .authorize, .authorize, .cancel,
    ]
}
