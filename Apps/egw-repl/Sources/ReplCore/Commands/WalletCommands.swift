import Foundation

/// The Apple Pay-style sheet's commands (PaymentAuthorization): the simulated wallet, the sheet the
/// merchant asks for, the merchant's answers, and what the buyer does on the open sheet.
public enum WalletCommand: Equatable, Sendable {
    /// `wallet add TESTCARD`.
    case add(testCard: String)
    /// `wallet contact add "NAME, STREET, CITY, POSTCODE, CC"`.
    case addContact(WalletContact)
    /// `wallet show`.
    case show
    /// `wallet clear`.
    case clear
    /// `sheet new AMOUNT CURRENCY --label TEXT [--networks LIST] [--require LIST] [--coupons]`.
    case newSheet(SheetDraft)
    /// `sheet item add LABEL AMOUNT`.
    case addItem(label: String, amount: Decimal)
    /// `sheet method add ID LABEL AMOUNT`.
    case addMethod(id: String, label: String, amount: Decimal)
    /// `merchant coupon CODE -10%|-AMOUNT|expired|invalid`.
    case coupon(code: String, rule: CouponRule)
    /// `merchant unserviceable COUNTRY`.
    case unserviceable(country: String)
    /// `merchant answer auto|manual|send`.
    case answer(MerchantAnswerMode)
    /// `sheet open [--step]`.
    case open(step: Bool)
    /// A buyer action on the open sheet (`sheet contact N`, `sheet authorize`, ...).
    case buyer(SheetAction)
    /// `sheet show [--json]`.
    case showSheet(json: Bool)
}

/// What the buyer does on the open sheet (indices are the sheet's, from 0).
public enum SheetAction: Equatable, Sendable {
    case contact(Int)
    case method(String)
    case card(Int)
    case coupon(String)
    case authorize
    case cancel
}

/// A contact for the wallet, from `"NAME, STREET, CITY, POSTCODE, CC"`.
public struct WalletContact: Equatable, Sendable {
    /// The name.
    public var name: String
    /// The street and house.
    public var street: String
    /// The city.
    public var city: String
    /// The postal code.
    public var postalCode: String
    /// ISO 3166 two letters, upper case.
    public var countryCode: String

    /// Creates a contact.
    public init(name: String, street: String, city: String, postalCode: String, countryCode: String) {
        self.name = name
        self.street = street
        self.city = city
        self.postalCode = postalCode
        self.countryCode = countryCode
    }
}

/// The sheet the merchant will show, before `sheet open`.
public struct SheetDraft: Equatable, Sendable {
    /// The goods' price (the first line, "Order").
    public var amount: Decimal
    /// ISO 4217, upper case.
    public var currency: String
    /// Who is paid: the total line's label.
    public var label: String
    /// Card networks (`CardBrand` names); nil: all five.
    public var networks: [String]?
    /// Required shipping contact fields (`name`, `address`, `email`, `phone`).
    public var required: [String]
    /// Whether the sheet has a coupon field.
    public var coupons: Bool

    /// Creates a draft.
    public init(
        amount: Decimal, currency: String, label: String, networks: [String]?, required: [String], coupons: Bool
    ) {
        self.amount = amount
        self.currency = currency
        self.label = label
        self.networks = networks
        self.required = required
        self.coupons = coupons
    }
}

/// A coupon code's effect (`merchant coupon`).
public enum CouponRule: Equatable, Sendable {
    /// `-10%`.
    case percentOff(Decimal)
    /// `-2.50`.
    case amountOff(Decimal)
    case expired
    case invalid
}

/// How the simulated merchant answers the sheet's updates.
public enum MerchantAnswerMode: String, Equatable, Sendable, CaseIterable {
    /// At once (releases a held answer too).
    case auto
    /// Held until `merchant answer send`.
    case manual
    /// Gives the held answer now.
    case send
}

extension CommandTable {
    /// Card networks `sheet new --networks` accepts (CardValidation's brand names).
    public static let sheetNetworks = ["visa", "mastercard", "amex", "maestro", "discover"]
    /// Contact fields `sheet new --require` accepts.
    public static let sheetContactFields = ["name", "address", "email", "phone"]

    /// `commands` with `wallet`, `sheet` and `merchant` before `quit`.
    static func insertingWalletCommands(_ commands: [CommandSpec]) -> [CommandSpec] {
        var all = commands
        all.insert(contentsOf: walletCommands, at: all.firstIndex { $0.name == "quit" } ?? all.endIndex)
        return all
    }

