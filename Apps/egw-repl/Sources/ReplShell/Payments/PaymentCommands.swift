import EGWWire
import Foundation
import ReplCore

extension Shell {
    /// `payment create`, `payment use`, `payment show`.
    func runPayment(_ command: PaymentCommand) throws(ReplError) {
        switch command {
        case .create(let amount, let currency, let orderNumber):
            try createPayment(amount: amount, currency: currency, orderNumber: orderNumber)
        case .use(let paymentId, let key, let checkoutURL, let returnURL):
            payment = CurrentPayment(
                paymentId: paymentId, verificationKey: key, checkoutURL: checkoutURL.flatMap(URL.init(string:)),
                returnURL: returnURL.flatMap(URL.init(string:)))
            knownKeys[paymentId] = key
            note("Using payment \(paymentId) (verification key \(SecretPolicy.maskedKey(key))).")
        case .show:
            try showPayment()
        }
    }

    func showPayment() throws(ReplError) {
        guard let payment else {
            throw ReplError(.notAvailable, "no payment yet: payment create, or payment use ID KEY")
        }
        if options.json {
            console.out(
                JSONValue.members([
                    ("paymentId", .string(payment.paymentId)),
                    ("verificationKey", .string(SecretPolicy.maskedKey(payment.verificationKey))),
                    ("checkoutURL", payment.checkoutURL.map { .string($0.absoluteString) } ?? .null),
                    ("returnURL", payment.returnURL.map { .string($0.absoluteString) } ?? .null),
                ]).jsonText)
            return
        }
        var rows = [
            ("payment id", payment.paymentId), ("verification key", SecretPolicy.maskedKey(payment.verificationKey)),
        ]
        if let amount = payment.amount, let currency = payment.currency {
            rows.append(("amount", "\(amount) \(currency) (minor units)"))
        }
        if let order = payment.orderNumber {
            rows.append(("order number", order))
        }
        rows.append(("checkout URL", payment.checkoutURL?.absoluteString ?? "(none: pay hosted needs one)"))
        rows.append(("return URL", payment.returnURL?.absoluteString ?? "(none)"))
        console.table(rows)
    }
}
