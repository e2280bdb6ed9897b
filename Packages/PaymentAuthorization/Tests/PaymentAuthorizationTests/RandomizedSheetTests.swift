import EGWWire
import Foundation
import Synchronization
import XCTest

@testable import PaymentAuthorization

/// Randomized schedules (1,000 by default; `EGW_SCHEDULES=10000` for `make soak`; `EGW_SEED=n` replays
/// one): buyer actions, delegate answer timing (synchronous, twice, from many threads, late, never),
/// deadlines on a virtual clock, and sandbox faults, through the real controller. Each schedule ends with
/// the buyer giving up and the clock running out, then checks:
/// - exactly one `didFinish` for a shown sheet (none for an unshown one), and the sheet is down;
/// - the final status shown is the last authorization's answer as it is (`.unresolved` never shown as
///   `.failure`);
/// - the controller is released (nothing keeps a finished sheet alive);
/// - wallet schedules: exactly one `WalletPaymentResult`, after the sheet and the page are gone; if the
///   gateway settled a payment the outcome is `.succeeded`; a `.cancelled` or `.failed` outcome has no
///   settled payment behind it.
final class RandomizedSheetTests: XCTestCase {

    // MARK: - The stub delegate's answers, the sheet's events

    /// A delegate whose every answer timing is drawn at random.
    final class ChaosDelegate: PaymentAuthorizationControllerDelegate {
        struct State {
            var random: SplitMix64
            var held: [@Sendable () -> Void] = []
            var didFinish = 0
            var callsAfterFinish = 0
            /// The status each authorization is answered with, in order.
            var answers: [PaymentAuthorizationStatus] = []
        }
        let state: Mutex<State>
        init(seed: UInt64) { state = Mutex(State(random: SplitMix64(seed: seed))) }

        func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
            state.withLock { $0.didFinish += 1 }
        }

        /// synchronous, twice, many threads, late (held), never.
        private func give(_ answer: @escaping @Sendable () -> Void) {
            let policy = state.withLock { state in
                if state.didFinish > 0 { state.callsAfterFinish += 1 }
                return Int(state.random.next() % 5)
            }
            switch policy {
            case 0: answer()
            case 1:
                answer()
                answer()
            case 2: DispatchQueue.concurrentPerform(iterations: 8) { _ in answer() }
            case 3: state.withLock { $0.held.append(answer) }
            default: break
            }
        }

        func releaseOneHeld() {
            let answer = state.withLock { $0.held.isEmpty ? nil : $0.held.removeFirst() }
            answer?()
        }

        func paymentAuthorizationController(
            _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
            handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
        ) {
            let result = state.withLock { state in
                let result = [
                    PaymentAuthorizationResult(status: .success), PaymentAuthorizationResult(status: .failure),
                    PaymentAuthorizationResult(status: .failure, errors: [WalletCardError.declined]),
                    PaymentAuthorizationResult(status: .unresolved),
                ][Int(state.random.next() % 4)]
                state.answers.append(result.status)
                return result
            }
            give { handler(result) }
        }

        func paymentAuthorizationController(
            _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact,
            handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
        ) {
            let items = controller.summaryItems
            let bad = contact.countryCode == "US"
            give {
                handler(
                    PaymentRequestUpdate(
                        errors: bad ? [PaymentRequestError.shippingAddressUnserviceable] : [],
                        paymentSummaryItems: items))
            }
        }

        func paymentAuthorizationController(
            _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
            handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void
        ) {
            let items = controller.summaryItems
            give { handler(PaymentRequestUpdate(paymentSummaryItems: items)) }
        }

