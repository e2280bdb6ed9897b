import Dispatch
import Foundation
import Synchronization

/// The entry point: runs one payment at a time, by hosted checkout or by card.
///
/// ```swift
/// let paymentKit = PaymentKit(configuration: configuration)
/// paymentKit.startPayment(request, from: presenter) { result in
///     switch result.outcome { ... }
/// }
/// ```
///
/// The callback contract, for every `start...` overload:
/// - exactly one result per call — never zero, never two;
/// - the completion and the delegate are `@MainActor` and delivered on the main actor (the main
///   queue), never synchronously inside the `start...` call, so a `@MainActor` class calls its own
///   methods in them directly. With the default ``Configuration/callbackQueue`` (`.main`) the result
///   is handed over there; with another callback queue it hops from that queue to the main queue, so
///   the host must run the main queue (a host that does not uses the `async` forms, whose result
///   comes on the callback queue);
/// - after any page the SDK presented has been dismissed (the presenter's
///   dismissal completion has run);
/// - every terminal path goes through it: return URL reached, buyer cancelled,
///   page failed to load, status lookup failed, card session failed, request
///   unusable, ``cancel()``.
///
/// Starting a payment while one runs completes the new one at once (still
/// asynchronously) as `.failed` with `invalidRequest`; the running one is
/// untouched. A `PaymentKit` released mid-payment does not end the payment: it
/// finishes and delivers on its own. Thread-safe: call it from any thread.
public final class PaymentKit: Sendable {
    /// The SDK's version, `major.minor.patch` (semantic versioning: a public declaration removed or
    /// changed only with a new major number). The same as the git tag an app pins by URL.
    public static let sdkVersion = "1.0.0"

    /// The `User-Agent` of every request the SDK itself sends to the gateway: the SDK, its version and
    /// the platform, `EGWPay-Linux/1.0.0 (Linux; x86_64) PaymentFlow`. It names no device, no user
    /// and no card; it is the same on every machine of one architecture.
    public static let userAgent = "EGWPay-Linux/\(sdkVersion) (Linux; \(architecture)) PaymentFlow"

    private static var architecture: String {
        #if arch(x86_64)
            "x86_64"
        #elseif arch(arm64)
            "aarch64"
        #else
            "unknown"
        #endif
    }

    /// The configuration every payment of this kit uses.
    public let configuration: Configuration

    private let statusResolver: (any PaymentStatusResolving)?
    let dependencies: FlowDependencies
    private let keyCache = EncryptionKeyCache()
    private let running = Mutex<(token: UInt64, run: PaymentExecutor)?>(nil)
    private let counter = Mutex<UInt64>(0)

    /// A kit with the built-in status lookup when `configuration.apiBaseURL` is set; otherwise every
    /// hosted payment resolves `.unresolved`.
    public convenience init(configuration: Configuration) {
        self.init(configuration: configuration, resolver: nil, dependencies: .live(configuration: configuration))
    }

    /// A kit whose hosted payments are resolved by `statusResolver` instead of the built-in lookup.
    public convenience init(configuration: Configuration, statusResolver: any PaymentStatusResolving) {
        self.init(
            configuration: configuration, resolver: statusResolver, dependencies: .live(configuration: configuration))
    }

    /// A kit that sends its HTTP requests through `transport` (Linux addition, for tests and tools).
    /// Idempotent reads are still retried (bounded, with jitter) around it.
    public convenience init(
        configuration: Configuration, statusResolver: (any PaymentStatusResolving)? = nil, transport: any HTTPTransport
    ) {
        self.init(
            configuration: configuration, resolver: statusResolver,
            dependencies: .live(configuration: configuration, transport: transport))
    }

    init(configuration: Configuration, resolver: (any PaymentStatusResolving)?, dependencies: FlowDependencies) {
        self.configuration = configuration
        self.statusResolver = resolver
        self.dependencies = dependencies
    }

