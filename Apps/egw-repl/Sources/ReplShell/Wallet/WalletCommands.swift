import CardValidation
import EGWWire
import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentAuthorization
import ReplCore

/// The simulated wallet, the sheet being set up, the merchant's rules, the open sheet and the last
/// sheet's result: what `wallet`, `sheet` and `merchant` work on.
struct WalletSession {
    /// The device's wallet (cards shown only as `Visa •••• 1111`).
    let wallet = SimulatedWallet()
    var draft: SheetDraft?
    var items: [PaymentSummaryItem] = []
    var methods: [ShippingMethod] = []
    var coupons: [(code: String, coupon: SimulatedMerchant.Coupon)] = []
    var unserviceable: [String] = []
    var answersManually = false
    /// The sheet on screen (nil once its result came).
    var open: OpenSheet?
    /// The last sheet's one result (`result`).
    var lastResult: WalletPaymentResult?
}

/// A sheet on screen: its context, presenter, merchant, mailboxes, and what the shell waits for.
@MainActor
final class OpenSheet {
    let context: WalletPaymentContext
    let presenter: ObservedWalletSheet
    let merchant: ObservedMerchant
    let inbox: SheetInbox
    /// Where the 3-D Secure page's browser and the kit's log lines report.
    let pageInbox: PaymentInbox
    let kit: PaymentKit
    /// The delegate call the sheet is waiting on (printed with its answer).
    var call: String?
    /// An action was taken: a `ready` rendering counts only after the sheet changed.
    var expectsChange = false
    /// The wait is over (ready again, an answer held, or the result came).
    var settled = false
    var result: WalletPaymentResult?

    init(
        context: WalletPaymentContext, presenter: ObservedWalletSheet, merchant: ObservedMerchant, inbox: SheetInbox,
        pageInbox: PaymentInbox, kit: PaymentKit
    ) {
        self.context = context
        self.presenter = presenter
        self.merchant = merchant
        self.inbox = inbox
        self.pageInbox = pageInbox
        self.kit = kit
    }
}

extension Shell {
    /// `wallet ...`, `sheet ...`, `merchant ...`.
    func runWallet(_ command: WalletCommand) throws(ReplError) {
        switch command {
        case .add(let name):
            try addWalletCard(named: name)
        case .addContact(let given):
            wallet.wallet.add(
                Contact(
                    name: given.name, street: given.street, city: given.city, postalCode: given.postalCode,
                    countryCode: given.countryCode))
            note("Added contact \(wallet.wallet.contacts.count - 1): \(given.city), \(given.countryCode).")
        case .show:
            showWallet()
        case .clear:
            wallet.wallet.clear()
            note("Wallet cleared.")
        case .newSheet(let draft):
            wallet.draft = draft
            wallet.items = []
            wallet.methods = []
            note("Sheet: Order \(money(draft.amount, draft.currency)), paid to \(draft.label).")
        case .addItem(let label, let amount):
            let draft = try requireDraft()
            wallet.items.append(PaymentSummaryItem(label: label, amount: amount))
            note("Item: \(label) \(money(amount, draft.currency)).")
        case .addMethod(let id, let label, let amount):
            let draft = try requireDraft()
            wallet.methods.append(ShippingMethod(identifier: id, label: label, amount: amount))
            note("Shipping method \(id): \(label) \(money(amount, draft.currency)).")
        case .coupon(let code, let rule):
            let coupon: SimulatedMerchant.Coupon =
                switch rule {
                case .percentOff(let percent): .percentOff(percent)
                case .amountOff(let amount): .amountOff(amount)
                case .expired: .expired
                case .invalid: .invalid
                }
            wallet.coupons.append((code, coupon))
            wallet.open?.merchant.merchant.setCoupon(code, coupon)
            note("Coupon \(code): \(rule).")
        case .unserviceable(let country):
            wallet.unserviceable.append(country)
            wallet.open?.merchant.merchant.setUnserviceable(country)
            note("The merchant does not ship to \(country).")
        case .answer(let mode):
            try merchantAnswers(mode)
        case .open(let step):
            try openSheet(step: step)
        case .buyer(let action):
            try act(action)
        case .showSheet(let json):
            try showSheet(json: json)
        }
    }

    private func money(_ amount: Decimal, _ currency: String) -> String {
        CurrencyExponent.format(amount, currencyCode: currency)
    }

