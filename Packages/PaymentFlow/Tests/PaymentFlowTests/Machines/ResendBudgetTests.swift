import Foundation
import Testing

@testable import PaymentFlow

/// The one rule for sending a money-moving step again (CONTRACT.md 4a: "resend the same step once with
/// the same `Idempotency-Key`"; GATEWAY.md: `REQUEST_IN_PROGRESS` is waited out, bounded; the README:
/// three waits, 1 s apart). Every resend decision of the card machine is this type's.
@Suite struct ResendBudgetTests {
    @Test func aLostAnswerOrAStepNotAppliedSendsItAgainOnceOnly() throws {
        for occasion in [ResendBudget.Occasion.creationInDoubt(.answerLost), .notApplied] {
            let first = ResendBudget()
            #expect(first.sentOnce, "a refusal to the first send proves nothing was done")
            let again = try #require(first.resending(on: occasion), "\(occasion)")
            #expect(!again.sentOnce, "after a resend a refusal proves nothing")
            #expect(again.resending(on: .creationInDoubt(.answerLost)) == nil, "\(occasion): once only")
            #expect(again.resending(on: .notApplied) == nil, "\(occasion): once only")
        }
    }

    @Test func aConflictIsNeverSentAgain() {
        #expect(ResendBudget().resending(on: .creationInDoubt(.conflict)) == nil)
    }

    @Test func aCreationInProgressIsWaitedOutThreeTimesWhateverWentBefore() throws {
        #expect(ResendBudget.inProgressWaits == 3)
        #expect(ResendBudget.inProgressPause == 1)
        var budget = try #require(ResendBudget().resending(on: .creationInDoubt(.answerLost)))
        for wait in 1...3 {
            budget = try #require(budget.resending(on: .creationInProgress), "wait \(wait)")
            #expect(!budget.sentOnce)
        }
        #expect(budget.resending(on: .creationInProgress) == nil, "a fourth wait")
        #expect(budget.resending(on: .creationInDoubt(.answerLost)) == nil)
    }

    @Test func aContradictionIsReadBackNeverResent() {
        let budget = ResendBudget.readBackOnly
        #expect(!budget.sentOnce)
        #expect(budget.resending(on: .notApplied) == nil)
        #expect(budget.resending(on: .creationInDoubt(.answerLost)) == nil)
    }

    /// The watchdog's grace exists once; every deadline of a call is built from it.
    @Test func theCallDeadlineIsTheRequestTimeoutPlusFiveSeconds() {
        #expect(CallWatchdog.grace == 5)
        #expect(CallWatchdog.deadline(requestTimeout: 30) == 35)
        #expect(PaymentLifecycle.Settings(kind: .card, paymentId: "p", gated: false).callTimeout == 35)
    }
}
