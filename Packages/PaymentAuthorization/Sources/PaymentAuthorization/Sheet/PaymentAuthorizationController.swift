import CardValidation
import Dispatch
import Foundation
import Synchronization

/// Shows a payment sheet through a ``WalletSheetPresenter`` and talks to its delegate in PassKit's
/// order (`PKPaymentAuthorizationController`, the seed's contract).
///
/// ```swift
/// guard let controller = PaymentAuthorizationController(paymentRequest: request, presenter: sheet) else { ... }
/// controller.delegate = myDelegate      // held weakly
/// controller.present { shown in ... }
/// ```
///
/// Guarantees, by construction of its value state machine (`SheetMachine`):
/// - one outstanding delegate call at a time; buyer actions meanwhile are answered `.busy`;
/// - every awaited answer (delegate or presenter) has a deadline (``Options/deadline``, default 30 s;
///   `nil` for none, to step through by hand): a call left unanswered ends the sheet;
/// - only the first answer to a call counts; late and repeated answers are dropped and reported to
///   ``Options/observer``;
/// - `didFinish` exactly once per presentation that was shown (never for one that was not), after which
///   the controller takes the sheet down itself;
/// - the controller keeps itself alive from `present` until the sheet is gone.
///
/// Thread-safe: call it from any thread. The delegate and the presenter are called on
/// ``Options/callbackQueue``, which must be running (the main queue by default).
public final class PaymentAuthorizationController: Sendable {
    /// How the controller waits and where it calls back.
    public struct Options: Sendable {
        /// The deadline on each awaited answer, in seconds; nil for none (stepping).
        public var deadline: TimeInterval? = 30
        /// The clock the deadlines run on.
        public var clock: SheetClock = .live
        /// Where the delegate, the presenter and the completions are called: always serially and in the
        /// controller's order, through a serial queue of the controller's own that targets this one (so a
        /// concurrent queue given here still gets one call at a time). Must be running (the main queue
        /// is drained by `dispatchMain()` or a run loop).
        public var callbackQueue: DispatchQueue = .main
        /// Told (on the callback queue) about late or repeated answers, refused updates, deadlines.
        public var observer: (@Sendable (SheetReport) -> Void)?

        /// The defaults: 30 s, wall clock, main queue, no observer.
        public init() {}
    }

    /// The request as given (the sheet's current items are ``summaryItems``).
    public let paymentRequest: PaymentAuthorizationRequest
    /// The options.
    public let options: Options
    private let presenter: any WalletSheetPresenter
    /// The one serial queue every callback goes through: ``Options/callbackQueue`` itself when it is the
    /// main queue, else a serial queue targeting it (a concurrent queue given there keeps call order).
    let callbackQueue: DispatchQueue

    private struct Core {
        var machine: SheetMachine
        weak var delegate: (any PaymentAuthorizationControllerDelegate)?
        /// Holds the adapter of ``PaymentAuthorizationController/mainActorDelegate`` (the adapter holds
        /// the app's delegate weakly).
        var mainActorAdapter: MainActorDelegateAdapter?
        var presentCompletion: (@Sendable (Bool) -> Void)?
        var dismissCompletions: [@Sendable () -> Void] = []
        var keepAlive: PaymentAuthorizationController?
    }

    private let core: Mutex<Core>

    // MARK: - Can the device pay?

    /// Whether the wallet's device can pay at all.
    public static func canMakePayments(in wallet: SimulatedWallet = .default) -> Bool {
        wallet.isDeviceSupported
    }

    /// Whether the wallet holds a card of one of `networks`.
    public static func canMakePayments(
        usingNetworks networks: [CardBrand], in wallet: SimulatedWallet = .default
    )
        -> Bool
    {
        wallet.isDeviceSupported
            && wallet.cards.contains { SimulatedWallet.accepts($0, networks: networks, capabilities: nil) }
    }

    /// Whether the wallet holds a card of one of `networks` that `capabilities` accept (credit/debit;
    /// a merchant with neither 3-D Secure nor EMV accepts none).
    public static func canMakePayments(
        usingNetworks networks: [CardBrand], capabilities: MerchantCapabilities, in wallet: SimulatedWallet = .default
    ) -> Bool {
        wallet.isDeviceSupported
            && wallet.cards.contains { SimulatedWallet.accepts($0, networks: networks, capabilities: capabilities) }
    }

    // MARK: - Life cycle

