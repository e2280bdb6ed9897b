import CardValidation
import HeadlessBrowser
import PaymentFlow
import ReplCore

extension Shell {
    /// `pay card`: the native card flow with the card entered in this session.
    /// The presenter is used only if the issuer asks for a 3-D Secure challenge.
    func startCardPayment(
        kit: PaymentKit, run: PaymentRun, payment: CurrentPayment, presenter: HeadlessBrowserPresenter,
        options paymentOptions: PaymentOptions, step: Bool
    ) throws(ReplError) {
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        running = run
        defer { running = nil }
        let brand = card.brand == .unknown ? "" : " \(card.brand.displayName)"
        let number = card.cardNumber.isEmpty ? "no card number" : CardNumber.masked(card.cardNumber) + brand
        if !options.json {
            console.out(console.styled("Paying \(payment.paymentId) by card (\(number))", .bold) + stepHint(step))
        }
        if !card.isValid && !options.json {
            console.out(
                console.styled("  the card does not pass validation: the SDK will refuse it before any request", .dim))
        }
        kit.startCardPayment(
            request, card: card, from: presenter, options: paymentOptions, completion: run.inbox.completion())
        waitForPayment(run)
    }
}
