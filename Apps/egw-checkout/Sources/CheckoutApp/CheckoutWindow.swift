internal import CCheckoutGtk
import CardFields
import CardValidation
import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentAuthorization
import PaymentFlow
import PaymentSheetWindow
import WebKitPresenter

/// The shop: a cart of two items, a card form of the three SDK entries, and three ways to pay (card,
/// wallet sheet, hosted checkout), each showing its one result in the window. 3-D Secure challenges and
/// the hosted page open in a modal WebKit window over the shop (WebKitPresenter), where the person at
/// the screen answers them, or a scripted ``WebBuyer`` does; `--browser headless` plays them with the
/// headless buyer instead.
@MainActor
public final class CheckoutWindow {
    /// The cart: a book and a mug, 20.50 EUR.
    static let cart = [
        PaymentSummaryItem(label: "Book", amount: Decimal(string: "12.50")!),
        PaymentSummaryItem(label: "Mug", amount: Decimal(string: "8.00")!),
    ]
    static let currency = "EUR"

    let sandbox: Sandbox?
    private let backend: MerchantBackend
    private let kit: PaymentKit
    /// The kit's configuration; both page presenters are held to its trust.
    let configuration: Configuration
    private let browser: CheckoutOptions.Browser
    private let buyer: WebBuyer?
    private let onPageEvent: (@Sendable (WebKitPagePresenter.Event) -> Void)?
    private let builder: OpaquePointer
    /// The shop's `GtkWindow *`.
    public let window: UnsafeMutableRawPointer
    let number = CardNumberEntry()
    let expiry = CardExpiryEntry()
    let securityCode = CardSecurityCodeEntry()
    private(set) var sheet: PaymentSheetWindow?
    private var handlers: [Action] = []
    /// What the result line says (empty before the first payment).
    public private(set) var result = ""
    /// How many payments ended (tests wait on it).
    private(set) var finished = 0
    /// The payment the last card or hosted payment created (tests look it up in the sandbox).
    private(set) var lastPaymentId: String?

    /// The window on the embedded sandbox, or on the gateway the options name.
    ///
    /// - Parameters:
    ///   - buyer: with `--browser webkit`, a scripted buyer acting on the WebKit pages (tests, and
    ///     ``sandboxBuyer``); nil lets the person at the screen answer them.
    ///   - onPageEvent: what the WebKit presenter did, on GTK's thread (tests).
    /// - Throws: the sandbox's start failure; with `--browser webkit`, `WebKitPresenterError` when GTK
    ///   cannot be started for WebKit on this thread.
    public init(
        options: CheckoutOptions, buyer: WebBuyer? = nil,
        onPageEvent: (@Sendable (WebKitPagePresenter.Event) -> Void)? = nil
    ) throws {
        if options.sandbox {
            let sandbox = try Sandbox(configuration: .init(seed: UInt64(Date().timeIntervalSince1970)))
            self.sandbox = sandbox
            backend = .embedded(sandbox)
            configuration = Configuration(
                apiBaseURL: sandbox.apiBaseURL, checkoutAPIBaseURL: sandbox.checkoutAPIBaseURL,
                checkoutBaseURL: sandbox.checkoutBaseURL, environment: .sandbox)
        } else {
            sandbox = nil
            backend = .http(options.merchantBaseURL!, certificateAuthorityFile: options.certificateAuthorityFile)
            configuration = Self.liveConfiguration(options)
        }
        kit = PaymentKit(configuration: configuration)
        browser = options.browser
        self.buyer = buyer
        self.onPageEvent = onPageEvent
        if browser == .webkit { try GTKMainLoop.start() }  // GTK on this thread, for the page windows
        GLibMainQueue.install()
        builder = ckt_builder(ShopWindowUI.xml)
        let widget = { [builder] (id: String) -> UnsafeMutablePointer<GtkWidget> in ckt_widget(builder, id)! }
        window = UnsafeMutableRawPointer(widget("window"))
        let cartBox = widget("cart")
        for item in Self.cart {
            ckt_append(cartBox, ckt_label_new("\(item.label): \(Self.money(item.amount))"))
        }
        ckt_set_text(widget("cart-total"), "Total: \(Self.money(Self.total))")
        ckt_append(widget("card-number-slot"), number.widget)
        ckt_append(widget("card-details-slot"), expiry.widget)
        ckt_append(widget("card-details-slot"), securityCode.widget)
        number.onBrandChange = { [securityCode] brand in securityCode.brand = brand }
        on(widget("pay-card")) { $0.payByCard() }
        on(widget("pay-wallet")) { $0.payWithWallet() }
        on(widget("hosted")) { $0.payHosted() }
    }

