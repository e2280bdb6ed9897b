import Foundation
import Synchronization
import XCTest

@testable import PaymentAuthorization

/// The controller with a stub delegate, a scripted sheet and a virtual clock: the seed's order, the
/// one-call-at-a-time rule, deadlines, late and repeated answers, and the endings.
final class ControllerTests: XCTestCase {
    func testCancelBeforeAuthorizingCallsOnlyDidFinish() {
        let h = Harness()
        h.present()
        XCTAssertEqual(h.presentAnswers.all, [true])
        XCTAssertTrue(h.sheet.isPresenting)
        XCTAssertEqual(h.act(.cancel), .accepted)
        XCTAssertEqual(h.delegate.calls, ["didFinish", "dismissed"])
        XCTAssertFalse(h.sheet.isPresenting)
        XCTAssertEqual(h.controller.finishReason, .buyerCancelled)
        XCTAssertEqual(h.act(.authorize), .refused(.noSheet))
    }

    func testActionsWhileACallIsOutstandingAreBusy() {
        let h = Harness()
        h.delegate.set { $0.updatePolicy = .held }
        h.present()
        XCTAssertEqual(h.act(.selectShippingMethod("express")), .accepted)
        XCTAssertEqual(h.sheet.current?.state, .busy("didSelectShippingMethod"))
        for action: SheetBuyerAction in [
            .selectContact(0), .selectShippingMethod("standard"), .selectCard(1), .enterCouponCode("X"), .authorize,
        ] {
            XCTAssertEqual(h.act(action), .busy, "\(action)")
        }
        XCTAssertEqual(h.delegate.calls, ["didSelectShippingMethod express"], "busy actions are not queued")
        h.delegate.answerHeldUpdate()
        h.callbacks.drain()
        XCTAssertEqual(h.sheet.current?.state, .ready)
        XCTAssertEqual(h.act(.selectShippingMethod("standard")), .accepted)
    }

    func testCancelDuringAnOutstandingUpdateIgnoresTheLateAnswer() {
        let h = Harness()
        h.delegate.set { $0.updatePolicy = .held }
        h.present()
        h.act(.selectContact(0))
        XCTAssertEqual(h.act(.cancel), .accepted)
        h.delegate.answerHeldUpdate()
        h.callbacks.drain()
        XCTAssertEqual(h.delegate.calls, ["didSelectShippingContact", "didFinish", "dismissed"])
        XCTAssertEqual(
            h.reports.all, [.answerIgnored(call: "didSelectShippingContact", reason: "after the sheet ended")])
    }

    func testAHandlerCalledTwiceOrFromManyThreadsAppliesOnce() {
        for policy in [AnswerPolicy.twice, .fromManyThreads] {
            let h = Harness()
            let items = [
                PaymentSummaryItem(label: "Book", amount: Decimal(string: "12.50")!),
                PaymentSummaryItem(label: "Express", amount: Decimal(string: "4.99")!),
                PaymentSummaryItem(label: "Example shop", amount: Decimal(string: "17.49")!),
            ]
            h.delegate.set {
                $0.updatePolicy = policy
                $0.authorizationPolicy = policy
                $0.update = { _ in PaymentRequestUpdate(paymentSummaryItems: items) }
            }
            h.present()
            h.act(.selectShippingMethod("express"))
            XCTAssertEqual(h.controller.summaryItems, items)
            XCTAssertEqual(h.reports.ignoredAnswers, policy == .twice ? 1 : 99, "\(policy)")
            h.act(.selectContact(0))
            h.act(.authorize)
            XCTAssertEqual(h.didFinishCount, 1, "\(policy)")
            XCTAssertEqual(h.sheet.statusesShown, [.success], "\(policy)")
            XCTAssertEqual(h.reports.ignoredAnswers, policy == .twice ? 3 : 297, "\(policy)")
        }
    }

    func testSynchronousAnswersInsideTheDelegateMethod() {
        let h = Harness()  // the stub answers inside each method by default
        h.present()
        XCTAssertEqual(h.act(.selectContact(0)), .accepted)
        XCTAssertEqual(h.act(.selectShippingMethod("express")), .accepted)
        XCTAssertEqual(h.act(.selectCard(1)), .accepted)
        XCTAssertEqual(h.act(.authorize), .accepted)
        XCTAssertEqual(
            h.delegate.calls,
            [
                "didSelectShippingContact", "didSelectShippingMethod express", "didSelectPaymentMethod",
                "willAuthorize",
                "didAuthorize", "didFinish", "dismissed",
            ])
        XCTAssertEqual(h.reports.all, [])
    }

