import PaymentFlow
import ReplCore

extension Shell {
    /// `pay card`: waits for PaymentFlow's card flow to land.
    func startCardPayment(
        kit: PaymentKit, run: PaymentRun, payment: CurrentPayment, presenter: HeadlessBrowserPresenter, step: Bool
    ) throws(ReplError) {
        throw ReplError(.notAvailable, "card payments need PaymentFlow's startCardPayment, not in this build yet")
    }
}
