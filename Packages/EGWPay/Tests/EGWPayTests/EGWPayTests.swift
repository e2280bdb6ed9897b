import Foundation
import Testing

import EGWPay

/// Issue 30 (0): `import EGWPay` alone, as seed 000 writes it, reaches what an app pays with: the kit
/// and its configuration (PaymentFlow), the card model (CardValidation) and the outcome (StatusMapping).
@Suite struct EGWPayTests {
    @Test func oneImportReachesTheKitTheCardAndTheOutcome() {
        let card = CardInput()
        card.cardholderName = "Jane Doe"
        card.cardNumber = "4242 4242 4242 4242"
        card.expiryMonth = "12"
        card.expiryYear = "35"
        card.securityCode = "737"
        #expect(card.isValid)
        #expect(card.brand == .visa)

        let configuration = Configuration(
            apiBaseURL: nil, checkoutAPIBaseURL: URL(string: "https://sandbox-api.example.com"),
            checkoutBaseURL: URL(string: "https://sandbox-checkout.example.com"), environment: .sandbox)
        let kit = PaymentKit(configuration: configuration)
        #expect(kit.configuration.environment == .sandbox)
        let request = CardPaymentRequest(paymentId: "pay_1", verificationKey: "vk_1")
        #expect(request.paymentId == "pay_1")
        let outcomes: [PaymentOutcome] = [.succeeded, .failed, .cancelled, .unresolved]
        #expect(Set(outcomes.map { "\($0)" }).count == 4)
        #expect(PaymentKit.userAgent.contains(PaymentKit.sdkVersion))
    }
}
