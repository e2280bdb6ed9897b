import Foundation
import GatewaySandbox

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A payment the shop's backend created.
struct CreatedPayment: Sendable {
    let paymentId: String
    let verificationKey: String
    let checkoutURL: URL
    let returnURL: URL
}

/// Where the shop creates payments: the embedded sandbox, or a backend speaking the sandbox's
/// `POST /sandbox/payments` over HTTP.
enum MerchantBackend: Sendable {
    case embedded(Sandbox)
    case http(URL)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates a payment for `amount` minor units; `completion` on any thread.
    func createPayment(
        amount: Int, currency: String, completion: @escaping @Sendable (Result<CreatedPayment, Failure>) -> Void
    ) {
        switch self {
        case .embedded(let sandbox):
            let payment = sandbox.createPayment(amount: amount, currency: currency)
            completion(
                .success(
                    CreatedPayment(
                        paymentId: payment.paymentId, verificationKey: payment.verificationKey,
                        checkoutURL: payment.checkoutURL, returnURL: payment.shopRedirectURL)))
        case .http(let base):
            var request = URLRequest(url: base.appendingPathComponent("sandbox/payments"))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? JSONSerialization.data(withJSONObject: ["amount": amount, "currency": currency])
            URLSession.shared.dataTask(with: request) { data, _, error in
                guard let data, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    let id = object["paymentId"] as? String, let key = object["verificationKey"] as? String,
                    let links = object["_links"] as? [String: Any],
                    let redirect = (links["checkoutRedirect"] as? [String: Any])?["href"] as? String,
                    let checkout = URL(string: redirect),
                    let returnURL = (object["shopRedirectUrl"] as? String).flatMap(URL.init(string:))
                else {
                    return completion(.failure(Failure(description: error.map { "\($0)" } ?? "unusable answer")))
                }
                completion(
                    .success(
                        CreatedPayment(paymentId: id, verificationKey: key, checkoutURL: checkout, returnURL: returnURL)
                    )
                )
            }.resume()
        }
    }
}