    /// `wallet`, `sheet` and `merchant`: the payment sheet of PaymentAuthorization.
    static var walletCommands: [CommandSpec] {
        let testCard = ArgumentSpec("TESTCARD", .testCard)
        let add = ArgumentSpec("add", .choices(["add"]))
        // `wallet contact`'s first word is `add`, but a contact typed without it (or after a mistyped
        // one) lands there: declared secret too, like the contact, so whatever follows
        // `wallet contact` stays out of the history and is masked when echoed.
        let contactAdd = ArgumentSpec("add", .choices(["add"]), secret: true)
        // A contact is personal data: declared secret, so the line stays out of the history.
        let contact = ArgumentSpec("CONTACT", secret: true)
        let amount = ArgumentSpec("AMOUNT")
        let currency = ArgumentSpec("CURRENCY")
        let label = FlagSpec("--label", "Who is paid (the total's line)", value: ArgumentSpec("TEXT"))
        let networks = FlagSpec(
            "--networks", "Accepted networks, comma-separated (default: all five)", value: ArgumentSpec("LIST"))
        let require = FlagSpec(
            "--require", "Required shipping contact fields: name,address,email,phone", value: ArgumentSpec("LIST"))
        let coupons = FlagSpec("--coupons", "Show a coupon field")
        let itemLabel = ArgumentSpec("LABEL")
        let code = ArgumentSpec("CODE")
        let effect = ArgumentSpec("EFFECT")
        let country = ArgumentSpec("COUNTRY")
        let mode = ArgumentSpec("MODE", .choices(MerchantAnswerMode.allCases.map(\.rawValue)))
        let step = FlagSpec("--step", "No deadlines: the sheet waits for every answer (merchant answer manual)")
        let index = ArgumentSpec("N", .integer(0...99))
        let json = FlagSpec("--json", "Print it as one JSON object")
        return [
            CommandSpec(
                "wallet", "The simulated Apple Pay wallet: its cards and contacts",
                details: "Cards are shown only as `Visa •••• 1111`; contact lines are never written to the history.",
                subcommands: [
                    CommandSpec("add", "Add a sandbox test card to the wallet", arguments: [testCard]) {
                        .wallet(.add(testCard: ($0.text(testCard) ?? "").lowercased()))
                    },
                    CommandSpec(
                        "contact", "Add a contact: wallet contact add \"NAME, STREET, CITY, POSTCODE, CC\"",
                        arguments: [contactAdd, contact]
                    ) { invocation throws(ReplError) in
                        guard let given = invocation.token(contact) else {
                            throw ReplError(
                                .missingArgument, "'wallet contact add' needs \"NAME, STREET, CITY, POSTCODE, CC\"",
                                column: invocation.endColumn)
                        }
                        return .wallet(.addContact(try parseContact(given)))
                    },
                    CommandSpec("show", "Show the wallet's cards (masked) and contacts (city, country)") { _ in
                        .wallet(.show)
                    },
                    CommandSpec("clear", "Remove every card and contact") { _ in .wallet(.clear) },
                ]),
            CommandSpec(
                "sheet", "The payment sheet: set it up, open it, act on it as the buyer",
                details: """
                    sheet new sets the goods' price (the line "Order", AMOUNT in major units, e.g. 12.50) and who \
                    is paid (--label); sheet item add and sheet method add add goods lines and shipping methods \
                    (the first method is selected at first). sheet open shows the sheet, paid through the \
                    session's PaymentKit against the embedded sandbox; then contact, method, card, coupon, \
                    authorize and cancel act on it as the buyer (indices from 0, as sheet show lists them). \
                    Each action prints the delegate call, its answer and the new total, or busy / refused. A \
                    3-D Secure challenge goes through the buyer dialog (buyer challenge CODE).
                    """,
                subcommands: [
                    CommandSpec(
                        "new", "Describe the sheet: sheet new 12.50 EUR --label \"Example shop\"",
                        arguments: [amount, currency], flags: [label, networks, require, coupons]
                    ) { invocation throws(ReplError) in
                        let price = try requiredAmount(invocation.token(amount), end: invocation.endColumn)
                        guard let given = invocation.token(currency), given.text.count == 3,
                            given.text.allSatisfy({ $0.isASCII && $0.isLetter })
                        else {
                            throw ReplError(
                                .invalidValue, "CURRENCY must be a three-letter code such as EUR",
                                column: invocation.token(currency)?.column ?? invocation.endColumn)
                        }
                        guard let payee = invocation.token(label)?.text, !payee.isEmpty else {
                            throw ReplError(
                                .missingArgument, "'sheet new' needs --label TEXT (who is paid)",
                                column: invocation.endColumn)
                        }
                        return .wallet(
                            .newSheet(
                                SheetDraft(
                                    amount: price, currency: given.text.uppercased(), label: payee,
                                    networks: try invocation.token(networks).map { token throws(ReplError) in
                                        try list(token, of: sheetNetworks)
                                    },
                                    required: try invocation.token(require).map { token throws(ReplError) in
                                        try list(token, of: sheetContactFields)
                                    } ?? [], coupons: invocation.has(coupons))))
                    },
                    CommandSpec(
                        "item", "Add a goods line: sheet item add LABEL AMOUNT", arguments: [add, itemLabel, amount]
                    ) { invocation throws(ReplError) in
                        .wallet(
                            .addItem(
                                label: invocation.text(itemLabel) ?? "",
                                amount: try requiredAmount(invocation.token(amount), end: invocation.endColumn)))
                    },
                    CommandSpec(
                        "method",
                        "Add a shipping method (sheet method add ID LABEL AMOUNT), or pick one (sheet method ID)",
                        arguments: [
                            ArgumentSpec("add|ID"), ArgumentSpec("ID", optional: true),
                            ArgumentSpec("LABEL", optional: true), ArgumentSpec("AMOUNT", optional: true),
                        ]
                    ) { invocation throws(ReplError) in
                        try methodCommand(invocation)
                    },
                    CommandSpec("open", "Show the sheet to the buyer", flags: [step]) {
                        .wallet(.open(step: $0.has(step)))
                    },
                    CommandSpec("contact", "Buyer: pick the wallet contact N", arguments: [index]) {
                        .wallet(.buyer(.contact(Int($0.text(index) ?? "") ?? 0)))
                    },
                    CommandSpec("card", "Buyer: pick the wallet card N", arguments: [index]) {
                        .wallet(.buyer(.card(Int($0.text(index) ?? "") ?? 0)))
                    },
                    CommandSpec("coupon", "Buyer: enter a coupon code", arguments: [code]) {
                        .wallet(.buyer(.coupon($0.text(code) ?? "")))
                    },
                    CommandSpec("authorize", "Buyer: authorize the payment (pays with EGW)") { _ in
                        .wallet(.buyer(.authorize))
                    },
                    CommandSpec("cancel", "Buyer: close the sheet without paying") { _ in .wallet(.buyer(.cancel)) },
                    CommandSpec("show", "Show the sheet as the buyer sees it", flags: [json]) {
                        .wallet(.showSheet(json: $0.has(json)))
                    },
                ]),
            CommandSpec(
                "merchant", "How the simulated merchant answers the sheet",
                subcommands: [
                    CommandSpec(
                        "coupon", "Define a coupon: merchant coupon SAVE10 -10% (or -2.50, expired, invalid)",
                        arguments: [code, effect]
                    ) { invocation throws(ReplError) in
                        guard let given = invocation.token(effect) else {
                            throw ReplError(
                                .missingArgument, "'merchant coupon' needs CODE and -10%|-AMOUNT|expired|invalid",
                                column: invocation.endColumn)
                        }
                        return .wallet(.coupon(code: invocation.text(code) ?? "", rule: try parseCoupon(given)))
                    },
                    CommandSpec("unserviceable", "Refuse shipping to a country (two letters)", arguments: [country]) {
                        invocation throws(ReplError) in
                        guard let given = invocation.token(country), given.text.count == 2,
                            given.text.allSatisfy({ $0.isASCII && $0.isLetter })
                        else {
                            throw ReplError(
                                .invalidValue, "COUNTRY must be a two-letter code such as LV",
                                column: invocation.token(country)?.column ?? invocation.endColumn)
                        }
                        return .wallet(.unserviceable(country: given.text.uppercased()))
                    },
                    CommandSpec(
                        "answer", "auto: answer at once; manual: hold each answer until merchant answer send",
                        arguments: [mode]
                    ) { .wallet(.answer(MerchantAnswerMode(rawValue: $0.text(mode) ?? "") ?? .auto)) },
                ]),
        ]
    }

