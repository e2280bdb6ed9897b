import Foundation
import Synchronization
import XCTest

@testable import PaymentAuthorization

/// A clock that moves only when told: timers fire in deadline order during `advance(by:)`.
final class VirtualClock: Sendable {
    private struct Timer {
        let at: TimeInterval
        let order: Int
        let fire: @Sendable () -> Void
    }

    private let state = Mutex<(now: TimeInterval, order: Int, timers: [Timer])>((0, 0, []))

    var clock: SheetClock {
        SheetClock { [self] delay, fire in
            state.withLock { state in
                state.order += 1
                state.timers.append(Timer(at: state.now + delay, order: state.order, fire: fire))
            }
        }
    }

    var pendingTimers: Int { state.withLock { $0.timers.count } }

    /// Moves time forward, firing every timer that falls due, one at a time, outside the lock.
    func advance(by seconds: TimeInterval) {
        let end = state.withLock { $0.now + seconds }
        while true {
            let due = state.withLock { state -> Timer? in
                guard
                    let next = state.timers.filter({ $0.at <= end }).min(by: { ($0.at, $0.order) < ($1.at, $1.order) })
                else { return nil }
                state.timers.removeAll { $0.order == next.order }
                state.now = next.at
                return next
            }
            guard let due else { break }
            due.fire()
        }
        state.withLock { $0.now = end }
    }
}

/// A serial callback queue a test drains by hand.
final class TestQueue: Sendable {
    let queue = DispatchQueue(label: "sheet-test-callbacks")

    /// Runs everything queued, and everything that queues, until a pass finds nothing new (bounded).
    func drain() {
        for _ in 0..<40 { queue.sync {} }
    }
}

/// How the stub delegate answers one kind of call.
enum AnswerPolicy: Sendable {
    /// Answers inside the delegate method.
    case synchronous
    /// Keeps the answer for the test to give (`answerHeld`).
    case held
    /// Never answers.
    case never
    /// Answers twice inside the method.
    case twice
    /// Answers from 100 threads at once.
    case fromManyThreads
}

/// A delegate that records every call (in order) and answers as its policies say.
final class StubDelegate: PaymentAuthorizationControllerDelegate {
    struct State {
        var calls: [String] = []
        var updatePolicy: AnswerPolicy = .synchronous
        var authorizationPolicy: AnswerPolicy = .synchronous
        var authorizationResult = PaymentAuthorizationResult(status: .success)
        var update: (@Sendable (PaymentAuthorizationController) -> PaymentRequestUpdate)?
        var heldUpdate: (@Sendable () -> Void)?
        var heldAuthorization: (@Sendable () -> Void)?
        var contactsSeen: [Contact] = []
        var methodsSeen: [PaymentMethod] = []
        var paymentsSeen: [Payment] = []
        var dismissInDidFinish = true
    }

    let state = Mutex(State())

    var calls: [String] { state.withLock { $0.calls } }
    func set(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }

    private func record(_ call: String) { state.withLock { $0.calls.append(call) } }

    func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
        record("didFinish")
        if state.withLock({ $0.dismissInDidFinish }) { controller.dismiss { [self] in record("dismissed") } }
    }

    func paymentAuthorizationControllerWillAuthorizePayment(_ controller: PaymentAuthorizationController) {
        record("willAuthorize")
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
        handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
    ) {
        record("didAuthorize")
        let (policy, result) = state.withLock { state in
            state.paymentsSeen.append(payment)
            return (state.authorizationPolicy, state.authorizationResult)
        }
        answer(policy, { handler(result) }, hold: { held in self.state.withLock { $0.heldAuthorization = held } })
    }

    private func update(
        _ name: String, _ controller: PaymentAuthorizationController,
        _ handler: @escaping @Sendable (PaymentRequestUpdate) -> Void
    ) {
        record(name)
        let (policy, make) = state.withLock { ($0.updatePolicy, $0.update) }
        let update = make?(controller) ?? PaymentRequestUpdate(paymentSummaryItems: controller.summaryItems)
        answer(policy, { handler(update) }, hold: { held in self.state.withLock { $0.heldUpdate = held } })
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void
    ) {
        update("didSelectShippingMethod \(shippingMethod.identifier)", controller, handler)
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
    ) {
        state.withLock { $0.contactsSeen.append(contact) }
        update("didSelectShippingContact", controller, handler)
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectPaymentMethod paymentMethod: PaymentMethod,
        handler: @escaping @Sendable (PaymentRequestPaymentMethodUpdate) -> Void
    ) {
        state.withLock { $0.methodsSeen.append(paymentMethod) }
        update("didSelectPaymentMethod", controller, handler)
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String,
        handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void
    ) {
        update("didChangeCouponCode \(couponCode)", controller, handler)
    }

    private func answer(
        _ policy: AnswerPolicy, _ give: @escaping @Sendable () -> Void, hold: (@escaping @Sendable () -> Void) -> Void
    ) {
        switch policy {
        case .synchronous: give()
        case .held: hold(give)
        case .never: break
        case .twice:
            give()
            give()
        case .fromManyThreads:
            DispatchQueue.concurrentPerform(iterations: 100) { _ in give() }
        }
    }

    func answerHeldUpdate() { state.withLock { $0.heldUpdate }?() }
    func answerHeldAuthorization() { state.withLock { $0.heldAuthorization }?() }
}