    /// A controller for `paymentRequest`, or nil when the request breaks a rule
    /// (`paymentRequest.validationError()` says which) or the device cannot pay. The wallet's cards and
    /// contacts are read now.
    public init?(
        paymentRequest: PaymentAuthorizationRequest, presenter: any WalletSheetPresenter,
        wallet: SimulatedWallet = .default, options: Options = Options()
    ) {
        guard paymentRequest.validationError() == nil, wallet.isDeviceSupported else { return nil }
        self.paymentRequest = paymentRequest
        self.options = options
        self.presenter = presenter
        callbackQueue =
            options.callbackQueue === DispatchQueue.main
            ? .main : DispatchQueue(label: "com.egw.egwpay.sheet-callbacks", target: options.callbackQueue)
        core = Mutex(
            Core(machine: SheetMachine(request: paymentRequest, cards: wallet.cards, contacts: wallet.contacts)))
    }

    /// The delegate, held weakly. Gone while the sheet is up: the sheet ends (no `didFinish`, nobody to
    /// tell) at the next call.
    public var delegate: (any PaymentAuthorizationControllerDelegate)? {
        get { core.withLock { $0.delegate } }
        set { core.withLock { $0.delegate = newValue } }
    }

    /// A main-actor delegate (the usual iOS coordinator), held weakly; setting it replaces ``delegate``.
    /// Its methods run on the main actor with `async` forms; see
    /// ``MainActorPaymentAuthorizationControllerDelegate``.
    @MainActor
    public var mainActorDelegate: (any MainActorPaymentAuthorizationControllerDelegate)? {
        get { core.withLock { $0.mainActorAdapter }?.target }
        set {
            let adapter = newValue.map { MainActorDelegateAdapter($0) }
            core.withLock { core in
                core.mainActorAdapter = adapter
                core.delegate = adapter
            }
        }
    }

    /// Shows the sheet. `completion(true)` once it is up; `false` when the presenter cannot show it, does
    /// not answer before the deadline, or this controller was presented before (once per controller).
    /// Called on the callback queue.
    public func present(completion: (@Sendable (Bool) -> Void)? = nil) {
        let completion = completion ?? { _ in }
        send(
            .present, onPresentRefused: completion,
            prepare: { core in
                core.presentCompletion = completion
                core.keepAlive = self
            })
    }

    /// Ends the sheet now (if it is up: `didFinish` if not yet sent, an outstanding call's answer will be
    /// ignored) and calls `completion` on the callback queue once it is gone.
    public func dismiss(completion: (@Sendable () -> Void)? = nil) {
        send(
            .appDismiss,
            prepare: { core in
                if let completion { core.dismissCompletions.append(completion) }
            })
    }

    // MARK: - The sheet as it stands

    /// The sheet's summary items now (the last is the total).
    public var summaryItems: [PaymentSummaryItem] { core.withLock { $0.machine.summaryItems } }
    /// The sheet's shipping methods now.
    public var shippingMethods: [ShippingMethod] { core.withLock { $0.machine.shippingMethods } }
    /// The sheet as the presenter last got it.
    public var sheet: WalletSheet { core.withLock { $0.machine.sheet } }
    /// Why the sheet ended; nil while it has not.
    public var finishReason: SheetFinishReason? { core.withLock { $0.machine.finishReason } }
    /// The last authorization status shown (or answered with errors); nil before any.
    public var shownStatus: PaymentAuthorizationStatus? { core.withLock { $0.machine.shownStatus } }
    /// How many times the buyer authorized.
    public var attempts: Int { core.withLock { $0.machine.attempts } }

    // MARK: - Executor

    func buyer(_ action: SheetBuyerAction) -> SheetBuyerReply {
        send(.buyer(action)) ?? .refused(.sheetClosed)
    }

    /// Feeds one event to the machine and starts its actions, in order, under the lock (each one only
    /// enqueues work or a timer, so nothing runs inside it). Returns the reply to a buyer action.
    @discardableResult
    private func send(
        _ event: SheetMachine.Event, onPresentRefused: (@Sendable (Bool) -> Void)? = nil,
        prepare: (inout Core) -> Void = { _ in }
    ) -> SheetBuyerReply? {
        let (reply, released, timers) = core.withLock {
            core -> (SheetBuyerReply?, PaymentAuthorizationController?, [UInt64]) in
            let (actions, reply) = core.machine.handle(event)
            if !actions.contains(.refusePresent) { prepare(&core) }
            var released: PaymentAuthorizationController?
            var timers: [UInt64] = []
            for action in actions {
                switch action {
                case .release:
                    released = core.keepAlive
                    core.keepAlive = nil
                case .startTimer(let token):
                    timers.append(token)
                default:
                    start(action, core: &core, onPresentRefused: onPresentRefused)
                }
            }
            return (reply, released, timers)
        }
        // Timers are armed outside the lock: a clock may fire at once, inside `schedule`.
        if let deadline = options.deadline {
            for token in timers {
                options.clock.schedule(deadline) { [weak self] in self?.send(.deadline(token: token)) }
            }
        }
        _ = released  // the self-retention ends here, outside the lock
        return reply
    }

