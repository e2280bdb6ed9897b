import CardValidation
import Foundation
import GatewaySandbox
import ReplCore

extension Shell {
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
        guard let sandbox, configuration.merchantBaseURL == sandbox.merchantBaseURL.absoluteString else {
            throw ReplError(
                .notAvailable,
                "payment create talks to the embedded sandbox only; for another backend use payment use ID KEY")
        }
        let created = sandbox.createPayment(amount: amount, currency: currency, orderNumber: orderNumber)
        payment = CurrentPayment(
            paymentId: created.paymentId, verificationKey: created.verificationKey,
            checkoutURL: created.checkoutURL.absoluteString, returnURL: created.shopRedirectURL.absoluteString,
            amount: created.amount, currency: created.currency, orderNumber: created.orderNumber)
        knownKeys[created.paymentId] = created.verificationKey
        if options.json {
            try showPayment()
            return
        }
        console.out(
            "Created payment \(console.styled(created.paymentId, .bold)): \(created.amount) \(created.currency) "
                + "(minor units), order \(created.orderNumber), status INITIALIZED.")
        console.out("It is the current payment: pay card, or pay hosted.")
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
        console.out(
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
                .object([
                    ("name", .string(testCard.name)), ("brand", .string(testCard.brand)),
                    ("number", .string(numbers ? testCard.number : CardNumber.masked(testCard.number))),
                    ("behaviour", .string(testCard.behaviour)),
                ])
            }
            console.out(JSONValue.array(cards).text)
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
        console.out("Fault armed: \(fault).")
    }

    func showFaults() throws(ReplError) {
        let faults = try requireSandbox().activeFaults
        if options.json {
            console.out(JSONValue.array(faults.map { .string($0.description) }).text)
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
                .object([
                    ("sequence", .number(entry.sequence)), ("method", .string(entry.method)),
                    ("path", .string(entry.path)), ("status", entry.status.map { .number($0) } ?? .null),
                    ("milliseconds", .number(Self.milliseconds(entry.duration))),
                    ("faults", .array(entry.faults.map { .string($0) })),
                ])
            }
            console.out(JSONValue.array(entries).text)
            return
        }
        if log.isEmpty {
            console.out("The sandbox has answered no request yet.")
            return
        }
        for entry in log {
            console.out("  \(entry)")
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