    /// `sheet method add ID LABEL AMOUNT` or `sheet method ID`.
    private static func methodCommand(_ invocation: Invocation) throws(ReplError) -> Command {
        let words = invocation.arguments.sorted { $0.value.column < $1.value.column }.map(\.value)
        guard let first = words.first else {
            throw ReplError(
                .missingArgument, "'sheet method' needs ID, or add ID LABEL AMOUNT", column: invocation.endColumn)
        }
        guard first.text.lowercased() == "add" else {
            if words.count > 1 {
                throw ReplError(
                    .invalidValue, "'sheet method ID' takes one word (sheet method add ID LABEL AMOUNT adds one)",
                    column: words[1].column, length: words[1].length)
            }
            return .wallet(.buyer(.method(first.text)))
        }
        guard words.count == 4 else {
            throw ReplError(.missingArgument, "'sheet method add' needs ID LABEL AMOUNT", column: invocation.endColumn)
        }
        return .wallet(
            .addMethod(id: words[1].text, label: words[2].text, amount: try parseAmount(words[3], name: "AMOUNT")))
    }

    /// The AMOUNT argument, which must be there.
    static func requiredAmount(_ token: Token?, end: Int) throws(ReplError) -> Decimal {
        guard let token else {
            throw ReplError(.missingArgument, "AMOUNT is missing", column: end)
        }
        return try parseAmount(token, name: "AMOUNT")
    }