    private func start(
        _ action: SheetMachine.Action, core: inout Core, onPresentRefused: (@Sendable (Bool) -> Void)?
    ) {
        let queue = callbackQueue
        switch action {
        case .present(let token):
            let sheet = core.machine.sheet
            let buyer = SheetBuyer(self)
            queue.async {
                self.presenter.presentSheet(sheet, buyer: buyer) { shown in
                    self.send(.presenterAnswered(token: token, shown: shown))
                }
            }
        case .refusePresent:
            if let onPresentRefused { queue.async { onPresentRefused(false) } }
        case .presentCompleted(let shown):
            if let completion = core.presentCompletion {
                core.presentCompletion = nil
                queue.async { completion(shown) }
            }
        case .render:
            let sheet = core.machine.sheet
            queue.async { self.presenter.update(sheet) }
        case .call(let call, let token):
            let payment = call == .authorization ? core.machine.payment(transactionIdentifier: UUID().uuidString) : nil
            queue.async { self.callDelegate(call, token: token, payment: payment) }
        case .startTimer:
            break  // armed by send, outside the lock
        case .showStatus(let status, let token):
            let sheet = core.machine.sheet
            queue.async {
                self.presenter.showStatus(status, on: sheet) { self.send(.statusShown(token: token)) }
            }
        case .didFinish:
            queue.async { self.delegate?.paymentAuthorizationControllerDidFinish(self) }
        case .dismissSheet(let token):
            queue.async { self.presenter.dismissSheet { self.send(.sheetGone(token: token)) } }
        case .dismissCompleted:
            let completions = core.dismissCompletions
            core.dismissCompletions = []
            queue.async { for completion in completions { completion() } }
        case .report(let report):
            if let observer = options.observer { queue.async { observer(report) } }
        case .release:
            break  // handled by send
        }
    }

    /// The delegate answering the authorization now in progress takes its deadline over: the sheet's
    /// deadline no longer ends it (``WalletPaymentContext`` bounds `paymentFor` and the EGW payment with
    /// their own timers, so a 3-D Secure challenge of minutes is not cut at 30 s). No effect outside an
    /// authorization.
    func delegateOwnsAuthorizationDeadline() {
        let token = core.withLock { core -> UInt64? in
            guard let pending = core.machine.pending, pending.call == .authorization else { return nil }
            return pending.token
        }
        if let token { send(.delegateOwnsDeadline(token: token)) }
    }

    /// Makes delegate call `token` on the callback queue, unless the sheet moved on since it was queued.
    private func callDelegate(_ call: SheetMachine.Call, token: UInt64, payment: Payment?) {
        let (awaited, delegate) = core.withLock { ($0.machine.pending?.token == token, $0.delegate) }
        guard awaited else { return }
        guard let delegate else {
            send(.delegateGone(token: token))
            return
        }
        let update: @Sendable (PaymentRequestUpdate) -> Void = { self.send(.answer(token: token, .update($0))) }
        switch call {
        case .shippingContact(let contact):
            delegate.paymentAuthorizationController(self, didSelectShippingContact: contact, handler: update)
        case .shippingMethod(let method):
            delegate.paymentAuthorizationController(self, didSelectShippingMethod: method, handler: update)
        case .paymentMethod(let method):
            delegate.paymentAuthorizationController(self, didSelectPaymentMethod: method, handler: update)
        case .couponCode(let code):
            delegate.paymentAuthorizationController(self, didChangeCouponCode: code, handler: update)
        case .authorization:
            guard let payment else { return }
            delegate.paymentAuthorizationControllerWillAuthorizePayment(self)
            delegate.paymentAuthorizationController(self, didAuthorizePayment: payment) { result in
                self.send(.answer(token: token, .authorization(result)))
            }
        }
    }
}

/// The buyer's handle a presenter holds; it does not keep the controller alive.
private final class SheetBuyer: WalletSheetBuyer {
    private let controller: Mutex<WeakController>

    private struct WeakController {
        weak var value: PaymentAuthorizationController?
    }

    init(_ controller: PaymentAuthorizationController) {
        self.controller = Mutex(WeakController(value: controller))
    }

    func perform(_ action: SheetBuyerAction) -> SheetBuyerReply {
        guard let controller = controller.withLock({ $0.value }) else { return .refused(.sheetClosed) }
        return controller.buyer(action)
    }
}