    /// Whether a payment of this kit is in progress (its result not yet handed to the callback queue's
    /// delivery block).
    public var isPaymentInProgress: Bool { running.withLock { $0 != nil } }

    /// Ends the running payment as `.cancelled` through the normal path: the page (if any) is dismissed
    /// first, then the one result is delivered. Does nothing when no payment runs or it is already ending.
    public func cancel() {
        let run = running.withLock { $0?.run }
        run?.cancel()
    }

    // MARK: - Hosted checkout

    /// Starts a hosted-checkout payment and reports its one result to `completion`.
    ///
    /// `completion` runs exactly once, on the main actor, after the page is gone.
    /// - Parameters:
    ///   - request: the payment from your backend.
    ///   - presenter: shows the checkout page (see ``PaymentPresenter``).
    ///   - options: this payment's observer and step gate (none by default).
    ///   - completion: receives the result.
    public func startPayment(
        _ request: PaymentRequest, from presenter: any PaymentPresenter, options: PaymentOptions = PaymentOptions(),
        completion: @escaping @MainActor @Sendable (PaymentResult) -> Void
    ) {
        _ = beginHosted(request, presenter: presenter, options: options, deliver: Self.onMainActor(completion))
    }

    /// Starts a hosted-checkout payment and reports its one result to `delegate`, held weakly
    /// (if it is gone by then, the result is dropped), on the main actor.
    public func startPayment(
        _ request: PaymentRequest, from presenter: any PaymentPresenter, options: PaymentOptions = PaymentOptions(),
        delegate: any PaymentDelegate
    ) {
        _ = beginHosted(request, presenter: presenter, options: options, deliver: Self.weakDelivery(to: delegate))
    }

    /// Runs a hosted-checkout payment and returns its result (Linux addition).
    ///
    /// The result is produced on the callback queue as with the completion form, so that queue must be
    /// running (the main queue by default). Cancelling the calling task cancels the payment.
    public func startPayment(
        _ request: PaymentRequest, from presenter: any PaymentPresenter, options: PaymentOptions = PaymentOptions()
    ) async -> PaymentResult {
        await awaitResult { beginHosted(request, presenter: presenter, options: options, deliver: $0) }
    }

    private func beginHosted(
        _ request: PaymentRequest, presenter: any PaymentPresenter, options: PaymentOptions,
        deliver: @escaping @Sendable (PaymentResult) -> Void
    ) -> PaymentExecutor {
        begin(
            .hostedCheckout, paymentId: request.paymentId, verificationKey: request.verificationKey,
            presenter: presenter, options: options, deliver: deliver
        ) {
            if let problem = RequestValidation.hosted(request, configuration: configuration) {
                return .failure(problem)
            }
            let source: HostedCheckoutMachine.StatusSource =
                statusResolver != nil ? .resolver : (configuration.apiBaseURL != nil ? .builtIn : .none)
            let page = PagePlan(
                url: GatewayAPI.checkoutPage(
                    checkoutURL: request.checkoutURL, preferredMethod: request.preferredMethod),
                formFields: nil, purpose: .hostedCheckout)
            return .success(
                .hosted(
                    HostedCheckoutMachine(
                        .init(
                            page: page, returnURL: request.returnURL, statusSource: source,
                            repollInterval: dependencies.statusRepollInterval,
                            gatewayOrigins: [configuration.checkoutBaseURL, configuration.checkoutAPIBaseURL]
                                .compactMap { $0 }))))
        }
    }

    // MARK: - Card

