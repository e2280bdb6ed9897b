import EGWWire
import Foundation
import GatewaySandbox
import PaymentFlow

/// A payment the shop's backend created.
struct CreatedPayment: Sendable {
    let paymentId: String
    let verificationKey: String
    let checkoutURL: URL
    let returnURL: URL
}

/// Where the shop creates payments: the embedded sandbox, or a backend speaking the sandbox's
/// `POST /sandbox/payments` over HTTP (the SDK's libcurl transport; the body written and the answer read
/// with EGWWire's JSON, strictly).
enum MerchantBackend: Sendable {
    case embedded(Sandbox)
    /// A backend over HTTP; `certificateAuthorityFile` replaces the system's store (`--ca-file`).
    case http(URL, certificateAuthorityFile: String? = nil)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The longest a call to the backend may take, connect included, in seconds.
    static let requestTimeout: TimeInterval = 30

    /// The transport of every backend call: verified TLS (the system's store, or only the CAs of
    /// `certificateAuthorityFile`), bounded in time and size, no connection kept.
    private static func transport(certificateAuthorityFile: String?) -> CurlTransport {
        CurlTransport(
            options: .init(
                connectTimeout: 10, defaultTimeout: requestTimeout, trustedCertificatesPath: certificateAuthorityFile))
    }

    /// Creates a payment for `amount` minor units; `completion` on any thread. An `.http` failure is the
    /// transport's error, or "unusable answer" when the answer is not strict JSON naming the payment's
    /// id, verification key, checkout redirect and shop redirect URL.
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
        case .http(let base, let certificateAuthorityFile):
            let body = JSONObjectBuilder(["amount": .int(amount), "currency": .string(currency)]).value
            let request = HTTPRequest(
                method: "POST", url: base.appendingPathComponent("sandbox/payments"),
                headers: [HTTPHeader("Content-Type", "application/json")], body: body.jsonBytes,
                timeout: Self.requestTimeout)
            Self.transport(certificateAuthorityFile: certificateAuthorityFile).send(request) { result in
                switch result {
                case .failure(let error): completion(.failure(Failure(description: "\(error)")))
                case .success(let response):
                    guard let created = Self.created(from: response.body) else {
                        return completion(.failure(Failure(description: "unusable answer")))
                    }
                    completion(.success(created))
                }
            }
        }
    }

    /// The payment in the backend's answer, nil when the answer is not strict JSON with every member.
    static func created(from body: [UInt8]) -> CreatedPayment? {
        guard let object = try? StrictJSONParser.parse(body),
            let id = object[member: "paymentId"]?.stringValue,
            let key = object[member: "verificationKey"]?.stringValue,
            let redirect = object[member: "_links"]?[member: "checkoutRedirect"]?[member: "href"]?.stringValue,
            let checkout = URL(string: redirect),
            let returnURL = object[member: "shopRedirectUrl"]?.stringValue.flatMap(URL.init(string:))
        else { return nil }
        return CreatedPayment(paymentId: id, verificationKey: key, checkoutURL: checkout, returnURL: returnURL)
    }
}
