import CardValidation
import EGWWire
import ReplCore

extension Shell {
    /// `card ...`: the card `pay card` pays with (shown masked only).
    func runCard(_ command: CardCommand) throws(ReplError) {
        switch command {
        case .number(let number):
            try setCardNumber(number)
        case .name(let name):
            card.cardholderName = name
            note("Cardholder name set.")
        case .expiry(let month, let year):
            card.expiryMonth = month
            card.expiryYear = year
            note("Expiry set: \(month)/\(year)\(stateNote(.expiry)).")
        case .securityCode(let code):
            try setSecurityCode(code)
        case .test(let name):
            try fillTestCard(named: name)
        case .show:
            showCard()
        case .check:
            checkCard()
        case .clear:
            card.clear()
            note("Card cleared.")
        }
    }

    // MARK: card

    func setCardNumber(_ number: String?) throws(ReplError) {
        let text: String
        if let number {
            text = number
        } else {
            guard source.isInteractive else {
                throw ReplError(.missingArgument, "card number needs N in a script (no terminal to type it on)")
            }
            guard let entered = readCardNumber() else {
                note("Card number unchanged.")
                return
            }
            text = entered
        }
        guard let digits = CardNumber.digits(of: text) else {
            throw ReplError(.invalidValue, "a card number may hold digits, spaces and dashes only")
        }
        card.cardNumber = digits
        let brand = card.brand
        let brandText = brand == .unknown ? "brand unknown" : brand.displayName
        note("Card number \(CardNumber.masked(digits)) (\(brandText))\(stateNote(.cardNumber)).")
    }

    func setSecurityCode(_ code: String?) throws(ReplError) {
        if let code {
            card.securityCode = code
        } else {
            guard source.isInteractive else {
                throw ReplError(.missingArgument, "card cvc needs CODE in a script (no terminal to type it on)")
            }
            guard let entered = readSecurityCode() else {
                note("Security code unchanged.")
                return
            }
            card.securityCode = entered
        }
        note("Security code set (\(card.securityCode.count) digits, not shown)\(stateNote(.securityCode)).")
    }

    /// `" — incomplete: ..."` when the field would not pass, else `""`.
    func stateNote(_ field: CardField) -> String {
        guard let issue = card.validationIssue(for: field) else {
            return ""
        }
        var message = issue.message
        if message.hasSuffix(".") {
            message.removeLast()
        }
        return " — \(issue.state): \(message)"
    }

    func showCard() {
        let number = card.cardNumber
        let name = card.cardholderName
        let expiry = card.expiryMonth.isEmpty && card.expiryYear.isEmpty ? "" : "\(card.expiryMonth)/\(card.expiryYear)"
        let code = card.securityCode
        if options.json {
            console.out(
                JSONValue.members([
                    ("cardholderName", .string(name)), ("cardNumber", .string(CardNumber.masked(number))),
                    ("brand", .string(card.brand.description)), ("expiry", .string(expiry)),
                    ("securityCode", .string(String(repeating: "•", count: code.count))),
                    ("isValid", .bool(card.isValid)),
                ]).jsonText)
            return
        }
        console.table([
            ("name", name.isEmpty ? "(not set)" : name),
            ("number", number.isEmpty ? "(not set)" : CardNumber.masked(number)),
            ("brand", card.brand.displayName),
            ("expiry", expiry.isEmpty ? "(not set)" : expiry),
            ("security code", code.isEmpty ? "(not set)" : String(repeating: "•", count: code.count)),
            ("ready to pay", card.isValid ? "yes" : "no (card check says why)"),
        ])
    }

