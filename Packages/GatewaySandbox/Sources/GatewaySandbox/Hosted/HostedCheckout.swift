import EGWWire

/// The buyer's five choices on the hosted page and the status each records.
enum HostedChoice: String, CaseIterable, Sendable {
    case pay, decline, cancel, abandon, pending

    var paymentStatus: String {
        switch self {
        case .pay: "SETTLED"
        case .decline: "FAILED"
        case .cancel: "CANCELLED"
        case .abandon: "ABANDONED"
        case .pending: "SENT_FOR_PROCESSING"
        }
    }

    var label: String {
        switch self {
        case .pay: "Pay"
        case .decline: "Decline (the bank refuses)"
        case .cancel: "Cancel"
        case .abandon: "Abandon (walk away)"
        case .pending: "Leave pending"
        }
    }
}

/// The payment methods the hosted page knows; other `method` hints are ignored.
enum HostedMethod: String, CaseIterable, Sendable {
    case card
    case bank
    case clickToPay = "click-to-pay"

    var label: String {
        switch self {
        case .card: "Card"
        case .bank: "Bank link"
        case .clickToPay: "Click to Pay"
        }
    }
}

extension SandboxCore {
    /// `GET {checkoutBaseURL}/checkout/pay/{id}[?method=card|bank|click-to-pay]`.
    func hostedPage(_ request: HTTPRequest, paymentId: String) -> HTTPResponse {
        guard let payment = state.withLock({ $0.payments[paymentId] }) else {
            return Pages.error(404, "There is no payment \(paymentId).")
        }
        guard payment.status == "INITIALIZED" else { return hostedDonePage(payment, status: 200) }
        let method = request.queryValue("method").flatMap(HostedMethod.init(rawValue:))
        if pageDialect.withLock({ $0 }) == .js { return hostedScriptPage(payment, method: method) }
        let action = HTMLEscaping.escape(checkoutURL(for: payment.id))
        var form = "<form method=\"post\" action=\"\(action)\" id=\"checkout-form\">\n"
        if let method {
            form += "<input type=\"hidden\" name=\"method\" value=\"\(method.rawValue)\">\n"
            form += "<p id=\"method\">Paying with: \(HTMLEscaping.escape(method.label))</p>\n"
        } else {
            form += "<fieldset id=\"method-picker\">\n<legend>Choose a method</legend>\n"
            for candidate in HostedMethod.allCases {
                form +=
                    "<label><input type=\"radio\" name=\"method\" value=\"\(candidate.rawValue)\""
                    + "\(candidate == .card ? " checked=\"checked\"" : "")> \(HTMLEscaping.escape(candidate.label))</label>\n"
            }
            form += "</fieldset>\n"
        }
        for choice in HostedChoice.allCases {
            form +=
                "<button type=\"submit\" name=\"choice\" value=\"\(choice.rawValue)\">\(HTMLEscaping.escape(choice.label))</button>\n"
        }
        form += "</form>"
        return .html(
            200,
            Pages.document(
                page: "hosted-checkout", title: "Sandbox checkout",
                meta: [
                    ("egw-payment-id", payment.id), ("egw-payment-status", payment.status),
                    ("egw-method", method?.rawValue ?? ""),
                ],
                body: """
                    <h1>Pay \(HTMLEscaping.escape(Pages.amount(payment.amount, payment.currency)))</h1>
                    <p>Order <code>\(HTMLEscaping.escape(payment.orderNumber))</code> (sandbox: no money moves).</p>
                    \(form)
                    """))
    }

    /// `POST {checkoutBaseURL}/checkout/pay/{id}` with form field `choice` (and optional `method`):
    /// records the status and answers `303` to `shopRedirectUrl`.
    func hostedChoice(_ request: HTTPRequest, paymentId: String) -> HTTPResponse {
        let form: [(name: String, value: String)]
        switch formBody(request) {
        case .success(let pairs): form = pairs
        case .failure(let error): return error.response
        }
        guard let raw = FormEncoding.value("choice", in: form) else {
            return Pages.error(400, "The form has no \"choice\" (pay, decline, cancel, abandon or pending).")
        }
        guard let choice = HostedChoice(rawValue: raw) else {
            return Pages.error(400, "Unknown choice; use pay, decline, cancel, abandon or pending.")
        }
        let method = FormEncoding.value("method", in: form).flatMap(HostedMethod.init(rawValue:))
        enum Outcome {
            case notFound
            case alreadyDone(PaymentRecord)
            case recorded(PaymentRecord)
        }
        let outcome = state.withLock { state -> Outcome in
            guard var payment = state.payments[paymentId] else { return .notFound }
            guard payment.status == "INITIALIZED" else { return .alreadyDone(payment) }
            payment.status = choice.paymentStatus
            payment.method = method?.rawValue
            state.payments[paymentId] = payment
            return .recorded(payment)
        }
        switch outcome {
        case .notFound: return Pages.error(404, "There is no payment \(paymentId).")
        case .alreadyDone(let payment): return hostedDonePage(payment, status: 409)
        case .recorded(let payment):
            return wantsJSON(request) ? hostedChoiceJSON(payment) : .redirect(payment.shopRedirectURL)
        }
    }

    private func hostedDonePage(_ payment: PaymentRecord, status: Int) -> HTTPResponse {
        .html(
            status,
            Pages.document(
                page: "hosted-checkout-done", title: "Payment already processed",
                meta: [("egw-payment-id", payment.id), ("egw-payment-status", payment.status)],
                body: """
                    <h1>This payment is already processed</h1>
                    <p>Status: <code>\(HTMLEscaping.escape(payment.status))</code>.</p>
                    <p><a id="return" href="\(HTMLEscaping.escape(payment.shopRedirectURL))">Return to the shop</a></p>
                    """))
    }
}
