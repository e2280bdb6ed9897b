import CCheckoutGtk4
import Foundation
import GatewaySandbox
import PaymentUITesting
import Synchronization
import WebKitPresenter
import XCTest

@testable import CheckoutApp

/// egw-checkout paying against its embedded sandbox, driven through the window: keys typed into the SDK's
/// entries, the shop's buttons and the sheet window's controls clicked; each test reads the result off
/// the window and checks the sandbox's record. Only GLib's main loop runs. Cart: 12.50 + 8.00 = 20.50 EUR.
/// Pages (the challenge, the hosted checkout) open in the WebKit window over the shop, where
/// `CheckoutWindow.sandboxBuyer` types into the rendered page.
final class CheckoutAppTests: XCTestCase {
    func testAFrictionlessCard() throws {
        let pages = PageEvents()
        try pay(number: "4111111111111111", expecting: "Paid €20.50 by card.", pages: pages)
        XCTAssertEqual(pages.presented, [], "no page for a frictionless card")
    }

    /// The Mastercard the sandbox's issuer challenges: its page opens in the WebKit window over the shop,
    /// where the scripted buyer types the code; the window is gone before the result shows.
    func testAChallengedCard() throws {
        let pages = PageEvents()
        try pay(number: "5555555555554444", expecting: "Paid €20.50 by card.", pages: pages)
        XCTAssertEqual(pages.presented.count, 1, "\(pages.all)")
        XCTAssertTrue(pages.all.contains(.buyerActed(PageAction.enterCode("").description)), "\(pages.all)")
        XCTAssertTrue(pages.all.contains { if case .painted = $0 { true } else { false } }, "WebKit drew the page")
        XCTAssertEqual(pages.all.last, .dismissed)
    }

    /// No scripted buyer: the challenge waits for the person in a window modal over the shop; its close
    /// button (the buyer walks away) cancels the payment, and nothing was settled.
    func testAPersonSeesTheChallengeOverTheShopAndClosesIt() throws {
        let pages = PageEvents()
        try MainActor.assumeIsolated {
            let shop = try CheckoutWindow(options: CheckoutOptions(), onPageEvent: pages.record)
            try payWithTheChallengedCard(shop)
            UITest.spin(timeout: 30) { pages.all.contains { if case .painted = $0 { true } else { false } } }
            UITest.spin(timeout: 1)  // nobody answers for the person
            XCTAssertEqual(shop.result, "Paying…")
            let page = try XCTUnwrap(pageWindow(over: shop.window), "the page's window, transient for the shop")
            XCTAssertNotEqual(gtk_window_get_modal(page), 0)
            gtk_window_close(page)
            UITest.spin(timeout: 30) { shop.finished == 1 }
            XCTAssertEqual(shop.result, "Payment cancelled.")
            let sandbox = try XCTUnwrap(shop.sandbox)
            XCTAssertNotEqual(sandbox.paymentStatus(try XCTUnwrap(shop.lastPaymentId)), "SETTLED")
            UITest.destroy(window: shop.window)
        }
        XCTAssertFalse(pages.all.contains { if case .buyerActed = $0 { true } else { false } })
        XCTAssertEqual(pages.all.last, .dismissed)
    }

    /// `--browser headless`: the same challenged card, played by the headless buyer, no WebKit window.
    func testAChallengedCardWithTheHeadlessBrowser() throws {
        var options = CheckoutOptions()
        options.browser = .headless
        let pages = PageEvents()
        try pay(number: "5555555555554444", expecting: "Paid €20.50 by card.", pages: pages, options: options)
        XCTAssertEqual(pages.all, [])
    }

    func testADeclinedCardSaysWhy() throws {
        try pay(number: "4000000000000002", expecting: nil)
    }