    func testSuccessIsShownBeforeDidFinish() {
        let h = Harness(sheet: ScriptedWalletSheet(answersStatus: false))
        h.present()
        h.act(.selectContact(0))
        h.act(.authorize)
        XCTAssertEqual(h.sheet.statusesShown, [.success])
        XCTAssertEqual(h.sheet.current?.state, .showingStatus(.success))
        XCTAssertEqual(h.didFinishCount, 0, "didFinish waits for the status to be shown")
        XCTAssertEqual(h.act(.cancel), .refused(.finishing))
        h.sheet.confirmStatus()
        h.callbacks.drain()
        XCTAssertEqual(h.delegate.calls.suffix(2), ["didFinish", "dismissed"])
        XCTAssertEqual(h.controller.finishReason, .completed)
        XCTAssertEqual(h.controller.shownStatus, .success)
    }

    func testFailureWithErrorsKeepsTheSheetOpenAndWithoutErrorsEndsIt() {
        let h = Harness()
        h.delegate.set {
            $0.authorizationResult = PaymentAuthorizationResult(
                status: .failure, errors: [PaymentRequestError.unknown("declined")])
        }
        h.present()
        h.act(.selectContact(0))
        XCTAssertEqual(h.act(.authorize), .accepted)
        XCTAssertEqual(h.didFinishCount, 0)
        XCTAssertEqual(h.sheet.current?.state, .ready)
        XCTAssertEqual(h.sheet.current?.errors, [.request(.unknown("declined"))])
        XCTAssertEqual(h.sheet.statusesShown, [], "a failure with errors is shown as errors, not as a final status")
        h.delegate.set { $0.authorizationResult = PaymentAuthorizationResult(status: .failure) }
        XCTAssertEqual(h.act(.selectCard(1)), .accepted)
        XCTAssertEqual(h.act(.authorize), .accepted)
        XCTAssertEqual(h.sheet.statusesShown, [.failure])
        XCTAssertEqual(h.didFinishCount, 1)
        XCTAssertEqual(h.controller.attempts, 2)
        XCTAssertEqual(h.delegate.calls.filter { $0 == "willAuthorize" }.count, 2)
    }

    func testSeedStatusTwoToFourKeepsTheSheetOpenAndBlocksUntilAnotherContact() {
        let h = Harness()
        h.delegate.set { $0.authorizationResult = PaymentAuthorizationStatus.invalidShippingPostalAddress.result }
        h.present()
        h.act(.selectContact(1))
        h.act(.authorize)
        XCTAssertEqual(h.sheet.current?.errors, [.request(.shippingContactInvalid(.postalAddress))])
        XCTAssertEqual(h.act(.authorize), .refused(.contactHasErrors))
        h.delegate.set { $0.authorizationResult = PaymentAuthorizationResult(status: .success) }
        h.act(.selectContact(0))
        XCTAssertEqual(h.act(.authorize), .accepted)
        XCTAssertEqual(h.sheet.statusesShown, [.success])
        XCTAssertEqual(h.didFinishCount, 1)
    }

    func testWillAuthorizeComesBeforeDidAuthorizeAndThePaymentIsComplete() {
        let h = Harness()
        h.present()
        XCTAssertEqual(h.act(.authorize), .refused(.contactRequired))
        h.act(.selectContact(0))
        h.act(.selectShippingMethod("express"))
        h.act(.authorize)
        let calls = h.delegate.calls
        XCTAssertEqual(calls.firstIndex(of: "willAuthorize").map { $0 + 1 }, calls.firstIndex(of: "didAuthorize"))
        let payment = h.delegate.state.withLock { $0.paymentsSeen.first }
        // The request asks for the name and the postal address: Apple populates only those (issue 21
        // Why "Smaller"; before the change the e-mail and phone were shared too).
        let requested = Contact(
            name: "Jane Doe", street: "Brivibas iela 1", city: "Riga", state: "Riga", postalCode: "LV-1010",
            countryCode: "LV")
        XCTAssertEqual(payment?.shippingContact, requested, "the authorized payment has the requested fields in full")
        XCTAssertNil(payment?.billingContact, "no billing field was requested")
        XCTAssertEqual(payment?.token.paymentMethod.displayName, "Visa •••• 1111")
        XCTAssertEqual(payment?.token.paymentMethod.network, .visa)
        XCTAssertEqual(payment?.shippingMethod?.identifier, "express")
        XCTAssertEqual(payment?.token.card.cardNumber, "4111 1111 1111 1111")
    }

