import Foundation
import XCTest

@testable import PaymentAuthorization
@testable import PaymentFlow

/// The wallet context's machine fed events by hand, effects checked whole (swift-nio's state-machine
/// test shape): what a reader needs to know about `paymentFor` and retries without running the walk.
final class WalletContextMachineTests: XCTestCase {
    typealias Machine = WalletContextMachine
    let request = CardPaymentRequest(paymentId: "p", verificationKey: "k")
    let payment = WalletContextExplorationTests.World.payment
    let declined = WalletContextExplorationTests.PaymentEnd.declined

    func describe(_ effects: [Machine.Effect]) -> [String] {
        effects.map { effect in
            switch effect {
            case .askPaymentFor(let token, let order): "ask \(token) \(order.minorUnits)"
            case .startPaymentForTimer(let token, let seconds): "timer \(token) \(Int(seconds))"
            case .startCardPayment(let token, _, _): "pay \(token)"
            case .answerSheet(let token, let result): "answer \(token) \(result)"
            case .dismissSheet: "dismiss"
            case .report(let report): "report \(report)"
            case .deliver(let terminal): "deliver \(terminal.outcome) \(terminal.error.map { "\($0)" } ?? "-")"
            }
        }
    }

    /// Issue 21 Why 2 (never answered): the deadline answers the sheet `.failure`, and the result is
    /// `.failed` with the reason; a later answer starts nothing.
    func testPaymentForNeverAnswered() {
        var m = Machine(settings: .init())
        _ = m.handle(.present)
        XCTAssertEqual(describe(m.handle(.authorized(token: 1, payment))), ["timer 1 60", "ask 1 1250"])
        XCTAssertEqual(
            describe(m.handle(.paymentForDeadline(token: 1))),
            ["report paymentFor deadline passed (attempt 1)", "answer 1 failure"])
        XCTAssertEqual(
            describe(m.handle(.paymentForAnswered(token: 1, .success(request)))),
            ["report ignored a paymentFor answer after its deadline (attempt 1)"])
        XCTAssertEqual(describe(m.handle(.didFinish)), ["dismiss"])
        XCTAssertEqual(
            describe(m.handle(.sheetGone(.completed))),
            ["deliver failed paymentFor did not answer within 60.0 s; no payment was started"])
    }

    /// Issue 21 Why 2 (answered twice): one card payment; the second answer is a report.
    func testPaymentForAnsweredTwice() {
        var m = Machine(settings: .init())
        _ = m.handle(.present)
        _ = m.handle(.authorized(token: 1, payment))
        XCTAssertEqual(describe(m.handle(.paymentForAnswered(token: 1, .success(request)))), ["pay 1"])
        XCTAssertEqual(
            describe(m.handle(.paymentForAnswered(token: 1, .success(request)))),
            ["report ignored a repeated paymentFor answer (attempt 1)"])
        XCTAssertEqual(
            describe(m.handle(.paymentFinished(token: 1, PaymentResult(outcome: .succeeded, paymentId: "p")))),
            ["answer 1 success"])
        _ = m.handle(.didFinish)
        XCTAssertEqual(describe(m.handle(.sheetGone(.completed))), ["deliver succeeded -"])
    }

    /// Issue 21 Why "Smaller" (retries unlimited): the third decline ends the sheet (`maximumAttempts` 3).
    func testTheThirdDeclineEndsTheSheet() {
        var m = Machine(settings: .init())
        _ = m.handle(.present)
        for token in UInt64(1)...3 {
            _ = m.handle(.authorized(token: token, payment))
            _ = m.handle(.paymentForAnswered(token: token, .success(request)))
            let answer = describe(m.handle(.paymentFinished(token: token, declined.result(token))))
            XCTAssertEqual(answer, [token < 3 ? "answer \(token) failure [\"card declined\"]" : "answer 3 failure"])
        }
        _ = m.handle(.didFinish)
        XCTAssertEqual(describe(m.handle(.sheetGone(.completed))), ["deliver failed the buyer used all 3 attempts"])
    }

    /// A buyer cancel while the card payment runs waits for the gateway: its success is the result.
    func testACancelWhilePayingWaitsForTheGateway() {
        var m = Machine(settings: .init())
        _ = m.handle(.present)
        _ = m.handle(.authorized(token: 1, payment))
        _ = m.handle(.paymentForAnswered(token: 1, .success(request)))
        XCTAssertEqual(describe(m.handle(.didFinish)), ["dismiss"])
        XCTAssertEqual(describe(m.handle(.sheetGone(.buyerCancelled))), [], "a payment runs: no result yet")
        XCTAssertEqual(
            describe(m.handle(.paymentFinished(token: 1, PaymentResult(outcome: .succeeded, paymentId: "p")))),
            ["deliver succeeded -"])
    }
}
