import CardFields
import Dispatch
import EGWPay
import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentUITesting

// Seed 000 ("API") and seed 001 ("Natīvā kartes forma"): their Swift samples as written, with only the
// UIKit words replaced by GTK's. The differences, each marked `// GTK:` below:
// - `UIViewController` → a `@MainActor` class that is the `PaymentPresenter` (`from: self`); on GTK the
//   window would show a 3-D Secure page with WebKitPresenter, here the headless buyer answers it;
// - `nameField` (a plain `UITextField`) → the app's own field with `text: String?` (the SDK ships no
//   plain entry); `numberField.text` is a `String` (no `?? ""`, which would warn);
// - the seed's URLs → the embedded gateway's; the buyer's typing → `UITest.type` on the GTK entries;
// - `showError`, `showReceipt`, `showFailure`, `confirmWithBackend` are the app's own methods.
// Exits 0 when the completion form and then the delegate form (seed 000's `PaymentDelegate`) each paid.

let sandbox = try Sandbox(configuration: .init(seed: 1))

// GTK: the seed's plain UITextField for the name.
@MainActor final class NameField {
    var text: String? = "Jane Doe"
}

@MainActor
final class CheckoutViewController: PaymentPresenter, PaymentDelegate {
    // GTK: the view controller presents the challenge; here the headless buyer answers it.
    nonisolated let buyer = HeadlessBrowserPresenter(script: .answering(challengeCode: Sandbox.challengeCode))
    nonisolated func present(
        _ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void
    ) {
        buyer.present(page, handler: handler, completion: completion)
    }
    nonisolated func dismiss(completion: @escaping @Sendable () -> Void) { buyer.dismiss(completion: completion) }

    // Seed 001, "Konfigurēt" (GTK: the sandbox's URLs for the seed's example hosts).
    let configuration = Configuration(
        apiBaseURL: URL(string: sandbox.apiBaseURL.absoluteString),
        checkoutAPIBaseURL: URL(string: sandbox.checkoutAPIBaseURL.absoluteString),
        checkoutBaseURL: URL(string: sandbox.checkoutBaseURL.absoluteString),
        environment: .sandbox
    )
    lazy var paymentKit = PaymentKit(configuration: configuration)

    // Seed 001, "Izvēles teksta lauki".
    let nameField = NameField()
    let numberField = CardNumberTextField()
    let expiryField = CardExpiryTextField()
    let securityCodeField = CardSecurityCodeTextField()

    var receipts: [String] = []

    func viewDidLoad() {
        // Saglabājiet drošības koda garumu saskaņā ar noteikto kartes zīmolu.
        securityCodeField.brand = numberField.brand
        numberField.onBrandChange = { [unowned self] in self.securityCodeField.brand = $0 }
        // GTK: the buyer types (a challenged card: the issuer asks for 3-D Secure).
        UITest.type("5555555555554444", into: numberField.widget)
        UITest.type("1230", into: expiryField.widget)
        UITest.type("737", into: securityCodeField.widget)
    }

    func pay(_ payment: SandboxPayment) {
        // Seed 001, "Savāciet kartes datus".
        let card = CardInput()
        card.cardholderName = nameField.text ?? ""
        card.cardNumber = numberField.text
        card.expiryMonth = expiryField.month
        card.expiryYear = expiryField.year
        card.securityCode = securityCodeField.text

        // Seed 001, "Pārbaudiet".
        if let error = card.validationError(for: .cardNumber) {
            numberField.showError(error.localizedDescription)
        }
        guard card.isValid else { return fail("the card from the fields is invalid") }

        // Seed 001, "Sāciet maksājumu".
        let request = CardPaymentRequest(
            paymentId: payment.paymentId,
            verificationKey: payment.verificationKey
        )

        paymentKit.startCardPayment(request, card: card, from: self) { result in
            switch result.outcome {
            case .succeeded:  self.showReceipt(reference: result.paymentId)
            case .failed:     self.showFailure(message: result.error?.localizedDescription)
            case .cancelled:  break
            case .unresolved: self.confirmWithBackend(paymentId: result.paymentId)
            }
        }
    }

    // Seed 000, "PaymentDelegate": `func paymentDidFinish(_ result: PaymentResult)`, on the main thread.
    func paymentDidFinish(_ result: PaymentResult) {
        switch result.outcome {
        case .succeeded: self.showReceipt(reference: result.paymentId)
        case .failed: self.showFailure(message: result.error?.localizedDescription)
        case .cancelled, .unresolved: self.fail("the delegate's payment ended \(result.outcome)")
        }
    }

    func showReceipt(reference: String) {
        dispatchPrecondition(condition: .onQueue(.main))
        receipts.append(reference)
        if receipts.count == 1 {
            // Seed 000: `startCardPayment(_:card:from:delegate:)`, the delegate held weakly (self lives on).
            let card = CardInput()
            card.cardholderName = nameField.text ?? ""
            card.cardNumber = numberField.text
            card.expiryMonth = expiryField.month
            card.expiryYear = expiryField.year
            card.securityCode = securityCodeField.text
            let payment = sandbox.createPayment()
            paymentKit.startCardPayment(
                CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey),
                card: card, from: self, delegate: self)
            return
        }
        // One challenge result per card session (its path names the session).
        let challenged = Set(sandbox.requestLog.filter { $0.endpoint == .challengeResult }.map(\.path)).count
        print("seed-samples: completion and delegate paid: \(receipts.count), challenges: \(challenged)")
        exit(challenged == 2 ? 0 : 1)
    }

    func showFailure(message: String?) { fail("failed: \(message ?? "no error")") }
    func confirmWithBackend(paymentId: String) { fail("unresolved \(paymentId)") }
    func fail(_ why: String) {
        print("seed-samples: FAILED: \(why)")
        exit(1)
    }
}

// The app's own helper of seed 001's validation sample.
extension CardNumberTextField {
    func showError(_ message: String) { print("seed-samples: number field: \(message)") }
}

// The process's one strong hold on the controller (the delegate is held weakly).
let controller = MainActor.assumeIsolated {
    let controller = CheckoutViewController()
    controller.viewDidLoad()
    controller.pay(sandbox.createPayment())
    return controller
}
// A bound on a hung payment (not a speed check): the flows' own deadlines are shorter.
DispatchQueue.global().asyncAfter(deadline: .now() + 300) {
    print("seed-samples: FAILED: no result")
    exit(1)
}
withExtendedLifetime(controller) { dispatchMain() }