    func testRedactedContactAndPaymentMethodBeforeAuthorization() {
        let h = Harness()
        h.present()
        h.act(.selectContact(0))
        h.act(.selectCard(1))
        let (contacts, methods) = h.delegate.state.withLock { ($0.contactsSeen, $0.methodsSeen) }
        XCTAssertEqual(contacts, [Contact(city: "Riga", state: "Riga", postalCode: "LV-1010", countryCode: "LV")])
        XCTAssertNil(contacts.first?.name)
        XCTAssertNil(contacts.first?.street)
        XCTAssertEqual(methods.map(\.network), [nil])
        XCTAssertEqual(methods.map(\.displayName), [nil])
        XCTAssertEqual(methods.map(\.type), [.debit])
        XCTAssertEqual(h.act(.selectCard(2)), .refused(.cardNotAccepted), "Amex is not in the networks")
    }

    func testEveryDeadline() {
        // present never answered
        let silent = Harness(sheet: ScriptedWalletSheet(presentAnswer: .never))
        silent.present()
        silent.advance(29)
        XCTAssertEqual(silent.presentAnswers.all, [])
        silent.advance(1)
        XCTAssertEqual(silent.presentAnswers.all, [false])
        XCTAssertEqual(silent.delegate.calls, [], "no didFinish for a sheet never shown")
        XCTAssertEqual(silent.controller.finishReason, .presentationFailed)
        // each update and the authorization unanswered
        for (policyIsUpdate, action) in [
            (true, SheetBuyerAction.selectContact(0)), (true, .selectShippingMethod("express")),
            (true, .selectCard(0)), (true, .enterCouponCode("SAVE10")), (false, .authorize),
        ] {
            let h = Harness()
            h.delegate.set { if policyIsUpdate { $0.updatePolicy = .never } else { $0.authorizationPolicy = .never } }
            h.present()
            if !policyIsUpdate { h.act(.selectContact(0)) }
            h.act(action)
            h.advance(29.9)
            XCTAssertEqual(h.didFinishCount, 0, "\(action)")
            XCTAssertTrue(h.sheet.isPresenting, "\(action)")
            h.advance(0.1)
            XCTAssertEqual(h.didFinishCount, 1, "\(action)")
            XCTAssertFalse(h.sheet.isPresenting, "\(action)")
            XCTAssertEqual(h.controller.finishReason, .deadline, "\(action)")
            h.advance(300)
            XCTAssertEqual(h.didFinishCount, 1, "\(action)")
        }
        // the status never confirmed, and a presenter that never confirms the dismissal is not waited on forever
        let h = Harness(sheet: ScriptedWalletSheet(answersStatus: false))
        h.present()
        h.act(.selectContact(0))
        h.act(.authorize)
        h.advance(30)
        XCTAssertEqual(h.didFinishCount, 1)
        XCTAssertEqual(h.controller.finishReason, .completed)
        XCTAssertEqual(h.reports.all, [.deadlinePassed("showStatus")])
    }

    /// Shows the sheet (and a status) but never says it is gone; with the clock, queue, observer and
    /// delegate of a controller over it.
    final class StuckSheet: WalletSheetPresenter {
        let inner = ScriptedWalletSheet()
        let clock = VirtualClock()
        let callbacks = TestQueue()
        let reports = Reports()
        let delegate = StubDelegate()

        /// A controller over this sheet, presented and shown (the delegate leaves the dismissal to it).
        func presentedController() -> PaymentAuthorizationController {
            var options = PaymentAuthorizationController.Options()
            options.clock = clock.clock
            options.callbackQueue = callbacks.queue
            let reports = reports
            options.observer = { reports.add($0) }
            let controller = PaymentAuthorizationController(
                paymentRequest: Fixtures.request(), presenter: self, wallet: Fixtures.wallet(), options: options)!
            controller.delegate = delegate
            delegate.set { $0.dismissInDidFinish = false }
            controller.present()
            callbacks.drain()  // shown
            return controller
        }

        func presentSheet(
            _ sheet: WalletSheet, buyer: any WalletSheetBuyer, completion: @escaping @Sendable (Bool) -> Void
        ) { inner.presentSheet(sheet, buyer: buyer, completion: completion) }
        func update(_ sheet: WalletSheet) { inner.update(sheet) }
        func showStatus(
            _ status: PaymentAuthorizationStatus, on sheet: WalletSheet, completion: @escaping @Sendable () -> Void
        ) { completion() }
        func dismissSheet(completion: @escaping @Sendable () -> Void) {}
    }