    /// Starts a card payment with your own card form and reports its one result to `completion`.
    ///
    /// The card is read and validated now (an invalid card fails with `cardValidationFailed` before any
    /// request), then encrypted on the device (JWE, RSA-OAEP-256 + A256GCM) and paid through a card
    /// session, with 3-D Secure when the issuer asks for it. The presenter is used only for a 3-D Secure
    /// challenge; most card payments show no page. `sessionId` is set once a session exists.
    /// Needs `checkoutAPIBaseURL` (missing: `invalidRequest`) and `checkoutBaseURL` (missing:
    /// `encryptionKeyUnavailable`). `completion` runs exactly once, on the main actor.
    public func startCardPayment(
        _ request: CardPaymentRequest, card: CardInput, from presenter: any PaymentPresenter,
        options: PaymentOptions = PaymentOptions(), completion: @escaping @MainActor @Sendable (PaymentResult) -> Void
    ) {
        _ = beginCard(
            request, card: card, presenter: presenter, options: options, deliver: Self.onMainActor(completion))
    }

    /// Starts a card payment and reports its one result to `delegate`, held weakly, on the main actor.
    public func startCardPayment(
        _ request: CardPaymentRequest, card: CardInput, from presenter: any PaymentPresenter,
        options: PaymentOptions = PaymentOptions(), delegate: any PaymentDelegate
    ) {
        _ = beginCard(
            request, card: card, presenter: presenter, options: options, deliver: Self.weakDelivery(to: delegate))
    }

    /// Runs a card payment and returns its result (Linux addition). The callback queue must be running;
    /// cancelling the calling task cancels the payment.
    public func startCardPayment(
        _ request: CardPaymentRequest, card: CardInput, from presenter: any PaymentPresenter,
        options: PaymentOptions = PaymentOptions()
    ) async -> PaymentResult {
        await awaitResult { beginCard(request, card: card, presenter: presenter, options: options, deliver: $0) }
    }

    private func beginCard(
        _ request: CardPaymentRequest, card: CardInput, presenter: any PaymentPresenter, options: PaymentOptions,
        deliver: @escaping @Sendable (PaymentResult) -> Void
    ) -> PaymentExecutor {
        begin(
            .card, paymentId: request.paymentId, verificationKey: request.verificationKey,
            presenter: presenter, options: options, deliver: deliver
        ) {
            // One reading of the card under one lock: validated, then encrypted, as the same value.
            let snapshot = card.snapshot()
            if let problem = RequestValidation.card(request, card: snapshot, configuration: configuration) {
                return .failure(problem)
            }
            guard let checkoutBaseURL = configuration.checkoutBaseURL else {
                return .failure(FlowError(.encryptionKeyUnavailable, "no checkoutBaseURL"))
            }
            let keys = IdempotencyKeys(dependencies.uuid)
            return .success(
                .card(
                    CardPaymentMachine(
                        .init(card: snapshot, checkoutBaseURL: checkoutBaseURL, keys: keys))))
        }
    }

    // MARK: - Shared