/// Collects the controller's reports.
final class Reports: Sendable {
    private let items = Mutex<[SheetReport]>([])
    var all: [SheetReport] { items.withLock { $0 } }
    func add(_ report: SheetReport) { items.withLock { $0.append(report) } }
    var ignoredAnswers: Int {
        all.filter { if case .answerIgnored = $0 { return true } else { return false } }.count
    }
}

enum Fixtures {
    static func card(_ number: String, code: String = "123") -> CardInput {
        CardInput(
            cardholderName: "Jane Doe", cardNumber: number, expiryMonth: "12", expiryYear: "35", securityCode: code)
    }

    static let home = Contact(
        name: "Jane Doe", street: "Brivibas iela 1", city: "Riga", state: "Riga", postalCode: "LV-1010",
        countryCode: "LV", emailAddress: "jane@example.com", phoneNumber: "+371 2000 0000")
    static let abroad = Contact(
        name: "Jane Doe", street: "1 Main St", city: "Springfield", state: "IL", postalCode: "62701", countryCode: "US")

    /// Visa 4111..., Mastercard challenge card, an Amex the merchant does not list.
    static func wallet() -> SimulatedWallet {
        SimulatedWallet(
            cards: [
                WalletCard(card("4111 1111 1111 1111")), WalletCard(card("5555 5555 5555 4444"), funding: .debit),
                WalletCard(card("3782 822463 10005", code: "1234")),
            ],
            contacts: [home, abroad])
    }

    static func request(
        total: Decimal = Decimal(string: "12.50")!, shipping: Bool = true
    ) -> PaymentAuthorizationRequest {
        var request = PaymentAuthorizationRequest(
            merchantIdentifier: "merchant.lv.example", countryCode: "LV", currencyCode: "EUR",
            supportedNetworks: [.visa, .mastercard, .maestro],
            paymentSummaryItems: [
                PaymentSummaryItem(label: "Book", amount: total),
                PaymentSummaryItem(label: "Example shop", amount: total),
            ])
        if shipping {
            request.requiredShippingContactFields = [.postalAddress, .name]
            request.shippingMethods = [
                ShippingMethod(identifier: "standard", label: "Standard", amount: 0),
                ShippingMethod(identifier: "express", label: "Express", amount: Decimal(string: "4.99")!),
            ]
        }
        request.supportsCouponCode = true
        return request
    }
}

/// The answers the app's `present` completion got.
final class PresentAnswers: Sendable {
    private let items = Mutex<[Bool]>([])
    var all: [Bool] { items.withLock { $0 } }
    func add(_ shown: Bool) { items.withLock { $0.append(shown) } }
}

/// One controller under test: a scripted sheet, a stub delegate, a virtual clock, a hand-drained queue.
final class Harness {
    let clock = VirtualClock()
    let callbacks = TestQueue()
    let reports = Reports()
    let delegate = StubDelegate()
    let sheet: ScriptedWalletSheet
    let controller: PaymentAuthorizationController
    let presentAnswers = PresentAnswers()

    init(
        request: PaymentAuthorizationRequest = Fixtures.request(), wallet: SimulatedWallet = Fixtures.wallet(),
        sheet: ScriptedWalletSheet = ScriptedWalletSheet(), deadline: TimeInterval? = 30
    ) {
        self.sheet = sheet
        var options = PaymentAuthorizationController.Options()
        options.clock = clock.clock
        options.callbackQueue = callbacks.queue
        options.deadline = deadline
        let reports = reports
        options.observer = { reports.add($0) }
        controller = PaymentAuthorizationController(
            paymentRequest: request, presenter: sheet, wallet: wallet, options: options)!
        controller.delegate = delegate
    }

    func present() {
        let answers = presentAnswers
        controller.present { shown in answers.add(shown) }
        callbacks.drain()
    }

    @discardableResult
    func act(_ action: SheetBuyerAction) -> SheetBuyerReply {
        let reply = sheet.perform(action)
        callbacks.drain()
        return reply
    }

    func advance(_ seconds: TimeInterval) {
        clock.advance(by: seconds)
        callbacks.drain()
    }

    var didFinishCount: Int { delegate.calls.filter { $0 == "didFinish" }.count }
}

/// A page presenter for payments that need no page (frictionless cards): it shows nothing.
final class NoPagePresenter: PaymentPresenter {
    func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
        completion(false)
    }
    func dismiss(completion: @escaping @Sendable () -> Void) { completion() }
}