    func testAnExpiredCardNeverReachesTheNetwork() throws {
        let capture = try OutputCapture()
        let ran = Result {
            try MainActor.assumeIsolated {
                let shop = try CheckoutWindow(options: CheckoutOptions())
                shop.present()
                let sandbox = try XCTUnwrap(shop.sandbox)
                UITest.spin(timeout: 0.2)
                let logged = sandbox.requestLog.count
                UITest.type("Jane Doe", into: try entry(shop, "cardholder-name"))
                UITest.type("4111111111111111", into: UITest.pointer(shop.number.widgetReference))
                UITest.type("0120", into: UITest.pointer(shop.expiry.widgetReference))
                UITest.type("123", into: UITest.pointer(shop.securityCode.widgetReference))
                click(shop, "pay-card")
                UITest.spin { !shop.result.isEmpty }  // GtkButton's activate clicks after a short press
                XCTAssertEqual(shop.result, "Check the card details.")
                XCTAssertEqual(text(shop, "card-errors"), "The card has expired.")
                XCTAssertEqual(shop.expiry.validationMessage, "The card has expired.")
                XCTAssertNil(shop.number.validationMessage)
                XCTAssertEqual(sandbox.requestLog.count, logged, "no request was sent")
                UITest.destroy(window: shop.window)
            }
        }
        let output = try capture.finish()
        try ran.get()
        try assertNoCardData(in: output, "4111111111111111")
    }

    /// The wallet sheet, modal over the shop: contact, express shipping, SAVE10 (10 % of 20.50 = 2.05),
    /// Pay. 20.50 + 4.99 - 2.05 = 23.44 EUR.
    func testTheWalletSheet() throws {
        let capture = try OutputCapture()
        let ran = Result {
            try MainActor.assumeIsolated {
                let shop = try CheckoutWindow(options: CheckoutOptions())
                shop.present()
                UITest.spin(timeout: 0.2)
                click(shop, "pay-wallet")
                UITest.spin { shop.sheet != nil }
                let sheet = try XCTUnwrap(shop.sheet)
                try chooseContactExpressAndSAVE10(on: sheet)
                XCTAssertEqual(sheet.sheet?.total, Decimal(string: "23.44"))
                UITest.activate(try XCTUnwrap(UITest.find("pay", in: sheet.windowReference)))
                UITest.spin(timeout: 30) { shop.finished == 1 }
                XCTAssertEqual(shop.result, "Paid €23.44 with the wallet.")
                XCTAssertEqual(text(shop, "result"), "Paid €23.44 with the wallet.")
                XCTAssertFalse(sheet.isPresenting)
                UITest.destroy(window: shop.window)
            }
        }
        let output = try capture.finish()
        try ran.get()
        try assertNoCardData(in: output, "4111111111111111")
    }

    /// Issue 29: the wallet's card session is created but its answer is lost (every try), so the payment
    /// is in doubt. The sheet window says it is being confirmed, never "Payment failed", and closes; the
    /// shop's result line tells the buyer not to pay again.
    func testTheWalletsLostCreationIsShownAsBeingConfirmed() throws {
        try MainActor.assumeIsolated {
            let shop = try CheckoutWindow(options: CheckoutOptions())
            let sandbox = try XCTUnwrap(shop.sandbox)
            sandbox.inject(
                SandboxFault(
                    endpoint: .cardSessionCreate, kind: .dropConnection, schedule: .always, processesRequest: true))
            defer { sandbox.clearFaults() }
            shop.present()
            UITest.spin(timeout: 0.2)
            click(shop, "pay-wallet")
            UITest.spin { shop.sheet != nil }
            let sheet = try XCTUnwrap(shop.sheet)
            UITest.spin { sheet.sheet?.state == .ready }
            let before = sheet.sheet
            UITest.activate(try XCTUnwrap(UITest.find("contact-0", in: sheet.windowReference)))
            UITest.spin { sheet.sheet?.state == .ready && sheet.sheet?.selectedContact != before?.selectedContact }
            UITest.activate(try XCTUnwrap(UITest.find("pay", in: sheet.windowReference)))
            var shown: [String] = []
            UITest.spin(timeout: 60) {
                if let label = UITest.find("status", in: sheet.windowReference).map({ UITest.text(of: $0) }),
                    shown.last != label
                {
                    shown.append(label)
                }
                return shop.finished == 1
            }
            XCTAssertTrue(
                shown.contains(
                    "We are confirming your payment\nPlease do not pay again: the shop will confirm your payment."),
                "\(shown)")
            XCTAssertFalse(shown.contains { $0.contains("Payment failed") }, "\(shown)")
            XCTAssertFalse(sheet.isPresenting, "the sheet closed")
            XCTAssertEqual(
                shop.result, "We could not confirm the payment yet: the shop will check it. Do not pay again.")
            UITest.destroy(window: shop.window)
        }
    }

