import EGWWire
import Foundation

extension SandboxCore {
    /// Creates a payment as a merchant backend would (also used by `Sandbox.createPayment`).
    func makePayment(amount: Int, currency: String, orderNumber: String?, shopRedirectURL: String?) -> PaymentRecord {
        // A secret: from the system's random source, not the seeded id generator.
        let verificationKey = "vk_" + settings.secretBytes(16).map { String(format: "%02x", $0) }.joined()
        // Random per sandbox too: a seeded id would repeat across fresh sandboxes (and be guessable).
        let drawn = "pay_" + settings.secretBytes(10).map { String(format: "%02x", $0) }.joined()
        return state.withLock { state in
            var id = drawn
            // Only an injected source repeats itself: seeded bytes then make the id unique.
            while state.payments[id] != nil {
                id += state.ids.hex(bytes: 1)
            }
            state.orderCounter += 1
            let order = orderNumber ?? String(format: "ORDER-%06d", state.orderCounter)
            let record = PaymentRecord(
                id: id, verificationKey: verificationKey, amount: amount, currency: currency,
                orderNumber: order, shopRedirectURL: shopRedirectURL ?? "\(origin)/sandbox/return/\(id)")
            state.payments[id] = record
            return record
        }
    }

    func checkoutURL(for paymentId: String) -> String { "\(checkoutBase)/checkout/pay/\(paymentId)" }

    /// `POST /sandbox/payments` `{"amount", "currency", "orderNumber", "shopRedirectUrl"}` (all optional).
    func merchantCreatePayment(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONValue
        switch jsonObjectBody(request, emptyIsObject: true) {
        case .success(let object): body = object
        case .failure(let error): return error.response
        }
        var amount = 1250
        if let value = body[member: "amount"] {
            guard let int = value.intValue, (1...99_999_999).contains(int) else {
                return .error(400, "INVALID_REQUEST", "\"amount\" must be an integer from 1 to 99999999 (minor units)")
            }
            amount = int
        }
        var currency = "EUR"
        if let value = body[member: "currency"] {
            guard let text = value.stringValue, text.utf8.count == 3,
                text.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
            else { return .error(400, "INVALID_REQUEST", "\"currency\" must be three upper-case letters (ISO 4217)") }
            currency = text
        }
        var orderNumber: String?
        if let value = body[member: "orderNumber"] {
            guard let text = value.stringValue, (1...64).contains(text.count),
                !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { return .error(400, "INVALID_REQUEST", "\"orderNumber\" must be a string of 1 to 64 characters") }
            orderNumber = text
        }
        var shopRedirectURL: String?
        if let value = body[member: "shopRedirectUrl"] {
            guard let text = value.stringValue, Self.isHTTPURL(text) else {
                return .error(400, "INVALID_REQUEST", "\"shopRedirectUrl\" must be an absolute http or https URL")
            }
            shopRedirectURL = text
        }
        let payment = makePayment(
            amount: amount, currency: currency, orderNumber: orderNumber, shopRedirectURL: shopRedirectURL)
        return .json(201, merchantView(payment, includeKey: true).value)
    }

    /// `GET /sandbox/payments/{id}`: the payment with its card sessions in creation order (never card data).
    /// It shows the verification key, so it answers only with the control token (checked by the dispatcher).
    func merchantGetPayment(_ paymentId: String) -> HTTPResponse {
        guard let payment = state.withLock({ $0.payments[paymentId] }) else {
            return .error(404, "PAYMENT_NOT_FOUND", "no payment \(paymentId)")
        }
        let sessions = cardSessions(of: paymentId)
        var view = merchantView(payment, includeKey: true)
        view["method"] = payment.method.map { .string($0) } ?? .null
        view["cardSessions"] = .array(
            sessions.map { session in
                var object = sessionView(session)
                object["last4"] = .string(session.last4)
                return object.value
            })
        return .json(200, view.value)
    }