    private func requireDraft() throws(ReplError) -> SheetDraft {
        guard let draft = wallet.draft else {
            throw ReplError(.notAvailable, "no sheet yet: sheet new AMOUNT CURRENCY --label TEXT")
        }
        return draft
    }

    private func requireOpenSheet() throws(ReplError) -> OpenSheet {
        guard let open = wallet.open else {
            throw ReplError(.notAvailable, "no sheet is open: sheet open")
        }
        return open
    }

    // MARK: wallet

    private func addWalletCard(named name: String) throws(ReplError) {
        guard let testCard = Sandbox.testCards.first(where: { $0.name == name }) else {
            throw ReplError(.invalidValue, "no test card named '\(name)' (sandbox cards lists them)")
        }
        let input = CardInput()
        input.cardNumber = testCard.number
        input.cardholderName = "Wallet Cardholder"
        input.expiryMonth = "12"
        input.expiryYear = Self.twoDigitYear(yearsFromNow: 4)
        input.securityCode = input.brand == .amex ? "1234" : "123"
        let card = WalletCard(input)
        wallet.wallet.add(card)
        note("Added card \(wallet.wallet.cards.count - 1): \(card.displayName) (\(testCard.name)).")
    }

    private func showWallet() {
        let cards = wallet.wallet.cards
        let contacts = wallet.wallet.contacts
        let place = { (contact: Contact) in "\(contact.city ?? "-"), \(contact.countryCode ?? "-")" }
        if options.json {
            console.out(
                JSONValue.members([
                    ("cards", .array(cards.map { .string($0.displayName) })),
                    ("contacts", .array(contacts.map { .string(place($0)) })),
                ]).jsonText)
            return
        }
        if cards.isEmpty && contacts.isEmpty {
            console.out(
                "The wallet is empty: wallet add TESTCARD, wallet contact add \"NAME, STREET, CITY, POSTCODE, CC\".")
            return
        }
        for (index, card) in cards.enumerated() {
            console.out("  card \(index): \(card.displayName) (\(card.funding.rawValue))")
        }
        for (index, contact) in contacts.enumerated() {
            console.out("  contact \(index): \(place(contact))")
        }
    }

    // MARK: merchant

    private func merchantAnswers(_ mode: MerchantAnswerMode) throws(ReplError) {
        switch mode {
        case .manual:
            wallet.answersManually = true
            wallet.open?.merchant.setHoldsAnswers(true)
            note("The merchant holds each answer until merchant answer send.")
        case .auto, .send:
            if mode == .auto {
                wallet.answersManually = false
                wallet.open?.merchant.setHoldsAnswers(false)
                note("The merchant answers at once.")
            }
            guard let open = wallet.open, open.merchant.merchant.releaseHeldAnswer() else {
                if mode == .send {
                    throw ReplError(.notAvailable, "the merchant holds no answer")
                }
                return
            }
            sheetLine("merchant: answer sent", json: [("event", .string("answerSent"))])
            waitForSheet(open)
        }
    }

    // MARK: the sheet

