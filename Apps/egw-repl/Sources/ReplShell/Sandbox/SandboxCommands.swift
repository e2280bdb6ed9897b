import CardValidation
import EGWWire
import Foundation
import GatewaySandbox
import PaymentFlow
import ReplCore

extension Shell {
    /// `sandbox ...`: the embedded sandbox gateway.
    func runSandbox(_ command: SandboxCommand) throws(ReplError) {
        switch command {
        case .cards(let numbers):
            showTestCards(numbers: numbers)
        case .fault(let endpoint, let kind, let argument, let times, let probability):
            try injectFault(endpoint: endpoint, kind: kind, argument: argument, times: times, probability: probability)
        case .faults:
            try showFaults()
        case .faultsClear:
            try requireSandbox().clearFaults()
            note("Faults cleared.")
        case .log:
            try showSandboxLog()
        case .pages(let value):
            let sandbox = try requireSandbox()
            sandbox.pages = value == "js" ? .js : .html
            note("The sandbox's pages are now built \(value == "js" ? "by JavaScript" : "as plain HTML forms").")
        }
    }

    func requireSandbox() throws(ReplError) -> Sandbox {
        guard let sandbox else {
            throw ReplError(.notAvailable, "no embedded sandbox in this session (started with --no-sandbox)")
        }
        return sandbox
    }

    // MARK: payment create

    func createPayment(amount: Int?, currency: String?, orderNumber: String?) throws(ReplError) {
        let amount = amount ?? 1250
        let currency = currency ?? "EUR"
        let created: CurrentPayment
        if let sandbox, configuration.merchantBaseURL == sandbox.merchantBaseURL {
            let made = sandbox.createPayment(amount: amount, currency: currency, orderNumber: orderNumber)
            created = CurrentPayment(
                paymentId: made.paymentId, verificationKey: made.verificationKey,
                checkoutURL: made.checkoutURL, returnURL: made.shopRedirectURL,
                amount: made.amount, currency: made.currency, orderNumber: made.orderNumber)
        } else if let merchant = configuration.merchantBaseURL {
            created = try createPaymentOverHTTP(
                merchant: merchant.absoluteString, amount: amount, currency: currency, orderNumber: orderNumber)
        } else {
            throw ReplError(
                .notAvailable, "no merchant backend: config set merchant-base-url URL, or payment use ID KEY")
        }
        payment = created
        knownKeys[created.paymentId] = created.verificationKey
        if options.json {
            try showPayment()
            return
        }
        console.out(
            "Created payment \(console.styled(created.paymentId, .bold)): \(amount) \(currency) "
                + "(minor units), order \(created.orderNumber ?? "(none)"), status INITIALIZED.")
        console.out("It is the current payment: pay card, or pay hosted.")
    }