    func merchantView(_ payment: PaymentRecord, includeKey: Bool) -> JSONObjectBuilder {
        JSONObjectBuilder([
            "paymentId": .string(payment.id),
            "verificationKey": includeKey ? .string(payment.verificationKey) : nil,
            "paymentStatus": .string(payment.status),
            "orderNumber": .string(payment.orderNumber),
            "amount": .int(payment.amount),
            "currency": .string(payment.currency),
            "shopRedirectUrl": .string(payment.shopRedirectURL),
            "_links": JSONObjectBuilder([
                "checkoutRedirect": JSONObjectBuilder(["href": .string(checkoutURL(for: payment.id))]).value
            ]).value,
        ])
    }

    /// `GET {apiBaseURL}/checkout/api/egw/v1/payments/{id}` (the seeds' status lookup).
    func statusLookup(_ request: HTTPRequest, paymentId: String) -> HTTPResponse {
        switch authorize(request, paymentId: paymentId) {
        case .failure(let error): return error.response
        case .success(let payment):
            return .json(
                200,
                JSONObjectBuilder([
                    "paymentId": .string(payment.id), "paymentStatus": .string(payment.status),
                    "orderNumber": .string(payment.orderNumber), "amount": .int(payment.amount),
                    "currency": .string(payment.currency),
                ]).value)
        }
    }

    /// `GET /sandbox/return/{id}`: the default `shopRedirectUrl`, a page that shows where the buyer landed.
    func shopReturnPage(_ paymentId: String) -> HTTPResponse {
        let status = state.withLock { $0.payments[paymentId]?.status }
        return .html(
            200,
            Pages.document(
                page: "shop-return", title: "Back at the shop",
                meta: [("egw-payment-id", paymentId), ("egw-payment-status", status ?? "")],
                body: """
                    <h1>Back at the shop</h1>
                    <p>Payment <code>\(HTMLEscaping.escape(paymentId))</code>: \(HTMLEscaping.escape(status ?? "unknown payment")).</p>
                    <p>A real shop would now ask its backend for the payment status.</p>
                    """))
    }

    /// `GET /`: the base URLs and where to start.
    func indexPage() -> HTTPResponse {
        .html(
            200,
            Pages.document(
                page: "index", title: "EGWPay sandbox gateway",
                meta: [
                    ("egw-api-base-url", apiBase), ("egw-checkout-api-base-url", checkoutAPIBase),
                    ("egw-checkout-base-url", checkoutBase), ("egw-merchant-base-url", origin),
                ],
                body: """
                    <h1>EGWPay sandbox gateway</h1>
                    <ul>
                    <li>apiBaseURL: <code>\(HTMLEscaping.escape(apiBase))</code></li>
                    <li>checkoutAPIBaseURL: <code>\(HTMLEscaping.escape(checkoutAPIBase))</code></li>
                    <li>checkoutBaseURL: <code>\(HTMLEscaping.escape(checkoutBase))</code></li>
                    <li>merchant backend: <code>POST \(HTMLEscaping.escape(origin))/sandbox/payments</code></li>
                    </ul>
                    """))
    }

    /// `GET /sandbox/cards`: the test-card table.
    func testCards() -> HTTPResponse {
        .json(
            200,
            JSONObjectBuilder([
                "cards": .array(
                    SandboxTestCard.all.map { card in
                        JSONObjectBuilder([
                            "name": .string(card.name), "number": .string(card.number),
                            "brand": .string(card.brand), "behaviour": .string(card.behaviour),
                        ]).value
                    }),
                "challengeCode": .string(CardSession.challengeCode),
            ]).value)
    }

    static func isHTTPURL(_ text: String) -> Bool {
        // URL(string:) percent-encodes spaces and CR/LF instead of refusing them, but the text itself
        // becomes the 303's Location: a control character there would break the header.
        guard text.utf8.count <= 2048, !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
            let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { return false }
        return true
    }
}