    /// The same after a paid authorization: the dismissal asked for once the status was shown (an answer
    /// of the presenter's, not a call of the app's) has its deadline too.
    func testAPresenterThatNeverConfirmsTheDismissalAfterTheStatusIsNotWaitedOnForever() {
        let stuck = StuckSheet()
        let (clock, callbacks, reports) = (stuck.clock, stuck.callbacks, stuck.reports)
        weak var weakController: PaymentAuthorizationController?
        do {
            let controller = stuck.presentedController()
            weakController = controller
        }
        _ = stuck.inner.perform(.selectContact(0))
        callbacks.drain()
        XCTAssertEqual(stuck.inner.perform(.authorize), .accepted)
        callbacks.drain()  // authorized, the status shown, didFinish, the dismissal asked for
        XCTAssertEqual(weakController?.finishReason, .completed)
        XCTAssertNotNil(weakController, "not gone yet: the presenter has not said so")
        clock.advance(by: 30)
        callbacks.drain()
        XCTAssertEqual(reports.all, [.deadlinePassed("dismissSheet")])
        XCTAssertNil(weakController, "released after the dismissal's deadline")
    }

    func testAPresenterThatNeverConfirmsTheDismissalIsNotWaitedOnForever() {
        let stuck = StuckSheet()
        let (clock, callbacks, reports, delegate) = (stuck.clock, stuck.callbacks, stuck.reports, stuck.delegate)
        weak var weakController: PaymentAuthorizationController?
        let gone = Mutex(0)
        do {
            let controller = stuck.presentedController()
            controller.dismiss { gone.withLock { $0 += 1 } }
            weakController = controller
        }
        callbacks.drain()
        XCTAssertEqual(delegate.calls, ["didFinish"])
        XCTAssertEqual(gone.withLock { $0 }, 0, "not gone yet: the presenter has not said so")
        XCTAssertNotNil(weakController)
        clock.advance(by: 30)
        callbacks.drain()
        XCTAssertEqual(gone.withLock { $0 }, 1)
        XCTAssertEqual(reports.all, [.deadlinePassed("dismissSheet")])
        XCTAssertNil(weakController, "released after the dismissal's deadline")
    }

    func testDismissBeforeThePresenterAnsweredEndsItUnshown() {
        let h = Harness()
        let answers = h.presentAnswers
        let gone = Mutex(0)
        h.callbacks.queue.suspend()  // the presenter gets no chance to answer before the dismiss
        h.controller.present { shown in answers.add(shown) }
        h.controller.dismiss { gone.withLock { $0 += 1 } }
        h.callbacks.queue.resume()
        h.callbacks.drain()
        XCTAssertEqual(h.presentAnswers.all, [false])
        XCTAssertEqual(h.delegate.calls, [], "no didFinish for a sheet that never showed")
        XCTAssertEqual(gone.withLock { $0 }, 1)
        XCTAssertFalse(h.sheet.isPresenting, "the half-shown sheet was taken down")
        XCTAssertEqual(h.controller.finishReason, .dismissedByApp)
        XCTAssertEqual(h.reports.all, [.answerIgnored(call: "present", reason: "after the sheet ended")])
    }

    func testNoDeadlineMeansStepping() {
        let h = Harness(deadline: nil)
        h.delegate.set { $0.updatePolicy = .held }
        h.present()
        h.act(.selectContact(0))
        h.advance(100_000)
        XCTAssertEqual(h.clock.pendingTimers, 0)
        XCTAssertEqual(h.sheet.current?.state, .busy("didSelectShippingContact"))
        h.delegate.answerHeldUpdate()
        h.callbacks.drain()
        XCTAssertEqual(h.sheet.current?.state, .ready)
    }

    func testPresentRefusedAndPresentOnlyOnce() {
        let refused = Harness(sheet: ScriptedWalletSheet(presentAnswer: .refuse))
        refused.present()
        XCTAssertEqual(refused.presentAnswers.all, [false])
        XCTAssertEqual(refused.delegate.calls, [])
        let h = Harness()
        h.present()
        h.present()
        XCTAssertEqual(h.presentAnswers.all, [true, false])
        XCTAssertEqual(h.sheet.presentations, 1)
        h.act(.cancel)
        h.present()
        XCTAssertEqual(h.presentAnswers.all, [true, false, false])
    }