    /// Live mode (`--no-sandbox`): a real gateway's rules (`.live`: `https` only) and the trust the
    /// options give (`--ca-file`, `--pin`), which the kit and both page presenters use.
    nonisolated static func liveConfiguration(_ options: CheckoutOptions) -> Configuration {
        var configuration = Configuration(
            apiBaseURL: options.apiBaseURL, checkoutAPIBaseURL: options.checkoutAPIBaseURL,
            checkoutBaseURL: options.checkoutBaseURL, environment: .live)
        configuration.transportSecurity = TransportSecurity(
            pinnedPublicKeys: options.pinnedPublicKeys, certificateAuthorityFile: options.certificateAuthorityFile)
        return configuration
    }

    /// Shows the window.
    public func present() {
        ckt_present(window.assumingMemoryBound(to: GtkWidget.self))
    }

    static var total: Decimal { cart.reduce(0) { $0 + $1.amount } }
    static func money(_ amount: Decimal) -> String { CurrencyExponent.format(amount, currencyCode: currency) }
    static var minorUnits: Int { CurrencyExponent.minorUnits(total, exponent: 2) ?? 0 }

    private func widget(_ id: String) -> UnsafeMutablePointer<GtkWidget> {
        ckt_widget(builder, id)
    }

    private func on(_ button: UnsafeMutablePointer<GtkWidget>, _ body: @escaping @MainActor (CheckoutWindow) -> Void) {
        let action = Action { [weak self] in if let self { body(self) } }
        handlers.append(action)
        ckt_on_clicked(button, Action.callback, Unmanaged.passUnretained(action).toOpaque())
    }

    // MARK: - Paying

    private func setBusy(_ busy: Bool) {
        for id in ["pay-card", "pay-wallet", "hosted"] { ckt_set_sensitive(widget(id), busy ? 0 : 1) }
        if busy { show("Paying…", count: false) }
    }

    private func show(_ text: String, count: Bool = true) {
        result = text
        ckt_set_text(widget("result"), text)
        if count { finished += 1 }
    }

    func payByCard() {
        let card = CardInput()
        card.fill(
            number: number, expiry: expiry, securityCode: securityCode,
            cardholderName: String(cString: ckt_text(widget("cardholder-name"))))
        let errors = widget("card-errors")
        let nameError = card.validationError(for: .cardholderName).map(PaymentErrorText.describe)
        guard card.showValidationErrors(number: number, expiry: expiry, securityCode: securityCode), nameError == nil
        else {
            let messages = [
                nameError, number.validationMessage, expiry.validationMessage, securityCode.validationMessage,
            ]
            ckt_set_text(errors, messages.compactMap { $0 }.joined(separator: "\n"))
            ckt_set_visible(errors, 1)
            return show("Check the card details.")
        }
        ckt_set_visible(errors, 0)
        let presenter = pagePresenter(headless: .answering(challengeCode: Sandbox.challengeCode))
        withNewPayment { kit, payment in
            let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
            kit.startCardPayment(request, card: card, from: presenter) { result in
                // The completion is @MainActor (delivered on the main queue): no assumeIsolated.
                if result.outcome == .succeeded { self.clearCardForm() }
                self.finish(Self.describe(result.outcome, result.error, how: "by card"))
            }
        }
    }