    private func openSheet(step: Bool) throws(ReplError) {
        let draft = try requireDraft()
        if wallet.open != nil {
            throw ReplError(.notAvailable, "a sheet is already open (sheet cancel closes it)")
        }
        let sandbox = try requireSandbox()
        let brands: [String: CardBrand] = [
            "visa": .visa, "mastercard": .mastercard, "amex": .amex, "maestro": .maestro, "discover": .discover,
        ]
        let fields: [String: ContactField] = [
            "name": .name, "address": .postalAddress, "email": .emailAddress, "phone": .phoneNumber,
        ]
        let inbox = SheetInbox(wake: events.wake)
        let merchant = ObservedMerchant(
            SimulatedMerchant(
                name: draft.label, goods: [PaymentSummaryItem(label: "Order", amount: draft.amount)] + wallet.items,
                currencyCode: draft.currency, initialMethod: wallet.methods.first), inbox: inbox)
        for (code, coupon) in wallet.coupons { merchant.merchant.setCoupon(code, coupon) }
        for country in wallet.unserviceable { merchant.merchant.setUnserviceable(country) }
        merchant.setHoldsAnswers(wallet.answersManually)

        var request = PaymentAuthorizationRequest(
            merchantIdentifier: "merchant.egw.repl", countryCode: "LV", currencyCode: draft.currency,
            supportedNetworks: (draft.networks ?? CommandTable.sheetNetworks).compactMap { brands[$0] },
            merchantCapabilities: [.threeDSecure], paymentSummaryItems: merchant.merchant.summaryItems)
        request.shippingMethods = wallet.methods
        request.requiredShippingContactFields = Set(draft.required.compactMap { fields[$0] })
        request.supportsCouponCode = draft.coupons
        if let problem = request.validationError() {
            throw ReplError(.invalidValue, "the sheet breaks a rule: \(problem)")
        }
        guard
            PaymentAuthorizationController.canMakePayments(
                usingNetworks: request.supportedNetworks, capabilities: request.merchantCapabilities,
                in: wallet.wallet)
        else {
            throw ReplError(.notAvailable, "no wallet card can pay this sheet: wallet add TESTCARD")
        }

        var sheetOptions = PaymentAuthorizationController.Options()
        sheetOptions.deadline = step ? nil : 30
        sheetOptions.callbackQueue = events.callbackQueue
        sheetOptions.observer = { inbox.post(.report($0)) }
        let pageInbox = PaymentInbox(wake: events.wake)
        let browser = HeadlessBrowserPresenter(
            script: pageInbox.buyerScript(), transport: buyerTransport(),
            options: .init(pageTimeout: configuration.kit.timeout), onEvent: pageInbox.browserObserver())
        let presenter = ObservedWalletSheet(inbox: inbox)
        let kit = sessionKit()
        guard
            let context = WalletPaymentContext(
                paymentRequest: request, sheetPresenter: presenter, wallet: wallet.wallet, options: sheetOptions,
                merchant: merchant, paymentKit: kit, pagePresenter: browser,
                paymentFor: { order, completion in
                    // The app's backend: the embedded sandbox's merchant API makes the EGW payment.
                    let made = sandbox.createPayment(amount: order.minorUnits, currency: order.currencyCode)
                    inbox.post(
                        .paymentCreated(
                            paymentId: made.paymentId, verificationKey: made.verificationKey, amount: order.amount))
                    completion(
                        .success(CardPaymentRequest(paymentId: made.paymentId, verificationKey: made.verificationKey)))
                })
        else {
            throw ReplError(.notAvailable, "the sheet cannot be shown on this wallet")
        }
        let open = OpenSheet(
            context: context, presenter: presenter, merchant: merchant, inbox: inbox, pageInbox: pageInbox, kit: kit)
        wallet.open = open
        info(console.styled("Sheet open", .bold) + (step ? " — no deadlines (--step)" : " (deadlines 30 s)"))
        context.present { inbox.post(.finished($0)) }
        waitForSheet(open)
        if wallet.open === open, let current = presenter.sheet.current, !options.json {
            console.out(current.description)
        }
    }

    private func act(_ action: SheetAction) throws(ReplError) {
        let open = try requireOpenSheet()
        let buyerAction: SheetBuyerAction =
            switch action {
            case .contact(let index): .selectContact(index)
            case .method(let id): .selectShippingMethod(id)
            case .card(let index): .selectCard(index)
            case .coupon(let code): .enterCouponCode(code)
            case .authorize: .authorize
            case .cancel: .cancel
            }
        drainSheet(open)  // what came before belongs to the previous action
        let reply = open.presenter.sheet.perform(buyerAction)
        var shown = "\(buyerAction)"
        if case .selectCard(let index) = buyerAction, let cards = open.presenter.sheet.current?.cards,
            cards.indices.contains(index)
        {
            shown += " (\(cards[index].displayName))"
        }
        if case .refused(let why) = reply {
            // A refused action fails the command (a script's exit status says so); busy does not.
            throw ReplError(.notAvailable, "buyer: \(shown) → refused: \(why)")
        }
        sheetLine(
            "buyer: \(shown) → \(reply)",
            json: [("event", .string("sheetBuyer")), ("action", .string(shown)), ("reply", .string("\(reply)"))])
        guard reply == .accepted else {
            return
        }
        open.expectsChange = true
        waitForSheet(open)
    }