    /// `POST {merchant}/sandbox/payments` (GATEWAY.md, the sandbox's merchant backend), for a
    /// sandbox running elsewhere (`egw-sandbox`).
    func createPaymentOverHTTP(
        merchant: String, amount: Int, currency: String, orderNumber: String?
    )
        throws(ReplError) -> CurrentPayment
    {
        guard let url = URL(string: merchant + "/sandbox/payments") else {
            throw ReplError(.commandFailed, "merchant-base-url is not a usable URL")
        }
        var members: [(String, JSONValue)] = [("amount", .int(amount)), ("currency", .string(currency))]
        if let orderNumber {
            members.append(("orderNumber", .string(orderNumber)))
        }
        let bytes = JSONValue.members(members).jsonBytes
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json")],
            body: bytes, timeout: configuration.kit.timeout)
        let answer = Answer<Result<HTTPResponse, TransportError>>(wake: events.wake)
        CurlTransport(
            options: .init(
                requireHTTPS: configuration.kit.environment == .live, trustedCertificatesPath: trustedAuthorityFile)
        )
        .send(request, completion: answer.completion())
        switch waitFor(answer) {
        case .none:
            throw ReplError(.commandFailed, "payment create was interrupted")
        case .some(.failure(let error)):
            throw ReplError(.commandFailed, "the merchant backend did not answer: \(shown(error.message))")
        case .some(.success(let response)):
            // EGWWire's strict parser, as for every gateway reply: duplicate members refused.
            let object = try? StrictJSONParser.parse(response.body)
            let links = object?[member: "_links"]?[member: "checkoutRedirect"]
            guard response.status == 201 || response.status == 200,
                let paymentId = object?[member: "paymentId"]?.stringValue,
                let key = object?[member: "verificationKey"]?.stringValue
            else {
                let text = ReportRenderer.shorten(shown(String(decoding: response.body, as: UTF8.self)), limit: 200)
                throw ReplError(.commandFailed, "the merchant backend answered \(response.status): \(text)")
            }
            return CurrentPayment(
                paymentId: paymentId, verificationKey: key,
                checkoutURL: links?[member: "href"]?.stringValue.flatMap(URL.init(string:)),
                returnURL: object?[member: "shopRedirectUrl"]?.stringValue.flatMap(URL.init(string:)), amount: amount,
                currency: currency,
                orderNumber: object?[member: "orderNumber"]?.stringValue)
        }
    }

    // MARK: card test

    func fillTestCard(named name: String) throws(ReplError) {
        guard let testCard = Sandbox.testCards.first(where: { $0.name == name }) else {
            let names = Sandbox.testCards.map(\.name)
            var message = "no test card named '\(name)'"
            if let guess = names.first(where: { $0.hasPrefix(name) }) {
                message += " (did you mean '\(guess)'?)"
            } else {
                message += " (sandbox cards lists them)"
            }
            throw ReplError(.invalidValue, message)
        }
        card.cardNumber = testCard.number
        card.cardholderName = "Test Cardholder"
        card.expiryMonth = "12"
        card.expiryYear = Self.twoDigitYear(yearsFromNow: 5)
        card.securityCode = CardBrand.detect(testCard.number) == .amex ? "1234" : "123"
        note(
            "Card: \(testCard.name) — \(CardNumber.masked(testCard.number)) \(card.brand.displayName), "
                + "expiry 12/\(card.expiryYear), code set. \(testCard.behaviour).")
    }

    static func twoDigitYear(yearsFromNow: Int) -> String {
        let year = Calendar(identifier: .gregorian).component(.year, from: Date()) + yearsFromNow
        let twoDigits = year % 100
        return twoDigits < 10 ? "0\(twoDigits)" : "\(twoDigits)"
    }

    // MARK: sandbox

    func showTestCards(numbers: Bool) {
        if options.json {
            let cards = Sandbox.testCards.map { testCard -> JSONValue in
                .members([
                    ("name", .string(testCard.name)), ("brand", .string(testCard.brand)),
                    ("number", .string(numbers ? testCard.number : CardNumber.masked(testCard.number))),
                    ("behaviour", .string(testCard.behaviour)),
                ])
            }
            console.out(JSONValue.array(cards).jsonText)
            return
        }
        console.table(
            Sandbox.testCards.map { testCard in
                let number = numbers ? CardNumber.format(testCard.number) : CardNumber.masked(testCard.number)
                return (
                    testCard.name,
                    "\(testCard.brand.padding(10)) \(number.padding(numbers ? 20 : 9))  "
                        + testCard.behaviour
                )
            })
        console.out(
            "Any future expiry, any name, any 3-digit code (4 for amex); challenge code \(Sandbox.challengeCode) "
                + "passes. Fill one with: card test NAME")
    }

    func injectFault(
        endpoint: String, kind: String, argument: Int?, times: Int?, probability: Double?
    ) throws(ReplError) {
        let sandbox = try requireSandbox()
        guard let target = SandboxEndpoint(name: endpoint) else {
            throw ReplError(.invalidValue, "the sandbox has no endpoint named '\(endpoint)'")
        }
        let faultKind: SandboxFault.Kind
        switch kind {
        case "latency": faultKind = .latency(.milliseconds(argument ?? 0))
        case "status": faultKind = .status(argument ?? 500)
        case "status-no-body": faultKind = .statusWithoutBody(argument ?? 500)
        case "malformed": faultKind = .malformedBody
        case "truncated": faultKind = .truncatedBody
        case "drop": faultKind = .dropConnection
        case "rotate-key": faultKind = .rotateKey
        default: throw ReplError(.invalidValue, "the sandbox has no fault kind '\(kind)'")
        }
        let schedule: SandboxFault.Schedule = probability.map { .probability($0) } ?? .next(times ?? 1)
        let fault = SandboxFault(endpoint: target, kind: faultKind, schedule: schedule)
        sandbox.inject(fault)
        note("Fault armed: \(fault).")
    }

    func showFaults() throws(ReplError) {
        let faults = try requireSandbox().activeFaults
        if options.json {
            console.out(JSONValue.array(faults.map { .string($0.description) }).jsonText)
            return
        }
        if faults.isEmpty {
            console.out("No faults armed.")
            return
        }
        for (index, fault) in faults.enumerated() {
            console.out("  \(index + 1). \(fault)")
        }
    }

    func showSandboxLog() throws(ReplError) {
        let log = try requireSandbox().requestLog
        if options.json {
            let entries = log.map { entry -> JSONValue in
                .members([
                    ("sequence", .int(entry.sequence)), ("method", .string(entry.method)),
                    ("path", .string(entry.path)), ("status", entry.status.map { .int($0) } ?? .null),
                    ("milliseconds", .int(Self.milliseconds(entry.duration))),
                    ("faults", .array(entry.faults.map { .string($0) })),
                ])
            }
            console.out(JSONValue.array(entries).jsonText)
            return
        }
        if log.isEmpty {
            console.out("The sandbox has answered no request yet.")
            return
        }
        for entry in log {
            // The path is whatever a client asked for.
            console.out("  \(shown("\(entry)"))")
        }
    }
}

extension Shell {
    /// Whole milliseconds of a duration.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
