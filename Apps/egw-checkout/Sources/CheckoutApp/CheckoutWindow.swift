import BuyerText
internal import CCheckoutGtk
import CardFields
import CardValidation
import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentAuthorization
import PaymentFlow
import PaymentSheetWindow
import ShopWindowLayout
import Synchronization
import WebKitPresenter

/// The shop: a cart of two items, a card form of the three SDK entries, and three ways to pay (card,
/// wallet sheet, hosted checkout), each showing its one result in the window. 3-D Secure challenges and
/// the hosted page open in a modal WebKit window over the shop (WebKitPresenter), where the person at
/// the screen answers them, or a scripted ``WebBuyer`` does; `--browser headless` plays them with the
/// headless buyer instead. Every word the shop shows is BuyerText's (`shop.*`), in the locale's language
/// as the SDK's own fields and sheet.
@MainActor
public final class CheckoutWindow {
    /// The words the shop shows: the locale's language (``BuyerText/current``).
    static let text = BuyerText.current

    /// The cart: a book and a mug, 20.50 EUR.
    static let cart = [
        PaymentSummaryItem(label: text["shop.item.book"], amount: Decimal(string: "12.50")!),
        PaymentSummaryItem(label: text["shop.item.mug"], amount: Decimal(string: "8.00")!),
    ]
    static let currency = "EUR"

    /// What pays: the sandbox (when embedded), the merchant backend, the kit and its configuration; set by
    /// ``finishStarting()``, before any payment (a payment button needs the first frame shown).
    private struct Services {
        let sandbox: Sandbox?
        let backend: MerchantBackend
        let kit: PaymentKit
        let configuration: Configuration
    }
    private var services: Services?
    private var pendingStart: (() throws -> Services)?
    private var started: Services {
        if services == nil { try? finishStarting() }  // a click that beat CheckoutMain's call
        guard let services else { preconditionFailure("CheckoutWindow: the sandbox did not start") }
        return services
    }
    var sandbox: Sandbox? { started.sandbox }
    private var backend: MerchantBackend { started.backend }
    private var kit: PaymentKit { started.kit }
    /// The kit's configuration; both page presenters are held to its trust.
    var configuration: Configuration { started.configuration }
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
    /// - Throws: the sandbox's start failure (without `sandboxStart`); with `--browser webkit`, `WebKitPresenterError` when GTK
    ///   cannot be started for WebKit on this thread.
    ///   - sandboxStart: the embedded sandbox, started elsewhere (``SandboxStart/begin()``, `CheckoutMain`
    ///     does it once the first frame is drawn); then call ``finishStarting()`` before any payment.
    ///     nil: the sandbox starts here, before `init` returns.
    public init(
        options: CheckoutOptions, buyer: WebBuyer? = nil,
        onPageEvent: (@Sendable (WebKitPagePresenter.Event) -> Void)? = nil, sandboxStart: SandboxStart? = nil
    ) throws {
        if options.browser == .webkit { try GTKMainLoop.start() }  // GTK on this thread, for the page windows
        // The window's widgets first: they need nothing of the sandbox, which may still be starting.
        builder = ckt_builder(ShopWindowUI.xml(Self.text, items: Self.cart.count))
        window = UnsafeMutableRawPointer(ckt_widget(builder, "window")!)
        pendingStart = {
            let sandbox: Sandbox?
            let backend: MerchantBackend
            let configuration: Configuration
            if options.sandbox {
                let started = try (sandboxStart ?? SandboxStart()).wait()
                sandbox = started
                backend = .embedded(started)
                configuration = Configuration(
                    apiBaseURL: started.apiBaseURL, checkoutAPIBaseURL: started.checkoutAPIBaseURL,
                    checkoutBaseURL: started.checkoutBaseURL, environment: .sandbox)
            } else {
                sandbox = nil
                backend = .http(options.merchantBaseURL!, certificateAuthorityFile: options.certificateAuthorityFile)
                configuration = Self.liveConfiguration(options)
            }
            return Services(
                sandbox: sandbox, backend: backend, kit: PaymentKit(configuration: configuration),
                configuration: configuration)
        }
        browser = options.browser
        self.buyer = buyer
        self.onPageEvent = onPageEvent
        GLibMainQueue.install()
        let widget = { [builder] (id: String) -> UnsafeMutablePointer<GtkWidget> in ckt_widget(builder, id)! }
        let cartBox = widget("cart")
        for item in Self.cart {
            ckt_append(cartBox, ckt_label_new("\(item.label): \(Self.money(item.amount))"))
        }
        ckt_set_text(widget("cart-total"), Self.text.format("shop.total", Self.money(Self.total)))
        let cardEntries = [number.widgetReference, expiry.widgetReference, securityCode.widgetReference].map(Self.gtk)
        ckt_append(widget("card-number-slot"), cardEntries[0])
        ckt_append(widget("card-details-slot"), cardEntries[1])
        ckt_append(widget("card-details-slot"), cardEntries[2])
        number.onBrandChange = { [securityCode] brand in securityCode.brand = brand }
        on(widget("pay-card")) { $0.payByCard() }
        // Enter in any card field pays, as in a web form; a keyboard buyer need not Tab to the button.
        ckt_set_invalid(widget("cardholder-name"), 0, nil)
        for entry in [widget("cardholder-name")] + cardEntries { onActivate(entry) { $0.payByCard() } }
        on(widget("pay-wallet")) { $0.payWithWallet() }
        on(widget("hosted")) { $0.payHosted() }
        if sandboxStart == nil { try finishStarting() }
    }