    func testDismissDuringAuthorization() {
        let h = Harness()
        h.delegate.set {
            $0.authorizationPolicy = .held
            $0.dismissInDidFinish = false
        }
        h.present()
        h.act(.selectContact(0))
        h.act(.authorize)
        XCTAssertEqual(h.sheet.current?.state, .processing)
        let gone = Mutex(0)
        h.controller.dismiss { gone.withLock { $0 += 1 } }
        h.callbacks.drain()
        XCTAssertEqual(gone.withLock { $0 }, 1)
        XCTAssertEqual(h.didFinishCount, 1)
        XCTAssertFalse(h.sheet.isPresenting)
        h.delegate.answerHeldAuthorization()
        h.callbacks.drain()
        XCTAssertEqual(h.sheet.statusesShown, [], "a late success is not shown on a sheet that is gone")
        XCTAssertEqual(h.reports.all, [.answerIgnored(call: "didAuthorizePayment", reason: "after the sheet ended")])
        h.controller.dismiss { gone.withLock { $0 += 1 } }
        h.callbacks.drain()
        XCTAssertEqual(gone.withLock { $0 }, 2, "dismissing a finished sheet completes at once")
    }

    func testDelegateReleasedMidSheetEndsIt() {
        let h = Harness()
        var delegate: StubDelegate? = StubDelegate()
        h.controller.delegate = delegate
        h.present()
        delegate = nil
        XCTAssertNil(h.controller.delegate)
        XCTAssertEqual(h.act(.selectContact(0)), .accepted)
        XCTAssertFalse(h.sheet.isPresenting, "nobody to answer: the sheet ends instead of waiting")
        XCTAssertEqual(h.controller.finishReason, .delegateGone)
        XCTAssertEqual(h.reports.all, [.delegateGone])
    }

    func testTheControllerKeepsItselfAliveWhileShown() {
        weak var weakController: PaymentAuthorizationController?
        let sheet = ScriptedWalletSheet()
        let callbacks = TestQueue()
        let delegate = StubDelegate()
        do {
            var options = PaymentAuthorizationController.Options()
            options.callbackQueue = callbacks.queue
            options.deadline = nil
            let controller = PaymentAuthorizationController(
                paymentRequest: Fixtures.request(), presenter: sheet, wallet: Fixtures.wallet(), options: options)!
            controller.delegate = delegate
            controller.present()
            weakController = controller
        }
        callbacks.drain()
        XCTAssertNotNil(weakController, "shown: kept alive by itself")
        sheet.perform(.cancel)
        callbacks.drain()
        XCTAssertEqual(delegate.calls, ["didFinish", "dismissed"])
        XCTAssertNil(weakController, "gone once the sheet is down")
    }

    func testCoupons() {
        let h = Harness()
        // A merchant: SAVE10 takes 10 % off 12.50 (1.25, so 11.25), OLD has expired, anything else is unknown.
        final class Merchant: PaymentAuthorizationControllerDelegate {
            let finished = Mutex(0)
            func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
                finished.withLock { $0 += 1 }
            }
            func paymentAuthorizationController(
                _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
                handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
            ) {
                handler(PaymentAuthorizationResult(status: .failure, errors: nil))
            }
            func paymentAuthorizationController(
                _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String,
                handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void
            ) {
                let book = Decimal(string: "12.50")!
                switch couponCode {
                case "SAVE10":
                    let off = Decimal(string: "-1.25")!
                    handler(
                        PaymentRequestUpdate(paymentSummaryItems: [
                            PaymentSummaryItem(label: "Book", amount: book),
                            PaymentSummaryItem(label: "Coupon SAVE10", amount: off),
                            PaymentSummaryItem(label: "Example shop", amount: Decimal(string: "11.25")!),
                        ]))
                case "OLD":
                    handler(
                        PaymentRequestUpdate(
                            errors: [PaymentRequestError.couponCodeExpired],
                            paymentSummaryItems: controller.summaryItems))
                default:
                    handler(
                        PaymentRequestUpdate(
                            errors: [PaymentRequestError.couponCodeInvalid],
                            paymentSummaryItems: controller.summaryItems))
                }
            }
        }
        let merchant = Merchant()
        h.controller.delegate = merchant
        h.present()
        h.act(.enterCouponCode("OLD"))
        XCTAssertEqual(h.sheet.current?.errors, [.request(.couponCodeExpired)])
        XCTAssertNil(h.sheet.current?.couponCode)
        h.act(.enterCouponCode("NOPE"))
        XCTAssertEqual(h.sheet.current?.errors, [.request(.couponCodeInvalid)])
        h.act(.enterCouponCode("SAVE10"))
        XCTAssertEqual(h.sheet.current?.errors, [])
        XCTAssertEqual(h.sheet.current?.couponCode, "SAVE10")
        XCTAssertEqual(h.sheet.current?.total, Decimal(string: "11.25"))
        let rendering = h.sheet.current.map { "\($0)" } ?? ""
        for line in [
            "sheet: ready  total 11.25 EUR", "  Book 12.50 EUR", "  Coupon SAVE10 -1.25 EUR",
            "  = Example shop 11.25 EUR",
            "  [x] standard: Standard 0.00 EUR", "  [ ] express: Express 4.99 EUR", "  card 0 *: Visa •••• 1111",
            "  card 2: American Express •••• 0005 (not accepted)", "  coupon: SAVE10",
        ] {
            XCTAssertTrue(rendering.components(separatedBy: "\n").contains(line), "\(line) in\n\(rendering)")
        }
        var noCoupons = Fixtures.request()
        noCoupons.supportsCouponCode = false
        let plain = Harness(request: noCoupons)
        plain.present()
        XCTAssertEqual(plain.act(.enterCouponCode("SAVE10")), .refused(.noCouponCodes))
    }

    func testAnUnusableUpdateIsRefusedAndTheSheetKeepsItsItems() {
        let h = Harness()
        h.delegate.set {
            $0.update = { _ in
                PaymentRequestUpdate(paymentSummaryItems: [
                    PaymentSummaryItem(label: "Shop", amount: Decimal(string: "1.001")!)
                ])
            }
        }
        h.present()
        let before = h.controller.summaryItems
        h.act(.selectShippingMethod("express"))
        XCTAssertEqual(h.controller.summaryItems, before)
        XCTAssertEqual(h.reports.all, [.updateRefused(call: "didSelectShippingMethod", rule: .tooManyFractionDigits)])
        XCTAssertEqual(h.sheet.current?.state, .ready)
    }
}

