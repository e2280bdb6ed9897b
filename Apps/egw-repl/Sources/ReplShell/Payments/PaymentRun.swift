import HeadlessBrowser
import PaymentFlow

/// The payment in progress: its kit, its inbox, and what it waits for.
@MainActor
final class PaymentRun {
    let kit: PaymentKit
    let inbox: PaymentInbox
    let flow: PaymentFlowKind
    /// Pause at each step (`pay ... --step`, until `continue`).
    var stepping: Bool
    /// A step waiting for `step`, `continue` or `cancel`.
    var pendingStep: (step: PaymentStep, answer: @Sendable (StepDecision) -> Void)?
    /// A page waiting for the buyer's decision.
    var pendingQuestion: (page: LoadedPage, respond: @Sendable (BuyerAction) -> Void)?
    /// Steps seen so far.
    var stepCount = 0
    /// Set once `cancel` or Ctrl-C asked for cancellation.
    var cancelRequested = false
    /// The input ended while the payment ran.
    var inputClosed = false
    /// The one result.
    var result: PaymentResult?

    init(kit: PaymentKit, inbox: PaymentInbox, flow: PaymentFlowKind, stepping: Bool) {
        self.kit = kit
        self.inbox = inbox
        self.flow = flow
        self.stepping = stepping
    }

    /// Whether the run is waiting for the user.
    var awaitsInput: Bool {
        pendingStep != nil || pendingQuestion != nil
    }
}
