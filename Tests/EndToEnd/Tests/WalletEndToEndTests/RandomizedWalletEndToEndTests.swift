import EGWWire
import Foundation
import GatewaySandbox
import XCTest

@testable import PaymentAuthorization

/// Random wallet schedules paid against the sandbox (moved out of `RandomizedSheetTests`, which needs
/// no sandbox): faults, deadlines and cancels mid-payment; one result, a settled payment never reported
/// `.cancelled`/`.failed`, the sheet never shows failure while a payment settled or the outcome is
/// `.unresolved`, never two settled, and the order handed to the app is what the buyer authorized.
final class RandomizedWalletEndToEndTests: XCTestCase {
    // MARK: - Wallet payments against the sandbox

    func testRandomWalletSchedulesAgainstTheSandbox() throws {
        let sandbox = SharedSandbox.instance
        let count = SheetSchedules.schedules.count
        var violations: [String] = []
        var outcomes: [PaymentOutcome: Int] = [:]
        let faults: [SandboxFault?] = [
            nil, nil,
            SandboxFault(endpoint: .authentication, kind: .latency(.milliseconds(30)), schedule: .next(1)),
            SandboxFault(
                endpoint: .cardSessionCreate, kind: .dropConnection, schedule: .next(1), processesRequest: true),
            SandboxFault(
                endpoint: .cardSessionCreate, kind: .dropConnection, schedule: .always, processesRequest: true),
            SandboxFault(endpoint: .authentication, kind: .status(503), schedule: .next(1)),
            SandboxFault(endpoint: .cardSessionCreate, kind: .status(500), schedule: .next(1), processesRequest: true),
        ]
        let cardPool = ["4111 1111 1111 1111", "5555 5555 5555 4444", "4000 0000 0000 0002", "4242 4242 4242 4242"]
        for seed in SheetSchedules.schedules.prefix(count) {
            var random = SplitMix64(seed: seed)
            sandbox.clearFaults()
            if let fault = faults[Int(random.next() % UInt64(faults.count))] { sandbox.inject(fault) }
            let clock = VirtualClock()
            let script = (0..<Int(random.next() % 6)).map { _ in
                SheetSchedules.actions[Int(random.next() % UInt64(SheetSchedules.actions.count))]
            }
            let cards = [cardPool[Int(random.next() % 4)], cardPool[Int(random.next() % 4)]]
            let advanceAfterStart = random.next() % 4 == 0
            let cancelAfterStart = random.next() % 4 == 0
            let code = random.next() % 3 == 0 ? "0000" : "1234"
            guard
                let run = WalletRun.run(
                    self, script: script + [.selectContact(0), .authorize, .cancel], cards: cards, challengeCode: code,
                    clock: clock.clock,
                    afterStart: { sheet in
                        if advanceAfterStart { clock.advance(by: 31) }
                        if cancelAfterStart { sheet.perform(.cancel) }
                    })
            else {
                violations.append("seed \(seed): no single result")
                continue
            }
            let result = run.result
            outcomes[result.outcome, default: 0] += 1
            let settled = run.created.filter { sandbox.paymentStatus($0.paymentId) == "SETTLED" }
            if !settled.isEmpty && result.outcome != .succeeded && result.outcome != .unresolved {
                violations.append("seed \(seed): a payment settled but the outcome is \(result.outcome)")
            }
            if result.outcome == .succeeded && settled.isEmpty {
                violations.append("seed \(seed): succeeded with nothing settled")
            }
            if settled.count > 1 { violations.append("seed \(seed): two payments settled") }
            // The sheet never shows failure while the gateway's truth is money moved (a payment settled)
            // or unknown (the outcome is `.unresolved`).
            if (!settled.isEmpty || result.outcome == .unresolved) && run.sheet.statusesShown.contains(.failure) {
                violations.append(
                    "seed \(seed): the sheet showed failure; settled \(settled.count), outcome \(result.outcome)")
            }
            if run.sheet.statusesShown.count > 1 { violations.append("seed \(seed): two final statuses") }
            if run.sheet.isPresenting { violations.append("seed \(seed): sheet still up") }
            violations += Self.orderViolations(run, seed: seed)
        }
        sandbox.clearFaults()
        XCTAssertEqual(violations, [], "\(violations.prefix(5))")
        XCTAssertGreaterThan(outcomes[.succeeded] ?? 0, 0)
        XCTAssertGreaterThan(outcomes[.cancelled] ?? 0, 0)
        print("RandomizedWalletEndToEndTests: \(count) schedules, outcomes \(outcomes), \(violations.count) violations")
    }

    /// The order `paymentFor` got, against independent truths: the sandbox's recorded amount, the
    /// contact the script selected last (contact 0, Riga) with the requested fields only, the merchant's
    /// price list (express costs 4.99: its line is on the sheet exactly when express is the method); and
    /// the result carries the last order.
    static func orderViolations(_ run: WalletRun, seed: UInt64) -> [String] {
        let requested = Contact(
            name: "Jane Doe", street: "Brivibas iela 1", city: "Riga", state: "Riga", postalCode: "LV-1010",
            countryCode: "LV")
        var violations: [String] = []
        if run.orders.count != run.created.count { violations.append("seed \(seed): orders and payments differ") }
        for (order, payment) in zip(run.orders, run.created) {
            if order.minorUnits != payment.amount || order.currencyCode != payment.currency {
                violations.append("seed \(seed): order \(order.amount) but the sandbox payment is \(payment.amount)")
            }
            if order.shippingContact != requested { violations.append("seed \(seed): order shipping contact") }
            let expressLine = order.summaryItems.contains {
                $0.label == "Express" && $0.amount == Decimal(string: "4.99")
            }
            if (order.shippingMethod?.identifier == "express") != expressLine {
                violations.append(
                    "seed \(seed): the method \(order.shippingMethod?.identifier ?? "-") and its price drifted")
            }
            if order.summaryItems.last?.amount != order.total {
                violations.append("seed \(seed): total is not the last item")
            }
        }
        if let last = run.orders.last, run.result.order != last {
            violations.append("seed \(seed): the result does not carry the last order")
        }
        return violations
    }
}