    func checkCard() {
        let fields: [CardField] = [.cardholderName, .cardNumber, .expiry, .securityCode]
        if options.json {
            let members = fields.map { field -> (String, JSONValue) in
                let issue = card.validationIssue(for: field)
                var entry: [(String, JSONValue)] = [("state", .string(card.fieldState(for: field).description))]
                entry.append(("message", issue.map { .string($0.message) } ?? .null))
                return (field.description, .members(entry))
            }
            console.out(JSONValue.members(members + [("isValid", .bool(card.isValid))]).jsonText)
            return
        }
        var rows: [(String, String)] = []
        for field in fields {
            let state = card.fieldState(for: field)
            let mark: String
            switch state {
            case .valid: mark = console.styled("valid", .green)
            case .incomplete: mark = console.styled("incomplete", .yellow)
            case .invalid: mark = console.styled("invalid", .red)
            }
            let message = card.validationIssue(for: field)?.message ?? ""
            rows.append((field.displayName, message.isEmpty ? mark : "\(mark)  \(message)"))
        }
        console.table(rows)
        console.out(card.isValid ? "The card is ready: pay card." : "The card would be refused before any request.")
    }

    // MARK: brand, luhn, format

    func digits(of number: String) throws(ReplError) -> String {
        guard let digits = CardNumber.digits(of: number), !digits.isEmpty else {
            throw ReplError(.invalidValue, "a card number may hold digits, spaces and dashes only")
        }
        return digits
    }

    func showBrand(_ number: String) throws(ReplError) {
        let digits = try digits(of: number)
        let brand = CardBrand.detect(digits)
        if options.json {
            console.out(
                JSONValue.members([
                    ("brand", .string(brand.description)), ("displayName", .string(brand.displayName)),
                    ("rawValue", .int(brand.rawValue)),
                ]).jsonText)
            return
        }
        console.out("\(brand.displayName) (\(brand.description), raw value \(brand.rawValue))")
    }

    func showLuhn(_ number: String) throws(ReplError) {
        let digits = try digits(of: number)
        let valid = CardNumber.isLuhnValid(digits)
        if options.json {
            console.out(JSONValue.members([("luhnValid", .bool(valid)), ("digits", .int(digits.count))]).jsonText)
            return
        }
        let verdict = valid ? console.styled("valid", .green) : console.styled("invalid", .red)
        console.out("Luhn \(verdict) (\(digits.count) digits)")
    }

    func showFormat(_ number: String) throws(ReplError) {
        let digits = try digits(of: number)
        let brand = CardBrand.detect(digits)
        // The one masked form: the grouping is shown by its pattern, not by the digits.
        let formatted = CardNumberRedaction.masked(digits)
        let pattern = brand.numberGrouping.map(String.init).joined(separator: "-")
        if options.json {
            console.out(
                JSONValue.members([
                    ("formatted", .string(formatted)), ("grouping", .string(pattern)),
                    ("brand", .string(brand.description)),
                ]).jsonText)
            return
        }
        console.out("\(formatted)  (\(brand.displayName) grouping \(pattern))")
    }

    // MARK: live entry on a terminal

    /// Reads a card number with live grouping; on Enter the line is redrawn masked.
    func readCardNumber() -> String? {
        var editor = CardNumberEditor()
        let prompt = "card number: "
        let entered = FieldEntry.run(
            prompt: prompt, interrupts: interrupts, editor: &editor,
            display: { $0.text + ($0.brand == .unknown ? "" : "  " + $0.brand.displayName) })
        guard entered else {
            return nil
        }
        // Leave only the masked form on the screen and in the scrollback.
        FieldEntry.redrawFinal(prompt + CardNumberRedaction.masked(editor.text))
        return editor.digits
    }

    /// Reads a security code masked (one dot per digit); the terminal echoes nothing.
    func readSecurityCode() -> String? {
        var editor = CardSecurityCodeEditor(brand: card.brand)
        let prompt = "security code (\(editor.maximumLength) digits): "
        let entered = FieldEntry.run(prompt: prompt, interrupts: interrupts, editor: &editor, display: { $0.displayText })
        guard entered else {
            return nil
        }
        FieldEntry.redrawFinal(prompt + editor.displayText)
        return editor.digits
    }
}
