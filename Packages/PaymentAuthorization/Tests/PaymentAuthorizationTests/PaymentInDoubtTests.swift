import Foundation
import Testing

@testable import PaymentAuthorization
@testable import PaymentFlow

/// Issue 29 Build 3: a payment in doubt is never shown as failed. When the EGW payment behind the sheet
/// ends `.unresolved` (a lost creation, an applied step whose read-back failed, `PAYMENT_ALREADY_PROCESSED`),
/// the sheet is answered `.unresolved` (shown as being confirmed), ends without a retry, and the app gets
/// the whole result with `.unresolved`. Before the change the context answered `.failure` ("Payment failed").
@Suite struct PaymentInDoubtTests {
    typealias Machine = WalletContextMachine
    let request = CardPaymentRequest(paymentId: "p", verificationKey: "k")
    let payment = WalletContextExplorationTests.World.payment

    static func error(_ code: PaymentError.Code) -> NSError {
        NSError(domain: PaymentError.domain, code: code.rawValue)
    }

    /// Every kind of `PaymentResult` a card payment can end with (each outcome with no error and with
    /// each of the twelve codes), and what the sheet must show for it, written out by hand from
    /// CONTRACT.md 4a and section 7: money moved or unknown is never `.failure`.
    @Test func everyPaymentResultKindMapsToItsSheetAnswer() {
        var rows: [(PaymentOutcome, PaymentError.Code?, PaymentAuthorizationStatus, [String])] = []
        for code in [nil] + PaymentError.Code.allCases.map(Optional.some) {
            rows.append((.succeeded, code, .success, []))
            rows.append((.unresolved, code, .unresolved, []))
            rows.append((.cancelled, code, .failure, []))
            let retry: [String] =
                switch code {
                case .cardSessionFailed?: ["card declined"]
                case .cardBrandNotAccepted?: ["card brand not accepted"]
                case .authenticationFailed?: ["authentication failed"]
                default: []
                }
            rows.append((.failed, code, .failure, retry))
        }
        #expect(rows.count == 4 * 13)
        for (outcome, code, status, errors) in rows {
            let result = PaymentResult(outcome: outcome, paymentId: "p", error: code.map(Self.error))
            let answer = Machine.sheetResult(for: result)
            let row = "\(outcome) \(code.map { "\($0)" } ?? "no error")"
            #expect(answer.status == status, "\(row)")
            #expect(answer.errors.map { "\($0)" } == errors, "\(row)")
            if outcome == .unresolved || outcome == .succeeded {
                #expect(answer.status != .failure, "money moved or unknown is never shown as failed: \(row)")
            }
        }
    }

    /// The lost creation, row by row: the sheet is answered `.unresolved`, and after the sheet is gone the
    /// result is `.unresolved` with the payment and the order.
    @Test func aLostCreationIsAnsweredUnresolvedAndDeliveredUnresolved() {
        var m = Machine(settings: .init())
        _ = m.handle(.present)
        _ = m.handle(.authorized(token: 1, payment))
        _ = m.handle(.paymentForAnswered(token: 1, .success(request)))
        let lost = PaymentResult(outcome: .unresolved, paymentId: "p", error: Self.error(.networkError))
        let answer = m.handle(.paymentFinished(token: 1, lost))
        guard case .answerSheet(1, let result)? = answer.first, answer.count == 1 else {
            Issue.record("expected one answer, got \(answer)")
            return
        }
        #expect(result.status == .unresolved)
        #expect(result.errors.isEmpty)
        #expect(m.handle(.didFinish).count == 1)
        let delivered = m.handle(.sheetGone(.completed))
        guard case .deliver(let terminal)? = delivered.first else {
            Issue.record("no result: \(delivered)")
            return
        }
        #expect(terminal.outcome == .unresolved)
        #expect(terminal.payment?.paymentId == "p")
        #expect(terminal.order != nil)
        #expect(terminal.error == nil)
    }

    /// A decline, then a payment in doubt on the last allowed attempt: still `.unresolved` (the attempt
    /// count turns only a retryable decline into the sheet's end), and any authorization asked after it
    /// is answered with the truth, never `.failure`.
    @Test func thePaymentInDoubtOnTheLastAttemptIsNotTurnedIntoAFailure() {
        var m = Machine(settings: .init(paymentForTimeout: 60, maximumAttempts: 2))
        _ = m.handle(.present)
        _ = m.handle(.authorized(token: 1, payment))
        _ = m.handle(.paymentForAnswered(token: 1, .success(request)))
        _ = m.handle(
            .paymentFinished(
                token: 1, PaymentResult(outcome: .failed, paymentId: "p", error: Self.error(.cardSessionFailed))))
        _ = m.handle(.authorized(token: 2, payment))
        _ = m.handle(.paymentForAnswered(token: 2, .success(request)))
        let second = m.handle(.paymentFinished(token: 2, PaymentResult(outcome: .unresolved, paymentId: "p")))
        #expect(Self.statuses(second) == [.unresolved])
        #expect(m.error == nil, "no attemptsExhausted for a payment in doubt")
        let again = m.handle(.authorized(token: 3, payment))
        #expect(Self.statuses(again) == [.unresolved], "asked again after the doubt: the truth, not failure")
        _ = m.handle(.didFinish)
        let delivered = m.handle(.sheetGone(.completed))
        guard case .deliver(let terminal)? = delivered.first else {
            Issue.record("no result: \(delivered)")
            return
        }
        #expect(terminal.outcome == .unresolved)
    }

    /// The sheet itself: an authorization answered `.unresolved` is shown as its own status and ends the
    /// sheet, with errors or without (no retry), and `shownStatus` says so.
    @Test(arguments: [false, true]) func theSheetShowsUnresolvedAndEnds(withErrors: Bool) {
        let h = Harness()
        h.delegate.set {
            $0.authorizationResult = PaymentAuthorizationResult(
                status: .unresolved, errors: withErrors ? [PaymentRequestError.unknown("lost")] : nil)
        }
        h.present()
        h.act(.selectContact(0))
        #expect(h.act(.authorize) == .accepted)
        #expect(h.sheet.statusesShown == [.unresolved])
        #expect(h.controller.shownStatus == .unresolved)
        #expect(h.controller.finishReason == .completed)
        #expect(h.didFinishCount == 1)
        #expect(!h.sheet.isPresenting)
        #expect(h.sheet.transcript.contains("status: unresolved"))
    }

    /// A seed delegate's `completion(.unresolved)` reaches the sheet as it is; an update given
    /// `.unresolved` (meaningless for a change) reads `.failure`, so it can never pass for a success.
    @Test func theStatusFoldsForResultsAndUpdates() {
        #expect(PaymentAuthorizationStatus.unresolved.result.status == .unresolved)
        #expect(PaymentAuthorizationStatus.unresolved.description == "unresolved")
        var result = PaymentAuthorizationResult(status: .failure)
        result.status = .unresolved
        #expect(result.status == .unresolved)
        let items = Fixtures.request().paymentSummaryItems
        #expect(PaymentRequestUpdate(paymentSummaryItems: items, status: .unresolved).status == .failure)
        var update = PaymentRequestUpdate(paymentSummaryItems: items)
        update.status = .unresolved
        #expect(update.status == .failure)
    }

    static func statuses(_ effects: [Machine.Effect]) -> [PaymentAuthorizationStatus] {
        effects.compactMap { effect in
            if case .answerSheet(_, let result) = effect { return result.status }
            return nil
        }
    }
}
