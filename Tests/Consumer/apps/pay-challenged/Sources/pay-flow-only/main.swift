import Foundation
import PaymentFlow

// The PaymentFlow product alone: a kit, and a card payment refused before any request (the card has no
// expiry, so no gateway is needed), its one result, the SDK's version. Built where only libcurl's and
// OpenSSL's development files are visible (Tests/Consumer/run.sh).
final class NoPages: PaymentPresenter {
    func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
        completion(false)
    }
    func dismiss(completion: @escaping @Sendable () -> Void) { completion() }
}

var configuration = Configuration(
    checkoutAPIBaseURL: URL(string: "https://sandbox-api.example.com"),
    checkoutBaseURL: URL(string: "https://sandbox-checkout.example.com"), environment: .sandbox)
configuration.callbackQueue = DispatchQueue(label: "pay-flow-only")
let kit = PaymentKit(configuration: configuration)
let card = CardInput()
card.cardNumber = "4242 4242 4242 4242"
let result = await kit.startCardPayment(
    CardPaymentRequest(paymentId: "p_1", verificationKey: "k_1"), card: card, from: NoPages())
print(
    "configuration valid: \(configuration.validationError() == nil), outcome: \(result.outcome),"
        + " code: \(result.error?.code ?? -1), sdk: \(PaymentKit.sdkVersion)")