    /// Waits until the sheet is ready again, the merchant holds its answer, or the result came; the
    /// 3-D Secure page's questions go through the buyer dialog meanwhile.
    private func waitForSheet(_ open: OpenSheet) {
        open.settled = false
        let run = PaymentRun(kit: open.kit, inbox: open.pageInbox, flow: .card, stepping: false)
        logRelay.route(to: open.pageInbox)
        running = run
        defer {
            running = nil
            logRelay.route(to: nil)
        }
        waitForPayment(run) { [self] in
            drainSheet(open)
            return open.settled
        }
    }

    private func drainSheet(_ open: OpenSheet) {
        for event in open.inbox.drain() {
            handleSheet(event, of: open)
        }
    }

    private func handleSheet(_ event: SheetEvent, of open: OpenSheet) {
        switch event {
        case .rendered(let sheet):
            let total = money(sheet.total, sheet.currencyCode)
            switch sheet.state {
            case .busy(let call):
                open.expectsChange = false
                open.call = call
                sheetLine(
                    "  → delegate \(call)", json: [("event", .string("sheetCall")), ("call", .string(call))])
            case .processing:
                open.expectsChange = false
                open.call = "didAuthorizePayment"
                sheetLine(
                    "  → delegate didAuthorizePayment (\(total))",
                    json: [("event", .string("sheetCall")), ("call", .string("didAuthorizePayment"))])
            case .ready where !open.expectsChange:
                if let call = open.call {
                    let errors =
                        sheet.errors.isEmpty
                        ? "" : ", errors: \(sheet.errors.map(\.description).joined(separator: "; "))"
                    sheetLine(
                        "  ← \(call) answered: total \(total)\(errors)",
                        json: [
                            ("event", .string("sheetAnswer")), ("call", .string(call)),
                            ("total", .string(amountText(sheet.total, sheet.currencyCode))),
                            ("currency", .string(sheet.currencyCode)),
                            ("errors", .array(sheet.errors.map { .string($0.description) })),
                        ])
                    open.call = nil
                }
                open.settled = true
            case .ready, .showingStatus, .finished:
                break
            }
        case .status(let status):
            sheetLine(
                "  ← status \(status)\(Self.statusNote(status))",
                json: [("event", .string("sheetStatus")), ("status", .string("\(status)"))])
        case .held(let call):
            sheetLine(
                "  … merchant holds its answer to \(call) (merchant answer send gives it)",
                json: [("event", .string("sheetHeld")), ("call", .string(call))])
            open.settled = true
        case .paymentCreated(let paymentId, let key, let amount):
            knownKeys[paymentId] = key
            payment = CurrentPayment(
                paymentId: paymentId, verificationKey: key, amount: amount.minorUnits, currency: amount.currencyCode)
            sheetLine(
                "  · EGW payment \(paymentId) for \(amount) (\(amount.minorUnits) minor units)",
                json: [
                    ("event", .string("sheetPayment")), ("paymentId", .string(paymentId)),
                    ("minorUnits", .int(amount.minorUnits)), ("currency", .string(amount.currencyCode)),
                ])
        case .report(let report):
            sheetLine("  ! \(report)", json: [("event", .string("sheetReport")), ("report", .string("\(report)"))])
        case .finished(let result):
            open.result = result
            open.settled = true
            wallet.lastResult = result
            if let payment = result.payment {
                lastResult = payment
            }
            if wallet.open === open {
                wallet.open = nil
            }
            let paid = result.payment.map { ", payment \($0.paymentId)" } ?? ""
            sheetLine(
                "◼ sheet \(result.outcome): status \(result.shownStatus.map { "\($0)" } ?? "-"), "
                    + "finish \(result.finishReason.rawValue), attempts \(result.attempts), total "
                    + "\(money(result.total, result.currencyCode))\(paid)",
                json: [("event", .string("sheetResult"))] + walletMembers(result))
        }
    }

    /// What a status line adds: a payment in doubt says how the sheet showed it and what to do (the
    /// gateway may have taken the money); the others speak for themselves.
    static func statusNote(_ status: PaymentAuthorizationStatus) -> String {
        switch status {
        case .unresolved: " (payment in doubt: shown as being confirmed; ask the backend, never pay again)"
        case .success, .failure, .invalidBillingPostalAddress, .invalidShippingPostalAddress, .invalidShippingContact:
            ""
        }
    }

    /// `16.24` (the currency's fraction digits, no code).
    private func amountText(_ amount: Decimal, _ currency: String) -> String {
        String(money(amount, currency).split(separator: " ").first ?? "")
    }