    /// The async form of either flow: starts the run `begin` makes, hands its one result back, and
    /// cancels it when the awaiting task is cancelled.
    private func awaitResult(
        _ begin: (_ deliver: @escaping @Sendable (PaymentResult) -> Void) -> PaymentExecutor
    ) async -> PaymentResult {
        let slot = Mutex<PaymentExecutor?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let run = begin { continuation.resume(returning: $0) }
                slot.withLock { $0 = run }
                // A task cancelled before this point ran `onCancel` while the slot was still empty.
                if Task.isCancelled { run.cancel(reason: "the awaiting task was cancelled") }
            }
        } onCancel: {
            slot.withLock { $0 }?.cancel(reason: "the awaiting task was cancelled")
        }
    }

    /// Builds the flow (or its refusal), then claims the kit's one slot and starts the run. A kit that
    /// is busy refuses whatever the new request holds (CONTRACT.md section 2: the second payment is
    /// `.failed` + `invalidRequest`, even when it is itself invalid).
    func begin(
        _ kind: PaymentFlowKind, paymentId: String, verificationKey: String, presenter: (any PaymentPresenter)?,
        options: PaymentOptions = PaymentOptions(), deliver: @escaping @Sendable (PaymentResult) -> Void,
        build: () -> Result<PaymentLifecycle.Flow, FlowError>
    ) -> PaymentExecutor {
        let token = counter.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let endpoints = GatewayAPI.Endpoints(
            apiBaseURL: configuration.apiBaseURL, checkoutAPIBaseURL: configuration.checkoutAPIBaseURL,
            checkoutBaseURL: configuration.checkoutBaseURL, paymentId: paymentId,
            verificationKey: verificationKey, timeout: configuration.requestTimeout)
        let settings = PaymentLifecycle.Settings(
            kind: kind, paymentId: paymentId, gated: options.stepGate != nil, hasPresenter: presenter != nil,
            challengeTimeout: configuration.challengeTimeout, hostedPageTimeout: configuration.hostedPageTimeout,
            presenterTimeout: dependencies.presenterTimeout,
            callTimeout: CallWatchdog.deadline(requestTimeout: configuration.requestTimeout),
            resolverTimeout: configuration.statusResolverTimeout, stepGateTimeout: configuration.stepGateTimeout,
            allowsPlainHTTP: configuration.environment.allowsPlainHTTP)
        // Built now, while the kit is alive; only the slot release holds the kit weakly.
        func run(_ value: PaymentLifecycle, claimed: Bool) -> PaymentExecutor {
            PaymentExecutor(
                context: PaymentExecutor.Context(
                    endpoints: endpoints, configuration: configuration, options: options, presenter: presenter,
                    resolver: statusResolver, keyCache: keyCache, dependencies: dependencies, deliver: deliver,
                    willDeliver: { [weak self] in
                        guard claimed, let self else { return }
                        self.running.withLock { slot in
                            if slot?.token == token { slot = nil }
                        }
                    }),
                run: value)
        }
        // The request is read and validated (the card snapshot taken and checked) outside the
        // kit's lock, so a slow card read never holds up another thread's start or cancel. A busy kit
        // still refuses with its own error whatever this found.
        let value: PaymentLifecycle
        switch build() {
        case .success(let flow): value = PaymentLifecycle(settings: settings, flow: flow)
        case .failure(let problem): value = PaymentLifecycle(settings: settings, rejection: .failed(problem))
        }
        let claimed: PaymentExecutor? = running.withLock { slot in
            guard slot == nil else { return nil }
            let claimed = run(value, claimed: true)
            // Started before the slot shows it, so a cancel() through the slot is queued behind the start.
            claimed.start()
            slot = (token, claimed)
            return claimed
        }
        if let claimed { return claimed }
        let refusal = run(
            PaymentLifecycle(
                settings: settings,
                rejection: .failed(
                    FlowError(
                        .invalidRequest, "another payment of this PaymentKit is still in progress", source: "PaymentKit"
                    ))),
            claimed: false)
        refusal.start()
        return refusal
    }

    static func weakDelivery(to delegate: any PaymentDelegate) -> @Sendable (PaymentResult) -> Void {
        let box = WeakDelegate(delegate)
        return onMainActor { result in box.value?.paymentDidFinish(result) }
    }

    /// The hand-over of the completion and delegate forms, called on the callback queue: on the main
    /// actor at once when that queue is the main queue (the default), otherwise by one hop to the main
    /// queue. Either way exactly once, and never inside the `start...` call.
    static func onMainActor(
        _ completion: @escaping @MainActor @Sendable (PaymentResult) -> Void
    ) -> @Sendable (PaymentResult) -> Void {
        { result in
            if Thread.isMainThread {
                MainActor.assumeIsolated { completion(result) }
            } else {
                DispatchQueue.main.async { MainActor.assumeIsolated { completion(result) } }
            }
        }
    }
}

/// The weak hold on a ``PaymentDelegate``.
private struct WeakDelegate: Sendable {
    weak var value: (any PaymentDelegate)?
    init(_ value: any PaymentDelegate) { self.value = value }
}