/// Choice and price move together (issue 21 Why 3). Each test fails on the code before the change: a
/// refused or failed update moved the selection but not the total, and only contact errors blocked.
final class ChoiceAndPriceTests: XCTestCase {
    func testARefusedMethodUpdateLeavesTheStandardMethodAndPrice() {
        let h = Harness()
        h.present()
        h.act(.selectContact(0))
        h.delegate.set {
            $0.update = { _ in
                PaymentRequestUpdate(paymentSummaryItems: [
                    PaymentSummaryItem(label: "Shop", amount: Decimal(string: "1.001")!)
                ])
            }
        }
        h.act(.selectShippingMethod("express"))
        XCTAssertEqual(h.sheet.current?.selectedShippingMethod, "standard", "the refused choice is undone")
        XCTAssertEqual(h.sheet.current?.total, Decimal(string: "12.50"), "and the price with it")
        XCTAssertEqual(h.act(.authorize), .refused(.lastChangeFailed))
    }

    func testAFailedMethodUpdateBlocksAuthorizationUntilALaterUpdateSucceeds() {
        let h = Harness()
        h.present()
        h.act(.selectContact(0))
        h.delegate.set {
            $0.update = { controller in
                PaymentRequestUpdate(
                    errors: [PaymentRequestError.unknown("no express today")],
                    paymentSummaryItems: controller.summaryItems)
            }
        }
        h.act(.selectShippingMethod("express"))
        XCTAssertEqual(h.sheet.current?.selectedShippingMethod, "standard")
        XCTAssertEqual(h.sheet.current?.errors, [.request(.unknown("no express today"))])
        XCTAssertEqual(h.act(.authorize), .refused(.lastChangeFailed))
        h.delegate.set { $0.update = nil }  // answers with the sheet's items: a success
        h.act(.selectShippingMethod("standard"))
        XCTAssertEqual(h.act(.authorize), .accepted)
    }

    /// The shell's `merchant coupon ODD -0.005`: the coupon's update is refused (three fraction digits of
    /// EUR); express is then priced by the merchant from the sheet's selection, so the buyer pays
    /// 12.50 + 4.99 = 17.49 for express (before: the merchant kept ODD, every later update was refused,
    /// and express stayed selected at the standard 12.50).
    func testARefusedCouponDoesNotLeaveExpressAtTheStandardPrice() throws {
        let clock = VirtualClock()
        let callbacks = TestQueue()
        var options = PaymentAuthorizationController.Options()
        options.clock = clock.clock
        options.callbackQueue = callbacks.queue
        let merchant = SimulatedMerchant(
            name: "Example shop", goods: [PaymentSummaryItem(label: "Book", amount: Decimal(string: "12.50")!)],
            currencyCode: "EUR", initialMethod: Fixtures.request().shippingMethods[0])
        merchant.setCoupon("ODD", .amountOff(Decimal(string: "0.005")!))
        var request = Fixtures.request()
        request.paymentSummaryItems = merchant.summaryItems
        let sheet = ScriptedWalletSheet()
        let kit = PaymentKit(
            configuration: .init(
                apiBaseURL: URL(string: "http://127.0.0.1:9")!, checkoutAPIBaseURL: URL(string: "http://127.0.0.1:9")!,
                checkoutBaseURL: URL(string: "http://127.0.0.1:9")!, environment: .sandbox))
        let context = try XCTUnwrap(
            WalletPaymentContext(
                paymentRequest: request, sheetPresenter: sheet, wallet: Fixtures.wallet(), options: options,
                merchant: merchant, paymentKit: kit, pagePresenter: NoPagePresenter()
            ) { _, _ in })
        context.present { _ in }
        // The context hops through its own queue before the controller presents: poll, bounded.
        for _ in 0..<2000 where !sheet.isPresenting {
            callbacks.drain()
            usleep(500)
        }
        XCTAssertTrue(sheet.isPresenting)
        sheet.perform(.enterCouponCode("ODD"))
        callbacks.drain()
        XCTAssertNil(sheet.current?.couponCode, "the unusable coupon is not applied")
        sheet.perform(.selectShippingMethod("express"))
        callbacks.drain()
        XCTAssertEqual(sheet.current?.selectedShippingMethod, "express")
        XCTAssertEqual(sheet.current?.total, Decimal(string: "17.49"), "express at its price")
        sheet.perform(.cancel)
        callbacks.drain()
    }
}

