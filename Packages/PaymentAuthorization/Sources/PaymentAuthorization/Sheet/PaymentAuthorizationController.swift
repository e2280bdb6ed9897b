import CardValidation
import Dispatch
import Foundation
@_spi(LifecycleRuntime) import PaymentFlow
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

    /// What the runner keeps under its lock: the sheet's machine and what the controller holds beside it.
    struct Core: AdmittingLifecycle {
        typealias TimerID = UInt64

        enum Event: Sendable {
            case present(completion: @Sendable (Bool) -> Void, keepAlive: PaymentAuthorizationController)
            case appDismiss(completion: (@Sendable () -> Void)?)
            case machine(SheetMachine.Event)
            /// The app set ``PaymentAuthorizationController/delegate`` (held weakly).
            case setDelegate((any PaymentAuthorizationControllerDelegate)?)
            /// The app set ``PaymentAuthorizationController/mainActorDelegate``: its adapter is held here and
            /// is the delegate.
            case setMainActorDelegate(MainActorDelegateAdapter?)
        }

        /// The machine's actions with what they show read when they were decided (the sheet, the payment,
        /// the completions), performed on the callback queue in that order. Deadlines are armed by `send`.
        enum Effect: Sendable {
            case present(WalletSheet, token: UInt64)
            case answerPresent(@Sendable (Bool) -> Void, shown: Bool)
            case render(WalletSheet)
            case call(SheetMachine.Call, token: UInt64, Payment?)
            case showStatus(PaymentAuthorizationStatus, token: UInt64, WalletSheet)
            case didFinish
            case dismissSheet(token: UInt64)
            case dismissCompleted([@Sendable () -> Void])
            case report(SheetReport)
            /// The self-retention ends when this is performed.
            case release(PaymentAuthorizationController)
        }

        /// What performing an effect needs from the moment it is performed.
        struct Admission {
            var delegate: (any PaymentAuthorizationControllerDelegate)?
            /// For a call: whether the machine still awaits it (it did not move on since it was queued).
            var awaited = true
        }

        var machine: SheetMachine
        weak var delegate: (any PaymentAuthorizationControllerDelegate)?
        /// Holds the adapter of ``PaymentAuthorizationController/mainActorDelegate`` (the adapter holds
        /// the app's delegate weakly).
        var mainActorAdapter: MainActorDelegateAdapter?
        var presentCompletion: (@Sendable (Bool) -> Void)?
        var dismissCompletions: [@Sendable () -> Void] = []
        var keepAlive: PaymentAuthorizationController?
        /// What the last event answered: the reply to a buyer action, and the deadlines to arm.
        var reply: SheetBuyerReply?
        var deadlines: [UInt64] = []

        mutating func handle(_ event: Event) -> [Effect] {
            // What this event answers, and nothing left over from the one before.
            (reply, deadlines) = (nil, [])
            let machineEvent: SheetMachine.Event
            var onPresentRefused: (@Sendable (Bool) -> Void)?
            switch event {
            case .present(let completion, _):
                machineEvent = .present
                onPresentRefused = completion
            case .appDismiss: machineEvent = .appDismiss
            case .machine(let event): machineEvent = event
            case .setDelegate(let delegate):
                self.delegate = delegate
                return []
            case .setMainActorDelegate(let adapter):
                mainActorAdapter = adapter
                delegate = adapter
                return []
            }
            let (actions, reply) = machine.handle(machineEvent)
            self.reply = reply
            if !actions.contains(.refusePresent) {
                switch event {
                case .present(let completion, let controller):
                    presentCompletion = completion
                    keepAlive = controller
                case .appDismiss(let completion):
                    if let completion { dismissCompletions.append(completion) }
                case .machine, .setDelegate, .setMainActorDelegate:
                    break
                }
            }
            return actions.compactMap { action in effect(of: action, onPresentRefused: onPresentRefused) }
        }

        private mutating func effect(
            of action: SheetMachine.Action, onPresentRefused: (@Sendable (Bool) -> Void)?
        ) -> Effect? {
            switch action {
            case .present(let token):
                return .present(machine.sheet, token: token)
            case .refusePresent:
                return onPresentRefused.map { .answerPresent($0, shown: false) }
            case .presentCompleted(let shown):
                guard let completion = presentCompletion else { return nil }
                presentCompletion = nil
                return .answerPresent(completion, shown: shown)
            case .render:
                return .render(machine.sheet)
            case .call(let call, let token):
                let payment =
                    call == .authorization ? machine.payment(transactionIdentifier: UUID().uuidString) : nil
                return .call(call, token: token, payment)
            case .startTimer(let token):
                deadlines.append(token)
                return nil
            case .showStatus(let status, let token):
                return .showStatus(status, token: token, machine.sheet)
            case .didFinish:
                return .didFinish
            case .dismissSheet(let token):
                return .dismissSheet(token: token)
            case .dismissCompleted:
                let completions = dismissCompletions
                dismissCompletions = []
                return .dismissCompleted(completions)
            case .report(let report):
                return .report(report)
            case .release:
                guard let controller = keepAlive else { return nil }
                keepAlive = nil
                return .release(controller)
            }
        }

        mutating func admit(_ effect: Effect) -> Admission? {
            guard case .call(_, let token, _) = effect else { return Admission(delegate: delegate) }
            return Admission(delegate: delegate, awaited: machine.pending?.token == token)
        }
    }

    /// Runs the sheet's machine the SDK's one way, in the runtime's deciding form: a buyer's action is
    /// decided on the buyer's thread and answered at once; what it makes happen is performed on the
    /// callback queue in the order decided.
    private let runner: LockedLifecycleRunner<Core>

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
        runner = LockedLifecycleRunner(
            Core(machine: SheetMachine(request: paymentRequest, cards: wallet.cards, contacts: wallet.contacts)),
            queue: callbackQueue,
            // Deadlines are armed by `send` on options.clock and never cancelled: a stale one finds its token
            // gone in the machine.
            schedule: { _, _ in {} })
        let presenter = presenter
        let observer = options.observer
        runner.setPerformer { [weak self] _, effect, admission in
            Self.perform(effect, admission, controller: self, presenter: presenter, observer: observer)
        }
    }

    /// The delegate, held weakly. Gone while the sheet is up: the sheet ends (no `didFinish`, nobody to
    /// tell) at the next call.
    public var delegate: (any PaymentAuthorizationControllerDelegate)? {
        get { runner.read { $0.delegate } }
        set { send(.setDelegate(newValue)) }
    }

    /// A main-actor delegate (the usual iOS coordinator), held weakly; setting it replaces ``delegate``.
    /// Its methods run on the main actor with `async` forms; see
    /// ``MainActorPaymentAuthorizationControllerDelegate``.
    @MainActor
    public var mainActorDelegate: (any MainActorPaymentAuthorizationControllerDelegate)? {
        get { runner.read { $0.mainActorAdapter }?.target }
        set { send(.setMainActorDelegate(newValue.map { MainActorDelegateAdapter($0) })) }
    }

    /// Shows the sheet. `completion(true)` once it is up; `false` when the presenter cannot show it, does
    /// not answer before the deadline, or this controller was presented before (once per controller).
    /// Called on the callback queue.
    public func present(completion: (@Sendable (Bool) -> Void)? = nil) {
        send(.present(completion: completion ?? { _ in }, keepAlive: self))
    }

    /// Ends the sheet now (if it is up: `didFinish` if not yet sent, an outstanding call's answer will be
    /// ignored) and calls `completion` on the callback queue once it is gone.
    public func dismiss(completion: (@Sendable () -> Void)? = nil) {
        send(.appDismiss(completion: completion))
    }

    // MARK: - The sheet as it stands

    /// The sheet's summary items now (the last is the total).
    public var summaryItems: [PaymentSummaryItem] { runner.read { $0.machine.summaryItems } }
    /// The sheet's shipping methods now.
    public var shippingMethods: [ShippingMethod] { runner.read { $0.machine.shippingMethods } }
    /// The sheet as the presenter last got it.
    public var sheet: WalletSheet { runner.read { $0.machine.sheet } }
    /// Why the sheet ended; nil while it has not.
    public var finishReason: SheetFinishReason? { runner.read { $0.machine.finishReason } }
    /// The last authorization status shown (or answered with errors); nil before any.
    public var shownStatus: PaymentAuthorizationStatus? { runner.read { $0.machine.shownStatus } }
    /// How many times the buyer authorized.
    public var attempts: Int { runner.read { $0.machine.attempts } }

    // MARK: - Executor

    func buyer(_ action: SheetBuyerAction) -> SheetBuyerReply {
        send(.machine(.buyer(action))) ?? .refused(.sheetClosed)
    }

    /// Decides `event` now and arms the deadlines it asked for; returns the reply to a buyer action.
    /// Every event goes through here (a decision taken elsewhere would leave its deadlines unarmed).
    @discardableResult
    private func send(_ event: Core.Event) -> SheetBuyerReply? {
        let (reply, deadlines) = runner.decideNow(event) { ($0.reply, $0.deadlines) }
        // Armed outside the lock: a clock may fire at once, inside `schedule`.
        if let deadline = options.deadline {
            for token in deadlines {
                options.clock.schedule(deadline) { [weak self] in self?.send(.machine(.deadline(token: token))) }
            }
        }
        return reply
    }

    /// Performs one effect on the callback queue. The controller is held weakly: while the sheet is up it
    /// keeps itself alive (`keepAlive`), and what comes after its release needs no controller. The
    /// presenter's answers go back through `send`, which arms the deadlines they ask for.
    private static func perform(
        _ effect: Core.Effect, _ admission: Core.Admission, controller: PaymentAuthorizationController?,
        presenter: any WalletSheetPresenter, observer: (@Sendable (SheetReport) -> Void)?
    ) {
        switch effect {
        case .present(let sheet, let token):
            guard let controller else { return }
            presenter.presentSheet(sheet, buyer: SheetBuyer(controller)) { shown in
                controller.send(.machine(.presenterAnswered(token: token, shown: shown)))
            }
        case .answerPresent(let completion, let shown):
            completion(shown)
        case .render(let sheet):
            presenter.update(sheet)
        case .call(let call, let token, let payment):
            guard admission.awaited, let controller else { return }  // the sheet moved on since it was queued
            guard let delegate = admission.delegate else {
                controller.send(.machine(.delegateGone(token: token)))
                return
            }
            controller.callDelegate(delegate, call, token: token, payment: payment)
        case .showStatus(let status, let token, let sheet):
            guard let controller else { return }
            presenter.showStatus(status, on: sheet) { controller.send(.machine(.statusShown(token: token))) }
        case .didFinish:
            guard let controller else { return }
            admission.delegate?.paymentAuthorizationControllerDidFinish(controller)
        case .dismissSheet(let token):
            guard let controller else { return }
            presenter.dismissSheet { controller.send(.machine(.sheetGone(token: token))) }
        case .dismissCompleted(let completions):
            for completion in completions { completion() }
        case .report(let report):
            observer?(report)
        case .release:
            break  // the effect held the controller until now
        }
    }

    /// The delegate answering the authorization now in progress takes its deadline over: the sheet's
    /// deadline no longer ends it (``WalletPaymentContext`` bounds `paymentFor` and the EGW payment with
    /// their own timers, so a 3-D Secure challenge of minutes is not cut at 30 s). No effect outside an
    /// authorization.
    func delegateOwnsAuthorizationDeadline() {
        let token = runner.read { core -> UInt64? in
            guard let pending = core.machine.pending, pending.call == .authorization else { return nil }
            return pending.token
        }
        if let token { send(.machine(.delegateOwnsDeadline(token: token))) }
    }

    /// Makes delegate call `token` (on the callback queue; the machine still awaits it).
    private func callDelegate(
        _ delegate: any PaymentAuthorizationControllerDelegate, _ call: SheetMachine.Call, token: UInt64,
        payment: Payment?
    ) {
        let update: @Sendable (PaymentRequestUpdate) -> Void = {
            self.send(.machine(.answer(token: token, .update($0))))
        }
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
                self.send(.machine(.answer(token: token, .authorization(result))))
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