        func paymentAuthorizationController(
            _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String,
            handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void
        ) {
            let items = controller.summaryItems
            give { handler(PaymentRequestUpdate(paymentSummaryItems: items)) }
        }
    }

    func testRandomSchedulesWithAStubDelegate() {
        var violations: [String] = []
        var steps = 0
        for seed in SheetSchedules.schedules {
            var random = SplitMix64(seed: seed)
            let presentAnswer: ScriptedWalletSheet.PresentAnswer = random.next() % 10 == 0 ? .never : .show
            let h = Harness(
                sheet: ScriptedWalletSheet(presentAnswer: presentAnswer, answersStatus: random.next() % 4 != 0))
            let delegate = ChaosDelegate(seed: random.next())
            h.controller.delegate = delegate
            h.present()
            for _ in 0..<Int(random.next() % 14) {
                steps += 1
                switch random.next() % 7 {
                case 0, 1, 2: h.act(SheetSchedules.actions[Int(random.next() % UInt64(SheetSchedules.actions.count))])
                case 6:  // acts before the queue ran what the last action started
                    h.sheet.perform(SheetSchedules.actions[Int(random.next() % UInt64(SheetSchedules.actions.count))])
                case 3: h.advance(Double(random.next() % 40))
                case 4:
                    delegate.releaseOneHeld()
                    h.callbacks.drain()
                default:
                    h.sheet.confirmStatus()
                    h.callbacks.drain()
                }
            }
            // The buyer gives up; time runs out; late answers still come in.
            h.act(.cancel)
            for _ in 0..<4 { h.advance(31) }
            delegate.releaseOneHeld()
            h.callbacks.drain()
            let shown = h.sheet.presentations == 1
            let (finished, late) = delegate.state.withLock { ($0.didFinish, $0.callsAfterFinish) }
            if late > 0 { violations.append("seed \(seed): \(late) delegate calls after didFinish") }
            if finished != (shown ? 1 : 0) { violations.append("seed \(seed): didFinish \(finished) (shown \(shown))") }
            if h.sheet.isPresenting { violations.append("seed \(seed): sheet still up") }
            if h.controller.finishReason == nil { violations.append("seed \(seed): never finished") }
            if h.presentAnswers.all.count != 1 {
                violations.append("seed \(seed): present answered \(h.presentAnswers.all)")
            }
            if h.sheet.statusesShown.count > 1 { violations.append("seed \(seed): two final statuses") }
            if h.controller.finishReason == .buyerCancelled && h.sheet.statusesShown == [.success] {
                violations.append("seed \(seed): success shown, then reported cancelled")
            }
            // A final status comes from the last authorization (after it, the sheet asks nothing): the
            // sheet shows that answer as it is, so a payment in doubt is never shown as failed.
            let answers = delegate.state.withLock { $0.answers }
            if let shown = h.sheet.statusesShown.first, shown != answers.last {
                violations.append("seed \(seed): the delegate answered \(answers), the sheet showed \(shown)")
            }
        }
        XCTAssertEqual(violations, [], "\(violations.prefix(5))")
        print(
            "RandomizedSheetTests(stub): \(SheetSchedules.schedules.count) schedules, \(steps) random steps, \(violations.count) violations"
        )
    }

    func testNoControllerOutlivesItsSheet() {
        // Separate from the harness (which holds its controller): only the sheet's own retention.
        for seed in SheetSchedules.schedules.prefix(200) {
            var random = SplitMix64(seed: seed)
            weak var weakController: PaymentAuthorizationController?
            let callbacks = TestQueue()
            let clock = VirtualClock()
            let sheet = ScriptedWalletSheet(answersStatus: random.next() % 2 == 0)
            let delegate = ChaosDelegate(seed: random.next())
            do {
                var options = PaymentAuthorizationController.Options()
                options.callbackQueue = callbacks.queue
                options.clock = clock.clock
                let controller = PaymentAuthorizationController(
                    paymentRequest: Fixtures.request(), presenter: sheet, wallet: Fixtures.wallet(), options: options)!
                controller.delegate = delegate
                controller.present()
                weakController = controller
            }
            callbacks.drain()
            for _ in 0..<Int(random.next() % 8) {
                sheet.perform(SheetSchedules.actions[Int(random.next() % UInt64(SheetSchedules.actions.count))])
                callbacks.drain()
            }
            sheet.perform(.cancel)
            callbacks.drain()
            for _ in 0..<3 {
                clock.advance(by: 31)
                callbacks.drain()
            }
            // Held answers keep their closures (and so the controller) alive until they are dropped.
            delegate.state.withLock { $0.held.removeAll() }
            XCTAssertNil(weakController, "seed \(seed): a finished controller is still alive")
        }
    }
}
