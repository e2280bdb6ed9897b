import Dispatch
import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentFlow

// A challenged card (GATEWAY.md: 5555 5555 5555 4444 asks for code 1234) paid through the public API
// against the embedded gateway, the headless buyer answering the challenge. Prints the outcome and the
// User-Agent the gateway saw; exits 0 only when the payment succeeded. The async form, whose result comes
// on the callback queue: this tool runs no main queue (the completion form's result is @MainActor).
let sandbox = try Sandbox(configuration: .init(seed: 30))
var configuration = Configuration(
    apiBaseURL: sandbox.apiBaseURL, checkoutAPIBaseURL: sandbox.checkoutAPIBaseURL,
    checkoutBaseURL: sandbox.checkoutBaseURL, environment: .sandbox)
configuration.callbackQueue = DispatchQueue(label: "pay-challenged")
let kit = PaymentKit(configuration: configuration)
let payment = sandbox.createPayment()
let card = CardInput(
    cardholderName: "Jane Doe", cardNumber: "5555 5555 5555 4444", expiryMonth: "12", expiryYear: "35",
    securityCode: "123")
let outcome = await kit.startCardPayment(
    CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey), card: card,
    from: HeadlessBrowserPresenter(script: .answering(challengeCode: "1234"))
).outcome
let challenged = sandbox.requestLog.contains { $0.endpoint == .challengeResult }
print("outcome: \(outcome), challenged: \(challenged), sdk: \(PaymentKit.sdkVersion)")
print("user agents: \(Set(sandbox.requestLog.compactMap(\.userAgent)).sorted())")
exit(outcome == .succeeded && challenged ? 0 : 1)