    /// The wallet's Mastercard, which the issuer challenges: the challenge opens in the WebKit window
    /// over the shop and the scripted buyer types the code.
    func testTheWalletsChallengedCard() throws {
        let pages = PageEvents()
        let capture = try OutputCapture()
        let ran = Result {
            try MainActor.assumeIsolated {
                let shop = try CheckoutWindow(
                    options: CheckoutOptions(), buyer: CheckoutWindow.sandboxBuyer, onPageEvent: pages.record)
                shop.present()
                UITest.spin(timeout: 0.2)
                click(shop, "pay-wallet")
                UITest.spin { shop.sheet != nil }
                let sheet = try XCTUnwrap(shop.sheet)
                try chooseContactExpressAndSAVE10(on: sheet)
                UITest.activate(try XCTUnwrap(UITest.find("card-1", in: sheet.windowReference)))
                UITest.spin { sheet.sheet?.state == .ready && sheet.sheet?.selectedCard == 1 }
                UITest.activate(try XCTUnwrap(UITest.find("pay", in: sheet.windowReference)))
                UITest.spin(timeout: 60) { shop.finished == 1 }
                XCTAssertEqual(shop.result, "Paid €23.44 with the wallet.")
                UITest.destroy(window: shop.window)
            }
        }
        let output = try capture.finish()
        try ran.get()
        try assertNoCardData(in: output, "5555555555554444")
        XCTAssertEqual(pages.presented.count, 1, "\(pages.all)")
        XCTAssertTrue(pages.all.contains(.buyerActed(PageAction.enterCode("").description)), "\(pages.all)")
        XCTAssertEqual(pages.all.last, .dismissed)
    }

    /// The hosted checkout in the WebKit window over the shop; the scripted buyer presses Pay there.
    func testHostedCheckout() throws {
        let pages = PageEvents()
        try MainActor.assumeIsolated {
            let shop = try CheckoutWindow(
                options: CheckoutOptions(), buyer: CheckoutWindow.sandboxBuyer, onPageEvent: pages.record)
            shop.present()
            click(shop, "hosted")
            UITest.spin(timeout: 60) { shop.finished == 1 }
            XCTAssertEqual(shop.result, "Paid €20.50 on the hosted page.")
            XCTAssertEqual(text(shop, "result"), shop.result)
            let sandbox = try XCTUnwrap(shop.sandbox)
            XCTAssertEqual(sandbox.paymentStatus(try XCTUnwrap(shop.lastPaymentId)), "SETTLED")
            UITest.destroy(window: shop.window)
        }
        XCTAssertEqual(pages.presented.count, 1, "\(pages.all)")
        XCTAssertTrue(
            pages.all.contains { if case .buyerActed(let action) = $0 { action.hasPrefix("press(") } else { false } })
        XCTAssertEqual(pages.all.last, .dismissed)
    }