    /// One line of the sheet's story: text, or one JSON object with `--json`.
    private func sheetLine(_ text: String, json: [(String, JSONValue)]) {
        console.out(options.json ? JSONValue.members(json).jsonText : redact(text))
    }

    /// `("wallet", {...})` when the last result is a sheet's (its EGW payment is the last payment, or
    /// it paid nothing and no payment has finished since).
    func walletResultMember() -> (String, JSONValue)? {
        guard let result = wallet.lastResult, result.payment?.paymentId == lastResult?.paymentId else {
            return nil
        }
        return ("wallet", .members(walletMembers(result)))
    }

    /// The `"wallet"` object of `result --json`: outcome, status, finishReason, attempts, total and the
    /// nested EGW `payment` result.
    func walletMembers(_ result: WalletPaymentResult) -> [(String, JSONValue)] {
        [
            ("outcome", .string("\(result.outcome)")),
            ("status", result.shownStatus.map { .string("\($0)") } ?? .null),
            ("finishReason", .string(result.finishReason.rawValue)), ("attempts", .int(result.attempts)),
            ("total", .string(amountText(result.total, result.currencyCode))),
            ("currency", .string(result.currencyCode)),
            ("payment", result.payment.map { .members(renderer.resultMembers($0)) } ?? .null),
            // What the buyer authorized: the requested contact fields and the method (null before).
            ("shippingContact", result.shippingContact.map(Self.contactJSON) ?? .null),
            ("shippingMethod", result.shippingMethod.map { .string($0.identifier) } ?? .null),
        ]
    }

    /// A contact as JSON: its given fields only, in `Contact`'s order.
    static func contactJSON(_ contact: Contact) -> JSONValue {
        let fields: [(String, String?)] = [
            ("name", contact.name), ("street", contact.street), ("city", contact.city), ("state", contact.state),
            ("postalCode", contact.postalCode), ("countryCode", contact.countryCode),
            ("emailAddress", contact.emailAddress), ("phoneNumber", contact.phoneNumber),
        ]
        return .members(fields.compactMap { key, value in value.map { (key, JSONValue.string($0)) } })
    }

    private func showSheet(json: Bool) throws(ReplError) {
        guard let sheet = wallet.open?.presenter.sheet.current else {
            throw ReplError(.notAvailable, "no sheet is open: sheet open")
        }
        guard json || options.json else {
            console.out(sheet.description)
            return
        }
        let amount = { (value: Decimal) in JSONValue.string(self.amountText(value, sheet.currencyCode)) }
        console.out(
            JSONValue.members([
                ("state", .string(sheet.state.description)), ("currency", .string(sheet.currencyCode)),
                ("total", amount(sheet.total)),
                (
                    "items",
                    .array(
                        sheet.summaryItems.map {
                            .members([("label", .string($0.label)), ("amount", amount($0.amount))])
                        })
                ),
                (
                    "methods",
                    .array(
                        sheet.shippingMethods.map {
                            .members([
                                ("id", .string($0.identifier)), ("label", .string($0.label)),
                                ("amount", amount($0.amount)),
                            ])
                        })
                ),
                ("selectedMethod", sheet.selectedShippingMethod.map(JSONValue.string) ?? .null),
                ("contacts", .array(sheet.contacts.map { .string($0.description) })),
                ("selectedContact", sheet.selectedContact.map(JSONValue.int) ?? .null),
                // Before authorization the sheet holds only the redacted contact (city, state, postal
                // code, country), as the delegate sees it.
                (
                    "shippingContact",
                    sheet.selectedContact.flatMap { index in
                        wallet.wallet.contacts.indices.contains(index) ? wallet.wallet.contacts[index] : nil
                    }.map { Self.contactJSON($0.redacted) } ?? .null
                ),
                ("shippingMethod", sheet.selectedShippingMethod.map(JSONValue.string) ?? .null),
                (
                    "cards",
                    .array(
                        sheet.cards.map {
                            .members([("name", .string($0.displayName)), ("accepted", .bool($0.accepted))])
                        })
                ),
                ("selectedCard", sheet.selectedCard.map(JSONValue.int) ?? .null),
                ("coupon", sheet.couponCode.map(JSONValue.string) ?? .null),
                ("errors", .array(sheet.errors.map { .string($0.description) })),
            ]).jsonText)
    }
}