    /// A non-negative amount in major units with at most four fraction digits (`12.50`, `0`, `1250`).
    static func parseAmount(_ token: Token, name: String) throws(ReplError) -> Decimal {
        let parts = token.text.split(separator: ".", omittingEmptySubsequences: false)
        let digitsOnly = parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        guard digitsOnly, parts.count <= 2, (parts.count < 2 || parts[1].count <= 4),
            let value = Decimal(string: token.text, locale: Locale(identifier: "en_US_POSIX"))
        else {
            throw ReplError(
                .invalidValue, "\(name) must be an amount in major units such as 12.50", column: token.column,
                length: token.length)
        }
        return value
    }

    /// `-10%`, `-2.50`, `expired` or `invalid`.
    static func parseCoupon(_ token: Token) throws(ReplError) -> CouponRule {
        let text = token.text.lowercased()
        if text == "expired" { return .expired }
        if text == "invalid" { return .invalid }
        let failure = ReplError(
            .invalidValue, "a coupon is -10% (percent off), -2.50 (amount off), expired or invalid",
            column: token.column, length: token.length)
        guard text.hasPrefix("-"), text.count > 1 else { throw failure }
        var body = Token(text: String(text.dropFirst()), column: token.column + 1, length: token.length - 1)
        let percent = body.text.hasSuffix("%")
        if percent { body.text.removeLast() }
        guard let value = try? parseAmount(body, name: "the coupon"), value > 0, !percent || value <= 100 else {
            throw failure
        }
        return percent ? .percentOff(value) : .amountOff(value)
    }

    /// `"NAME, STREET, CITY, POSTCODE, CC"`. The value is never quoted back: it is personal data.
    static func parseContact(_ token: Token) throws(ReplError) -> WalletContact {
        let fields = token.text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard fields.count == 5, fields.allSatisfy({ !$0.isEmpty }), fields[4].count == 2,
            fields[4].allSatisfy({ $0.isASCII && $0.isLetter })
        else {
            throw ReplError(
                .invalidValue, "a contact is \"NAME, STREET, CITY, POSTCODE, CC\" (five parts, CC two letters)",
                column: token.column, length: token.length)
        }
        return WalletContact(
            name: fields[0], street: fields[1], city: fields[2], postalCode: fields[3],
            countryCode: fields[4].uppercased())
    }

    /// A comma-separated list of known words.
    static func list(_ token: Token, of known: [String]) throws(ReplError) -> [String] {
        let words = token.text.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !words.isEmpty, let unknown = Optional(words.filter { !known.contains($0) }), unknown.isEmpty else {
            throw ReplError(
                .invalidValue, "expected a comma-separated list of \(known.joined(separator: ", "))",
                column: token.column, length: token.length)
        }
        return words
    }
}