/// Delegates that implement only the seed's `completion:` forms, or only today's `handler:` forms.
final class DelegateFormTests: XCTestCase {
    final class SeedOnly: SeedPaymentAuthorizationControllerDelegate {
        let log = Mutex<[String]>([])
        func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
            log.withLock { $0.append("didFinish") }
        }
        func paymentAuthorizationController(
            _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
            completion: @escaping @Sendable (PaymentAuthorizationStatus) -> Void
        ) {
            log.withLock { $0.append("didAuthorizePayment:completion:") }
            completion(payment.shippingContact?.countryCode == "LV" ? .success : .invalidShippingPostalAddress)
        }
        func paymentAuthorizationController(
            _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
            completion: @escaping @Sendable (PaymentAuthorizationStatus, [PaymentSummaryItem]) -> Void
        ) {
            log.withLock { $0.append("didSelectShippingMethod:completion:") }
            let total = Decimal(string: "12.50")! + shippingMethod.amount
            completion(
                .success,
                [
                    PaymentSummaryItem(label: "Book", amount: Decimal(string: "12.50")!),
                    PaymentSummaryItem(label: shippingMethod.label, amount: shippingMethod.amount),
                    PaymentSummaryItem(label: "Example shop", amount: total),
                ])
        }
        func paymentAuthorizationController(
            _ controller: PaymentAuthorizationController, didSelectShippingAddress address: Contact,
            completion: @escaping @Sendable (PaymentAuthorizationStatus, [ShippingMethod], [PaymentSummaryItem]) -> Void
        ) {
            log.withLock { $0.append("didSelectShippingAddress:completion:") }
            if address.countryCode == "LV" {
                completion(.success, Fixtures.request().shippingMethods, controller.summaryItems)
            } else {
                completion(.invalidShippingPostalAddress, [], controller.summaryItems)
            }
        }
    }

    final class ModernOnly: PaymentAuthorizationControllerDelegate {
        let log = Mutex<[String]>([])
        func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
            log.withLock { $0.append("didFinish") }
        }
        func paymentAuthorizationController(
            _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
            handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
        ) {
            log.withLock { $0.append("didAuthorizePayment:handler:") }
            handler(PaymentAuthorizationResult(status: .success))
        }
        func paymentAuthorizationController(
            _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact,
            handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
        ) {
            log.withLock { $0.append("didSelectShippingContact:handler:") }
            handler(
                contact.countryCode == "LV"
                    ? PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems)
                    : PaymentRequestUpdate(
                        errors: [PaymentRequestError.shippingAddressUnserviceable],
                        paymentSummaryItems: controller.summaryItems))
        }
    }

    func testSeedOnlyDelegate() {
        let h = Harness()
        let seed = SeedOnly()
        h.controller.delegate = seed
        h.present()
        h.act(.selectContact(1))  // US: the seed's status 3
        XCTAssertEqual(h.sheet.current?.errors, [.request(.shippingContactInvalid(.postalAddress))])
        // A failed update moves neither the choice nor the price (issue 21 Why 3): the request's methods
        // stay, the refused contact is not selected, and authorizing waits for a successful update.
        XCTAssertEqual(h.sheet.current?.shippingMethods.count, 2, "a failed update's arrays are not applied")
        XCTAssertNil(h.sheet.current?.selectedContact)
        XCTAssertEqual(h.act(.authorize), .refused(.lastChangeFailed))
        h.act(.selectContact(0))
        XCTAssertEqual(h.sheet.current?.shippingMethods.count, 2)
        h.act(.selectShippingMethod("express"))
        XCTAssertEqual(h.sheet.current?.total, Decimal(string: "17.49"), "12.50 + 4.99")
        h.act(.authorize)
        XCTAssertEqual(
            seed.log.withLock { $0 },
            [
                "didSelectShippingAddress:completion:", "didSelectShippingAddress:completion:",
                "didSelectShippingMethod:completion:", "didAuthorizePayment:completion:", "didFinish",
            ])
        XCTAssertEqual(h.sheet.statusesShown, [.success])
    }

    func testModernOnlyDelegate() {
        let h = Harness()
        let modern = ModernOnly()
        h.controller.delegate = modern
        h.present()
        h.act(.selectContact(1))
        XCTAssertEqual(h.sheet.current?.errors, [.request(.shippingAddressUnserviceable)])
        XCTAssertEqual(h.act(.authorize), .refused(.lastChangeFailed))
        h.act(.selectContact(0))
        h.act(.enterCouponCode("ANY"))  // default: no coupons
        XCTAssertEqual(h.sheet.current?.errors, [.request(.couponCodeInvalid)])
        XCTAssertEqual(h.act(.authorize), .refused(.lastChangeFailed), "a coupon's failure blocks too")
        h.act(.selectShippingMethod("express"))  // default: items unchanged, a success
        h.act(.authorize)
        XCTAssertEqual(
            modern.log.withLock { $0 },
            [
                "didSelectShippingContact:handler:", "didSelectShippingContact:handler:",
                "didAuthorizePayment:handler:",
                "didFinish",
            ])
        XCTAssertEqual(h.sheet.statusesShown, [.success])
    }

}