    func testOptions() throws {
        XCTAssertEqual(try CheckoutOptions.parse([]), CheckoutOptions())
        XCTAssertNil(try CheckoutOptions.parse(["--help"]))
        var remote = CheckoutOptions()
        remote.sandbox = false
        remote.checkoutAPIBaseURL = URL(string: "https://api.example.com")
        remote.checkoutBaseURL = URL(string: "https://checkout.example.com")
        remote.merchantBaseURL = URL(string: "https://shop.example.com")
        XCTAssertEqual(
            try CheckoutOptions.parse([
                "--no-sandbox", "--checkout-api-base-url", "https://api.example.com", "--checkout-base-url",
                "https://checkout.example.com", "--merchant-base-url", "https://shop.example.com",
            ]), remote)
        XCTAssertThrowsError(try CheckoutOptions.parse(["--no-sandbox"]))
        XCTAssertThrowsError(try CheckoutOptions.parse(["--api-base-url", "ftp://x"]))
        XCTAssertThrowsError(try CheckoutOptions.parse(["--what"]))
        XCTAssertEqual(try CheckoutOptions.parse(["--browser", "headless"])?.browser, .headless)
        XCTAssertEqual(try CheckoutOptions.parse(["--browser", "webkit"])?.browser, .webkit)
        XCTAssertThrowsError(try CheckoutOptions.parse(["--browser", "lynx"]))
        XCTAssertEqual(try CheckoutOptions.parse(["--measure", "sheet"])?.measure, .sheet)
        XCTAssertEqual(try CheckoutOptions.parse(["--measure", "challenge"])?.measure, .challenge)
        XCTAssertEqual(try CheckoutOptions.parse(["--measure", "payments=100"])?.measure, .payments(100))
        XCTAssertThrowsError(try CheckoutOptions.parse(["--measure", "payments=9"]))
        XCTAssertThrowsError(try CheckoutOptions.parse(["--measure", "paint"]))
        let live = try CheckoutOptions.parse([
            "--no-sandbox", "--checkout-api-base-url", "https://api.example.com", "--checkout-base-url",
            "https://checkout.example.com", "--merchant-base-url", "https://shop.example.com", "--ca-file", "/ca.pem",
            "--pin", "api.example.com=sha256//a", "--pin", "api.example.com=sha256//b",
        ])
        XCTAssertEqual(live?.certificateAuthorityFile, "/ca.pem")
        XCTAssertEqual(live?.pinnedPublicKeys, ["api.example.com": ["sha256//a", "sha256//b"]])
        XCTAssertThrowsError(try CheckoutOptions.parse(["--ca-file", "/ca.pem"]), "trust options need --no-sandbox")
        XCTAssertThrowsError(try CheckoutOptions.parse(["--no-sandbox", "--pin", "=x"]))
    }

    /// Issue 34: `--no-sandbox` is live mode: the kit's `.live` rules (it kept `.sandbox`'s, `http`
    /// allowed), and the `--ca-file` trust for the headless presenter too (it loaded pages with the
    /// system's store and no pins). Against an HTTPS sandbox whose test CA only that file holds, a
    /// challenged card is paid through the window, the challenge page fetched over that trust; the
    /// same gateway over plain `http` is refused before any card session.
    func testLiveModeUsesLiveRulesAndTheConfiguredTrust() throws {
        var tls = Sandbox.Configuration()
        tls.tls = Sandbox.TLS()
        let sandbox = try Sandbox(configuration: tls)
        defer { sandbox.stop() }
        let authority = try XCTUnwrap(sandbox.tlsTrust?.certificateAuthorityFile)
        let arguments = [
            "--no-sandbox", "--api-base-url", sandbox.apiBaseURL.absoluteString, "--checkout-api-base-url",
            sandbox.checkoutAPIBaseURL.absoluteString, "--checkout-base-url", sandbox.checkoutBaseURL.absoluteString,
            "--merchant-base-url", sandbox.merchantBaseURL.absoluteString, "--ca-file", authority,
            "--browser", "headless",
        ]
        let options = try XCTUnwrap(CheckoutOptions.parse(arguments))
        XCTAssertEqual(options.certificateAuthorityFile, authority)
        let (result, paymentId, environment) = try MainActor.assumeIsolated {
            () throws -> (String, String?, String) in
            let shop = try CheckoutWindow(options: options)
            defer { UITest.destroy(window: shop.window) }
            XCTAssertEqual(shop.configuration.transportSecurity.certificateAuthorityFile, authority)
            try payWithTheChallengedCard(shop)
            UITest.spin(timeout: 60) { shop.finished == 1 }
            return (shop.result, shop.lastPaymentId, shop.configuration.environment.name)
        }
        XCTAssertEqual(environment, "live")
        XCTAssertEqual(result, "Paid €20.50 by card.")
        XCTAssertEqual(sandbox.paymentStatus(try XCTUnwrap(paymentId)), "SETTLED")

        // Live rules: the same gateway over plain http is a configuration the kit refuses.
        var plain = options
        plain.apiBaseURL = URL(string: "http://127.0.0.1:1/api")
        plain.checkoutAPIBaseURL = URL(string: "http://127.0.0.1:1/checkout-api")
        plain.checkoutBaseURL = URL(string: "http://127.0.0.1:1/checkout")
        XCTAssertNotNil(CheckoutWindow.liveConfiguration(plain).validationError(), "http in live mode")
    }