    /// Waits for what `init` left starting (the embedded sandbox given as `sandboxStart`) and makes the
    /// kit; does nothing the second time. `CheckoutMain` calls it once the first frame is drawn, so the
    /// window shows while the sandbox starts; until then no payment can start (the buttons are not
    /// shown yet). Without `sandboxStart`, `init` calls it.
    ///
    /// - Throws: the sandbox's start failure.
    public func finishStarting() throws {
        guard let start = pendingStart else { return }
        pendingStart = nil
        services = try start()
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
    /// `amount` as the buyer's language writes a price in the cart's currency (`€20.50`, `20,50 €`).
    static func money(_ amount: Decimal) -> String {
        text.money(amount, currencyCode: currency, fractionDigits: CurrencyExponent.of(currency) ?? 2)
    }
    static var minorUnits: Int { CurrencyExponent.minorUnits(total, exponent: 2) ?? 0 }

    /// A card entry's `GtkWidget *` for the shop's own GTK calls: the entries live as long as the window.
    private static func gtk(_ entry: GObjectReference) -> UnsafeMutablePointer<GtkWidget> {
        entry.withUnsafePointer { $0.assumingMemoryBound(to: GtkWidget.self) }
    }

    private func widget(_ id: String) -> UnsafeMutablePointer<GtkWidget> {
        ckt_widget(builder, id)
    }

    private func on(_ button: UnsafeMutablePointer<GtkWidget>, _ body: @escaping @MainActor (CheckoutWindow) -> Void) {
        let action = Action { [weak self] in if let self { body(self) } }
        handlers.append(action)
        ckt_on_clicked(button, Action.callback, Unmanaged.passUnretained(action).toOpaque())
    }

    private func onActivate(
        _ entry: UnsafeMutablePointer<GtkWidget>, _ body: @escaping @MainActor (CheckoutWindow) -> Void
    ) {
        let action = Action { [weak self] in if let self { body(self) } }
        handlers.append(action)
        ckt_on_activate(entry, Action.callback, Unmanaged.passUnretained(action).toOpaque())
    }

    // MARK: - Paying

    /// While a payment runs: the pay buttons are insensitive and Enter in a card field does nothing.
    private var busy = false

    private func setBusy(_ busy: Bool) {
        self.busy = busy
        // GTK drops the focus of a button made insensitive; a keyboard buyer gets it back afterwards.
        let shop = GObjectReference(retaining: window)
        if busy { shop.keepFocus() }
        for id in ["pay-card", "pay-wallet", "hosted"] { ckt_set_sensitive(widget(id), busy ? 0 : 1) }
        if !busy { shop.restoreFocus() }
        if busy { show(Self.text["shop.paying"], count: false) }
    }

    private func show(_ text: String, count: Bool = true) {
        result = text
        ckt_set_text(widget("result"), text)
        // Hidden while empty: an empty label is read out by its class name ("GtkLabel").
        ckt_set_visible(widget("result"), text.isEmpty ? 0 : 1)
        if count { finished += 1 }
    }

    func payByCard() {
        guard !busy else { return }  // Enter in a field while paying: never a second payment
        let card = CardInput()
        card.fill(
            number: number, expiry: expiry, securityCode: securityCode,
            cardholderName: String(cString: ckt_text(widget("cardholder-name"))))
        let errors = widget("card-errors")
        let nameError = card.validationError(for: .cardholderName).map(PaymentErrorText.describe)
        let name = widget("cardholder-name")
        ckt_set_invalid(name, nameError == nil ? 0 : 1, nameError)
        guard card.showValidationErrors(number: number, expiry: expiry, securityCode: securityCode), nameError == nil
        else {
            // Focus on the first invalid field in reading order: a screen reader reads its name and,
            // as its description, what is wrong (GTK 4.8 has no announcement API).
            let fields: [(String?, UnsafeMutablePointer<GtkWidget>)] = [
                (nameError, name), (number.validationMessage, Self.gtk(number.widgetReference)),
                (expiry.validationMessage, Self.gtk(expiry.widgetReference)),
                (securityCode.validationMessage, Self.gtk(securityCode.widgetReference)),
            ]
            if let first = fields.first(where: { $0.0 != nil }) { ckt_grab_focus(first.1) }
            let messages = [
                nameError, number.validationMessage, expiry.validationMessage, securityCode.validationMessage,
            ]
            ckt_set_text(errors, messages.compactMap { $0 }.joined(separator: "\n"))
            ckt_set_visible(errors, 1)
            return show(Self.text["shop.checkCard"])
        }
        ckt_set_visible(errors, 0)
        let presenter = pagePresenter(headless: .answering(challengeCode: Sandbox.challengeCode))
        withNewPayment { kit, payment in
            let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
            kit.startCardPayment(request, card: card, from: presenter) { result in
                // The completion is @MainActor (delivered on the main queue): no assumeIsolated.
                if result.outcome == .succeeded { self.clearCardForm() }
                self.finish(Self.describe(result.outcome, result.error, how: "shop.paid.card"))
            }
        }
    }

    /// Pays `card` as "Pay by card" does, without the form (measure.sh's `--measure`); `done` gets the outcome.
    func pay(_ card: CardInput, done: @escaping @MainActor (PaymentOutcome) -> Void) {
        let presenter = pagePresenter(headless: .answering(challengeCode: Sandbox.challengeCode))
        withNewPayment { kit, payment in
            let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
            kit.startCardPayment(request, card: card, from: presenter) { result in
                self.finish(Self.describe(result.outcome, result.error, how: "shop.paid.card"))
                done(result.outcome)
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
                    case .failure(let failure): self.finish(Self.text.format("shop.createFailed", "\(failure)"))
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
        ckt_set_invalid(widget("cardholder-name"), 0, nil)
        number.clear()
        expiry.clear()
        securityCode.clear()
        ckt_set_visible(widget("card-errors"), 0)
    }

    func payWithWallet() {
        let text = Self.text
        let merchant = SimulatedMerchant(
            name: text["shop.name"], goods: Self.cart, currencyCode: Self.currency, initialMethod: Self.methods[0],
            couponLabel: { text.format("shop.coupon", $0) })
        merchant.setCoupon("SAVE10", .percentOff(10))
        var request = PaymentAuthorizationRequest(
            merchantIdentifier: "merchant.lv.egw-shop", countryCode: "LV", currencyCode: Self.currency,
            supportedNetworks: [.visa, .mastercard, .maestro], paymentSummaryItems: merchant.summaryItems)
        request.requiredShippingContactFields = [.postalAddress, .name]
        request.shippingMethods = Self.methods
        request.supportsCouponCode = true
        let sheet = PaymentSheetWindow(over: GObjectReference(retaining: window))
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
        else { return show(Self.text["shop.walletUnavailable"]) }
        setBusy(true)
        context.present { result in
            MainActor.assumeIsolated {
                self.finish(
                    Self.describe(result.outcome, result.payment?.error, how: "shop.paid.wallet", total: result.total))
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
                self.finish(Self.describe(result.outcome, result.error, how: "shop.paid.hosted"))
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
                host: .window(over: GObjectReference(retaining: window)),
                trust: PageTrust(configuration: configuration), buyer: buyer,
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

    /// The one line the buyer reads about a result; `paid` is the key of the success line
    /// (`shop.paid.card`, `.wallet`, `.hosted`).
    static func describe(
        _ outcome: PaymentOutcome, _ error: NSError?, how paid: String, total: Decimal = total
    )
        -> String
    {
        switch outcome {
        case .succeeded: text.format(paid, money(total))
        case .failed: text.format("shop.failed", error.map(PaymentErrorText.describe) ?? text["shop.failed.unknown"])
        case .cancelled: text["shop.cancelled"]
        case .unresolved: text["shop.unresolved"]
        }
    }

    static let methods = [
        ShippingMethod(
            identifier: "standard", label: text["shop.shipping.standard"], amount: 0,
            detail: text["shop.shipping.standard.detail"]),
        ShippingMethod(
            identifier: "express", label: text["shop.shipping.express"], amount: Decimal(string: "4.99")!,
            detail: text["shop.shipping.express.detail"]),
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

/// The embedded sandbox, started on a thread of its own: `CheckoutMain` makes one before the window and
/// calls ``begin()`` once the window's first frame is drawn, so that generating its RSA key neither delays
/// that frame nor competes with it for the CPU.
public final class SandboxStart: Sendable {
    private let started = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<Sandbox, any Error>?>(nil)
    private let begun = Mutex(false)
    private let seed = UInt64(Date().timeIntervalSince1970)

    /// A sandbox not started yet (``begin()`` or ``wait()`` starts it).
    public init() {}

    /// Starts the sandbox on a new thread; later calls do nothing.
    public func begin() {
        guard
            begun.withLock({ begun in
                defer { begun = true }; return !begun
            })
        else { return }
        let seed = seed
        Thread.detachNewThread {
            let outcome = Result<Sandbox, any Error> { try Sandbox(configuration: .init(seed: seed)) }
            self.result.withLock { $0 = outcome }
            self.started.signal()
        }
    }

    /// The sandbox, once started (starting it if needed; blocks until then); its start failure otherwise.
    /// Call it once.
    func wait() throws -> Sandbox {
        begin()
        started.wait()
        return try result.withLock { $0! }.get()
    }
}