    /// Marks the shop busy, creates a payment for the cart, and calls `pay` with it on GTK's thread (or
    /// shows why there is none).
    private func withNewPayment(_ pay: @escaping @MainActor (PaymentKit, CreatedPayment) -> Void) {
        setBusy(true)
        let kit = kit
        backend.createPayment(amount: Self.minorUnits, currency: Self.currency) { created in
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    switch created {
                    case .failure(let failure): self.finish("Could not create the payment: \(failure)")
                    case .success(let payment):
                        self.lastPaymentId = payment.paymentId
                        pay(kit, payment)
                    }
                }
            }
        }
    }

    /// Empties the card form and its errors.
    func clearCardForm() {
        gtk_editable_set_text(OpaquePointer(widget("cardholder-name")), "")
        number.clear()
        expiry.clear()
        securityCode.clear()
        ckt_set_visible(widget("card-errors"), 0)
    }

    func payWithWallet() {
        let merchant = SimulatedMerchant(
            name: "EGW shop", goods: Self.cart, currencyCode: Self.currency, initialMethod: Self.methods[0])
        merchant.setCoupon("SAVE10", .percentOff(10))
        var request = PaymentAuthorizationRequest(
            merchantIdentifier: "merchant.lv.egw-shop", countryCode: "LV", currencyCode: Self.currency,
            supportedNetworks: [.visa, .mastercard, .maestro], paymentSummaryItems: merchant.summaryItems)
        request.requiredShippingContactFields = [.postalAddress, .name]
        request.shippingMethods = Self.methods
        request.supportsCouponCode = true
        let sheet = PaymentSheetWindow(parent: window)
        self.sheet = sheet
        let backend = backend
        guard
            let context = WalletPaymentContext(
                paymentRequest: request, sheetPresenter: sheet, wallet: Self.wallet(), merchant: merchant,
                paymentKit: kit,
                pagePresenter: pagePresenter(headless: .answering(challengeCode: Sandbox.challengeCode)),
                paymentFor: { amount, completion in
                    backend.createPayment(amount: amount.minorUnits, currency: amount.currencyCode) { created in
                        completion(
                            created.map {
                                CardPaymentRequest(paymentId: $0.paymentId, verificationKey: $0.verificationKey)
                            }
                            .mapError { $0 as any Error })
                    }
                })
        else { return show("The wallet cannot pay here.") }
        setBusy(true)
        context.present { result in
            MainActor.assumeIsolated {
                self.finish(
                    Self.describe(result.outcome, result.payment?.error, how: "with the wallet", total: result.total))
            }
        }
    }

    func payHosted() {
        withNewPayment { kit, payment in
            let request = PaymentRequest(
                paymentId: payment.paymentId, verificationKey: payment.verificationKey,
                checkoutURL: payment.checkoutURL, returnURL: payment.returnURL)
            let presenter = self.pagePresenter(headless: .answering(hosted: .pay))
            kit.startPayment(request, from: presenter) { result in
                self.finish(Self.describe(result.outcome, result.error, how: "on the hosted page"))
            }
        }
    }

    /// What shows a payment's pages: a modal WebKit window over the shop (answered by the person, or
    /// by ``buyer``), or with `--browser headless` the headless browser playing `script`.
    private func pagePresenter(headless script: BuyerScript) -> any PaymentPresenter {
        switch browser {
        // The kit's own trust and rules for pages too: its CA file and pins, `https` outside the sandbox.
        case .headless: HeadlessBrowserPresenter(script: script, configuration: configuration)
        case .webkit:
            WebKitPagePresenter(
                host: .window(window), trust: PageTrust(configuration: configuration), buyer: buyer,
                onEvent: onPageEvent)
        }
    }

    /// A scripted buyer for the sandbox's pages in the WebKit window: types the sandbox's challenge
    /// code where the page asks for one, else presses Pay (the hosted checkout).
    public static let sandboxBuyer = WebBuyer { page, respond in
        respond(
            page.codeFieldCount > 0
                ? .enterCode(Sandbox.challengeCode)
                : .press(labels: [HostedChoice.pay.rawValue] + HostedChoice.pay.labels))
    }

    private func finish(_ text: String) {
        setBusy(false)
        show(text)
    }

    /// The one line the buyer reads about a result.
    static func describe(_ outcome: PaymentOutcome, _ error: NSError?, how: String, total: Decimal = total) -> String {
        switch outcome {
        case .succeeded: "Paid \(money(total)) \(how)."
        case .failed: "Payment failed: " + (error.map(PaymentErrorText.describe) ?? "the payment did not happen.")
        case .cancelled: "Payment cancelled."
        case .unresolved: "We could not confirm the payment yet: the shop will check it. Do not pay again."
        }
    }

    static let methods = [
        ShippingMethod(identifier: "standard", label: "Standard", amount: 0, detail: "3-5 days"),
        ShippingMethod(identifier: "express", label: "Express", amount: Decimal(string: "4.99")!, detail: "next day"),
    ]

    /// Sandbox test cards: a frictionless Visa and a Mastercard the issuer challenges.
    static func wallet() -> SimulatedWallet {
        SimulatedWallet(
            cards: [
                WalletCard(
                    CardInput(
                        cardholderName: "Jane Doe", cardNumber: "4111 1111 1111 1111", expiryMonth: "12",
                        expiryYear: "35", securityCode: "987")),
                WalletCard(
                    CardInput(
                        cardholderName: "Jane Doe", cardNumber: "5555 5555 5555 4444", expiryMonth: "12",
                        expiryYear: "35", securityCode: "987"), funding: .debit),
            ],
            contacts: [
                Contact(
                    name: "Jane Doe", street: "Brivibas iela 1", city: "Riga", state: "Riga", postalCode: "LV-1010",
                    countryCode: "LV"),
                Contact(
                    name: "Jane Doe", street: "Lielā iela 1", city: "Jelgava", postalCode: "LV-3001", countryCode: "LV"),
            ])
    }
}

/// A Swift closure behind a C callback, kept alive by the window that connected it.
@MainActor
final class Action {
    let run: @MainActor () -> Void
    init(_ run: @escaping @MainActor () -> Void) { self.run = run }

    static let callback: ckt_fn = { context in
        guard let context else { return }
        let action = Unmanaged<Action>.fromOpaque(context).takeUnretainedValue()
        MainActor.assumeIsolated { action.run() }
    }
}
