import Foundation

/// Which of the two flows a payment runs.
public enum PaymentFlowKind: Sendable, Equatable, CustomStringConvertible {
    /// `startPayment`: the hosted checkout page.
    case hostedCheckout
    /// `startCardPayment`: the native card form with 3-D Secure.
    case card

    /// `"hosted"` or `"card"`.
    public var description: String {
        switch self {
        case .hostedCheckout: "hosted"
        case .card: "card"
        }
    }
}

/// One state transition of a payment's state machine.
public struct PaymentTransition: Sendable, CustomStringConvertible {
    /// The flow.
    public var flow: PaymentFlowKind
    /// The payment.
    public var paymentId: String
    /// The state before, e.g. `"creatingSession"`.
    public var from: String
    /// The state after, e.g. `"authenticating"`.
    public var to: String
    /// What happened, e.g. `"session created (AUTHENTICATION_REQUIRED)"`.
    public var event: String
    /// What the SDK does next, e.g. `"POST authentication"`; `"none"` when it waits.
    public var action: String

    /// `from -> to on event: action`.
    public var description: String { "\(from) -> \(to) on \(event): \(action)" }
}

/// One HTTP exchange the SDK made (the presenter's page loads are not included).
///
/// Bodies are redacted: the encrypted card is shown as its decoded JWE
/// protected header only, the verification key as a short hash.
public struct HTTPExchange: Sendable, CustomStringConvertible {
    /// The `X-Request-Id` sent.
    public var requestId: String
    /// `GET`, `POST`.
    public var method: String
    /// The URL.
    public var url: URL
    /// The HTTP status, or `nil` when no response arrived.
    public var status: Int?
    /// Time from sending to the answer, in seconds.
    public var duration: TimeInterval
    /// The request headers, the verification key replaced by its hash.
    public var requestHeaders: [HTTPHeader]
    /// The request body, redacted, as text.
    public var requestBody: String?
    /// The decoded JWE protected header of the encrypted card, when the request carried one.
    public var encryptedCardHeader: String?
    /// The response body, redacted and shortened, as text.
    public var responseBody: String?
    /// Why no usable response arrived, when that is the case.
    public var failure: String?

    /// `POST url -> 201 (12 ms)`.
    public var description: String {
        let outcome = status.map(String.init) ?? "no response (\(failure ?? "?"))"
        return "\(method) \(url.absoluteString) -> \(outcome) (\(Int((duration * 1000).rounded())) ms)"
    }
}

/// What happens on a page the SDK asked the presenter to show.
public enum PaymentPageEvent: Sendable, CustomStringConvertible {
    /// The SDK asked the presenter to show `url`.
    case presentRequested(URL, PageRequest.Purpose)
    /// The presenter answered (`true`: shown; `false`: could not show).
    case presented(Bool)
    /// The page asked to navigate to `url` and the SDK decided.
    case navigation(URL, NavigationDecision)
    /// A page finished loading.
    case loaded(URL)
    /// A page failed to load.
    case failedToLoad(URL, reason: String)
    /// The buyer closed the page.
    case closedByBuyer
    /// The SDK asked the presenter to dismiss the page.
    case dismissRequested
    /// The presenter reported the page gone.
    case dismissed

    /// A short line.
    public var description: String {
        switch self {
        case .presentRequested(let url, let purpose): "present \(purpose) page \(url.absoluteString)"
        case .presented(let shown): shown ? "page shown" : "page could not be shown"
        case .navigation(let url, let decision): "navigation to \(url.absoluteString): \(decision)"
        case .loaded(let url): "loaded \(url.absoluteString)"
        case .failedToLoad(let url, let reason): "failed to load \(url.absoluteString): \(reason)"
        case .closedByBuyer: "closed by the buyer"
        case .dismissRequested: "dismiss requested"
        case .dismissed: "page dismissed"
        }
    }
}

/// What an observer sees while a payment runs (``PaymentOptions/observer``).
public enum PaymentEvent: Sendable, CustomStringConvertible {
    /// A payment started.
    case started(PaymentFlowKind, paymentId: String)
    /// The state machine moved.
    case transition(PaymentTransition)
    /// An HTTP exchange finished (or failed).
    case http(HTTPExchange)
    /// Something happened on a presented page.
    case page(PaymentPageEvent)
    /// The card data was encrypted (JWE) to the key `kid`, taking `duration` seconds.
    case cardEncrypted(kid: String?, duration: TimeInterval)
    /// The result was handed to the callback queue for delivery.
    case finished(PaymentResult)

    /// A short line.
    public var description: String {
        switch self {
        case .started(let flow, let paymentId): "started \(flow) payment \(paymentId)"
        case .transition(let transition): "transition \(transition)"
        case .http(let exchange): "http \(exchange)"
        case .page(let event): "page \(event)"
        case .cardEncrypted(let kid, let duration):
            "card encrypted to kid \(kid ?? "none") (\(Int((duration * 1_000_000).rounded())) µs)"
        case .finished(let result): "finished \(result)"
        }
    }
}

/// Receives ``PaymentEvent``s. Called on an SDK-internal queue, in order; keep it fast.
public typealias PaymentObserver = @Sendable (PaymentEvent) -> Void

/// The action a payment is about to perform, shown to a ``PaymentStepGate``.
public struct PaymentStep: Sendable, CustomStringConvertible {
    /// The flow.
    public var flow: PaymentFlowKind
    /// The payment.
    public var paymentId: String
    /// The state the machine is in, e.g. `"fetchingKey"`.
    public var state: String
    /// What the SDK is about to do, e.g. `"GET jwks.json"`.
    public var action: String

    /// `state: action`.
    public var description: String { "\(state): \(action)" }
}

/// A step gate's answer.
public enum StepDecision: Sendable, Equatable {
    /// Perform the action.
    case proceed
    /// End the payment as `.cancelled`, through the normal exactly-once path.
    case cancel
}

/// Asked before each action of a payment (``PaymentOptions/stepGate``); the
/// payment waits until the gate calls its answer closure. Called on an
/// SDK-internal queue; answer from any thread. Only the first answer counts.
/// Host cancellation (``PaymentKit/cancel()``) still works while a gate waits.
public typealias PaymentStepGate = @Sendable (PaymentStep, _ answer: @escaping @Sendable (StepDecision) -> Void) -> Void