    /// The `.http` backend against the sandbox's real merchant endpoint (libcurl, EGWWire's JSON): a
    /// payment the sandbox then knows; an amount it refuses (so the body reached it) is an unusable
    /// answer; nothing listening is the transport's error.
    func testTheHTTPMerchantBackend() throws {
        let sandbox = try Sandbox()
        defer { sandbox.stop() }
        let created = try XCTUnwrap(create(.http(sandbox.merchantBaseURL), amount: 2050).get())
        XCTAssertEqual(sandbox.paymentStatus(created.paymentId), "INITIALIZED")
        XCTAssertFalse(created.verificationKey.isEmpty)
        XCTAssertEqual(created.checkoutURL.host, sandbox.checkoutBaseURL.host)
        XCTAssertTrue(created.checkoutURL.path.hasSuffix(created.paymentId), "\(created.checkoutURL)")
        XCTAssertEqual(created.returnURL.scheme, "http")

        guard case .failure(let refused) = create(.http(sandbox.merchantBaseURL), amount: 0) else {
            return XCTFail("the sandbox accepted an amount of 0")
        }
        XCTAssertEqual(refused.description, "unusable answer")

        guard case .failure(let unreachable) = create(.http(URL(string: "http://127.0.0.1:1")!), amount: 2050) else {
            return XCTFail("a payment created where nothing listens")
        }
        XCTAssertNotEqual(unreachable.description, "unusable answer")
        XCTAssertFalse(unreachable.description.isEmpty)

        let unusable: [String] = [
            "", "[]", #"{"paymentId":"p"}"#,
            #"{"paymentId":"p","paymentId":"q","verificationKey":"k","_links":{"checkoutRedirect":{"href":"http://x/"}},"shopRedirectUrl":"http://y/"}"#,
        ]
        for body in unusable {
            XCTAssertNil(MerchantBackend.created(from: Array(body.utf8)), body)
        }
        let whole =
            #"{"paymentId":"p","verificationKey":"k","_links":{"checkoutRedirect":{"href":"http://x/"}},"shopRedirectUrl":"http://y/"}"#
        XCTAssertEqual(MerchantBackend.created(from: Array(whole.utf8))?.paymentId, "p")
    }

    /// `backend.createPayment` in EUR, waited for (at most the backend's own timeout and a margin).
    private func create(_ backend: MerchantBackend, amount: Int) -> Result<CreatedPayment, MerchantBackend.Failure> {
        let answer = BackendAnswer()
        let done = DispatchSemaphore(value: 0)
        backend.createPayment(amount: amount, currency: "EUR") { result in
            answer.result.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + MerchantBackend.requestTimeout + 5) == .success,
            let result = answer.result.withLock({ $0 })
        else { return .failure(MerchantBackend.Failure(description: "no answer in time")) }
        return result
    }

