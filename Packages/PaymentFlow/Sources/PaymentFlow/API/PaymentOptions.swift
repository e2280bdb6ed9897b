/// What one payment reports and asks along the way (Linux addition): passed to each `start...` call of a
/// ``PaymentKit``, so one kit (and its card-encryption key cache) serves every payment of a session while
/// each payment has its own observer and step gate.
///
/// ```swift
/// var options = PaymentOptions()
/// options.observer = { event in print(event) }
/// kit.startCardPayment(request, card: card, from: presenter, options: options) { result in ... }
/// ```
///
/// A value: the closures it holds must be `@Sendable`; the SDK calls them on a private queue of the payment.
/// The default value observes nothing and never pauses.
public struct PaymentOptions: Sendable {
    /// Receives every state transition, HTTP exchange and page event of this payment (for tools like the
    /// REPL), in order, on the payment's private queue; it must not block. `nil` by default.
    public var observer: PaymentObserver?
    /// When set, asked before each action of this payment; the payment waits for `.proceed` or `.cancel`
    /// (``PaymentKit/cancel()`` still works while it waits). `nil` by default (no pauses).
    public var stepGate: PaymentStepGate?

    /// Creates options; every argument defaults to none.
    public init(observer: PaymentObserver? = nil, stepGate: PaymentStepGate? = nil) {
        self.observer = observer
        self.stepGate = stepGate
    }
}