/// The controller's executor (issue 21 Why "Smaller"): a clock that fires inside `schedule` and a
/// concurrent callback queue.
final class ExecutorTests: XCTestCase {
    /// Before the change timers were armed inside the controller's lock, so a clock that fires at once
    /// re-entered it: a deadlock (this test then never returns within its 5 s bound). Now `present`
    /// returns and answers once (unshown when the zero deadline wins the race with the sheet).
    func testAClockThatFiresAtOnceDoesNotDeadlock() {
        var options = PaymentAuthorizationController.Options()
        options.clock = SheetClock { _, fire in fire() }
        let callbacks = TestQueue()
        options.callbackQueue = callbacks.queue
        let reports = Reports()
        options.observer = { reports.add($0) }
        let sheet = ScriptedWalletSheet()
        let controller = PaymentAuthorizationController(
            paymentRequest: Fixtures.request(), presenter: sheet, wallet: Fixtures.wallet(), options: options)!
        let answers = PresentAnswers()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            controller.present { answers.add($0) }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "present returned")
        callbacks.drain()
        // Exactly one answer. Which comes first, the sheet's own answer or the zero deadline, is a race
        // between two threads (seen both ways on a loaded machine); when the deadline wins, it says so.
        XCTAssertEqual(answers.all.count, 1, "\(answers.all)")
        if answers.all == [false] {
            XCTAssertEqual(reports.all.first, .deadlinePassed("present"))
        }
    }

    /// A concurrent `callbackQueue` still gets the controller's calls one at a time, in order: the
    /// controller funnels them through a serial queue targeting it. Checked by submitting through the
    /// controller's funnel and watching for overlap, and by the last rendering matching the sheet.
    func testAConcurrentCallbackQueueKeepsCallsSerialAndInOrder() {
        var options = PaymentAuthorizationController.Options()
        options.callbackQueue = DispatchQueue(label: "concurrent-callbacks", attributes: .concurrent)
        options.deadline = nil
        let sheet = ScriptedWalletSheet()
        let controller = PaymentAuthorizationController(
            paymentRequest: Fixtures.request(), presenter: sheet, wallet: Fixtures.wallet(), options: options)!
        XCTAssertFalse(controller.callbackQueue === options.callbackQueue)
        let overlap = Mutex((running: 0, most: 0, order: [Int]()))
        let group = DispatchGroup()
        for index in 0..<200 {
            controller.callbackQueue.async(group: group) {
                overlap.withLock {
                    $0.running += 1
                    $0.most = max($0.most, $0.running)
                    $0.order.append(index)
                }
                usleep(10)
                overlap.withLock { $0.running -= 1 }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(overlap.withLock { $0.most }, 1, "never two callbacks at once")
        XCTAssertEqual(overlap.withLock { $0.order }, Array(0..<200), "in submission order")
    }
}