    /// Types a card, clicks "Pay by card", waits for the one result; `expecting` nil: a failure whose
    /// text comes from the SDK's error table. Then scans what the process wrote and the clipboards.
    /// The sandbox must record it `SETTLED` exactly when it was paid.
    private func pay(
        number: String, expecting: String?, pages: PageEvents = PageEvents(), options: CheckoutOptions = .init(),
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let capture = try OutputCapture()
        let ran = Result {
            try MainActor.assumeIsolated { () throws -> [String] in
                let shop = try CheckoutWindow(
                    options: options, buyer: CheckoutWindow.sandboxBuyer, onPageEvent: pages.record)
                shop.present()
                UITest.spin(timeout: 0.2)
                UITest.type("Jane Doe", into: try entry(shop, "cardholder-name"))
                UITest.type(number, into: UITest.pointer(shop.number.widgetReference))
                UITest.type("1235", into: UITest.pointer(shop.expiry.widgetReference))
                UITest.type("987", into: UITest.pointer(shop.securityCode.widgetReference))
                click(shop, "pay-card")
                UITest.spin(timeout: 60) { shop.finished == 1 }
                let status = try XCTUnwrap(shop.sandbox).paymentStatus(try XCTUnwrap(shop.lastPaymentId))
                XCTAssertEqual(status == "SETTLED", expecting != nil, status ?? "no payment", file: file, line: line)
                if let expecting {
                    XCTAssertEqual(shop.result, expecting, file: file, line: line)
                    // (No digits in failure messages: they go to the output scanned below.)
                    XCTAssertTrue(shop.number.digits.isEmpty, "a paid card leaves the form", file: file, line: line)
                } else {
                    XCTAssertTrue(shop.result.hasPrefix("Payment failed: "), shop.result, file: file, line: line)
                    XCTAssertFalse(shop.result.contains("error."), "the table has the code", file: file, line: line)
                }
                XCTAssertEqual(text(shop, "result"), shop.result, file: file, line: line)
                let found = [false, true].compactMap { UITest.clipboard(of: shop.window, primary: $0) }
                UITest.destroy(window: shop.window)
                return found
            }
        }
        let output = try capture.finish()
        let clipboards = try ran.get()
        try assertNoCardData(in: output + clipboards.joined(separator: "\n"), number, file: file, line: line)
    }
}

private func assertNoCardData(
    in output: String, _ number: String, file: StaticString = #filePath, line: UInt = #line
) throws {
    XCTAssertFalse(output.isEmpty, "the capture works", file: file, line: line)
    let grouped = stride(from: 0, to: number.count, by: 4).map { offset in
        String(number.dropFirst(offset).prefix(4))
    }.joined(separator: " ")
    for secret in [number, grouped, String(number.prefix(8))] {
        XCTAssertFalse(output.contains(secret), "the process wrote card digits", file: file, line: line)
    }
    XCTAssertFalse(output.contains("987\n") || output.contains("\"987\""), "the security code", file: file, line: line)
}

/// What the WebKit presenter reported (on GTK's thread).
final class PageEvents: Sendable {
    private let events = Mutex<[WebKitPagePresenter.Event]>([])

    var all: [WebKitPagePresenter.Event] { events.withLock { $0 } }

    /// The first URL of each page shown.
    var presented: [URL] { all.compactMap { if case .presented(let url) = $0 { url } else { nil } } }

    func record(_ event: WebKitPagePresenter.Event) { events.withLock { $0.append(event) } }
}

/// The toplevel window transient for `parent` (the page's window over the shop).
@MainActor
private func pageWindow(over parent: UnsafeMutableRawPointer) -> UnsafeMutablePointer<GtkWindow>? {
    let toplevels = gtk_window_get_toplevels()
    for index in 0..<g_list_model_get_n_items(toplevels) {
        guard let object = g_list_model_get_item(toplevels, index) else { continue }
        defer { g_object_unref(object) }  // the list keeps its own reference
        let window = object.assumingMemoryBound(to: GtkWindow.self)
        if let transientFor = gtk_window_get_transient_for(window), UnsafeMutableRawPointer(transientFor) == parent {
            return window
        }
    }
    return nil
}

/// What a merchant backend call answered, set on the transport's thread.
private final class BackendAnswer: Sendable {
    let result = Mutex<Result<CreatedPayment, MerchantBackend.Failure>?>(nil)
}
