import Dispatch
import Foundation
import PaymentFlow
import Synchronization
import XCTest

/// The seeds' normative sentences, one test each, through the public API only
/// (stub transport and presenters, no gateway): the one-payment-at-a-time rule,
/// unusable card requests, and the hosted page URL. Each test quotes the
/// sentence it pins; the seeds are the Latvian iOS reference pages in
/// `shared/seeds/`, CONTRACT.md is their English statement.
final class SeedLetterTests: XCTestCase {
    let api = URL(string: "https://checkout-api.seed-letter.test/gateway-api")!
    let checkout = URL(string: "https://checkout.seed-letter.test/gateway-checkout")!
    let returnURL = URL(string: "myshop://return/p_first")!

    /// A transport that refuses every request and records it: any request it sees is a request the SDK
    /// made.
    func offlineTransport() -> StubTransport {
        StubTransport { _ in .failure(TransportError(.connect, "no network in this test")) }
    }

    /// A card every rule accepts (Visa test number, far-future expiry).
    func validCard() -> CardInput {
        CardInput(
            cardholderName: "Jane Doe", cardNumber: "4111 1111 1111 1111", expiryMonth: "12", expiryYear: "35",
            securityCode: "123")
    }

    /// A hosted request that would run: https page, absolute return URL.
    func hostedRequest(_ paymentId: String) -> PaymentRequest {
        PaymentRequest(
            paymentId: paymentId, verificationKey: "vk-\(paymentId)",
            checkoutURL: URL(string: "https://checkout.seed-letter.test/gateway-checkout/checkout/pay/\(paymentId)")!,
            returnURL: URL(string: "myshop://return/\(paymentId)")!)
    }

    // MARK: 1. One payment at a time

    /// What a second `start...` is: which flow, which request, and what it would give on an idle kit.
    enum SecondStart {
        case card(CardPaymentRequest, CardInput)
        case hosted(PaymentRequest)
    }

    /// How the second `start...` is called.
    enum Overload: String, CaseIterable {
        case completion, delegate, async
    }

    /// Starts `second` on `kit` through `overload` and returns what records its result.
    func start(
        _ second: SecondStart, _ overload: Overload, on kit: PaymentKit, presenter: StubPresenter, name: String,
        keep: inout [StubDelegate]
    ) -> SeedLetterCatcher {
        let catcher = SeedLetterCatcher(name, in: self, checksCallbackQueue: overload != .async)
        let deliver = catcher.deliver
        switch (second, overload) {
        case (.card(let request, let card), .completion):
            kit.startCardPayment(request, card: card, from: presenter, completion: deliver)
        case (.card(let request, let card), .delegate):
            let delegate = StubDelegate(onResult: deliver)
            keep.append(delegate)
            kit.startCardPayment(request, card: card, from: presenter, delegate: delegate)
        case (.card(let request, let card), .async):
            Task { deliver(await kit.startCardPayment(request, card: card, from: presenter)) }
        case (.hosted(let request), .completion):
            kit.startPayment(request, from: presenter, completion: deliver)
        case (.hosted(let request), .delegate):
            let delegate = StubDelegate(onResult: deliver)
            keep.append(delegate)
            kit.startPayment(request, from: presenter, delegate: delegate)
        case (.hosted(let request), .async):
            Task { deliver(await kit.startPayment(request, from: presenter)) }
        }
        catcher.startDidReturn()
        return catcher
    }

    /// Holds a hosted payment open on `kit`, starts every second in `seconds` through every overload,
    /// checks each is refused at once while the first is still open, then lets the first finish and
    /// checks it ended as it would have alone.
    func checkSecondsAreRefused(
        on kit: PaymentKit, transport: StubTransport, resolver: StubResolver,
        seconds: [(name: String, start: SecondStart, paymentId: String)], file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let loaded = expectation(description: "first page loaded")
        let presenter = SeedLetterHeldPresenter(loaded: loaded)
        let first = SeedLetterCatcher("first", in: self)
        kit.startPayment(hostedRequest("p_first"), from: presenter, completion: first.deliver)
        first.startDidReturn()
        wait(for: [loaded], timeout: 10)
        XCTAssertTrue(kit.isPaymentInProgress, "the first payment runs", file: file, line: line)

        var keep: [StubDelegate] = []
        var refused: [(SeedLetterCatcher, StubPresenter, String)] = []
        for second in seconds {
            for overload in Overload.allCases {
                let secondPresenter = StubPresenter { _ in [] }
                let catcher = start(
                    second.start, overload, on: kit, presenter: secondPresenter,
                    name: "\(second.name) via \(overload.rawValue)", keep: &keep)
                refused.append((catcher, secondPresenter, second.paymentId))
            }
        }
        // "At once": every second ends while the first still holds its page open.
        wait(for: refused.map(\.0.arrived), timeout: 10)
        SeedLetterCatcher.drainMainQueue(self)
        XCTAssertTrue(first.results.isEmpty, "the first payment is untouched", file: file, line: line)
        XCTAssertEqual(presenter.dismissCalls, 0, "the first page is still shown", file: file, line: line)
        XCTAssertTrue(kit.isPaymentInProgress, "the first payment still runs", file: file, line: line)
        for (catcher, secondPresenter, paymentId) in refused {
            catcher.checkContract(file: file, line: line)
            let result = try XCTUnwrap(catcher.results.first, catcher.name, file: file, line: line)
            XCTAssertEqual(result.outcome, .failed, catcher.name, file: file, line: line)
            XCTAssertEqual(result.error?.domain, "com.egw.egwpay", catcher.name, file: file, line: line)
            XCTAssertEqual(result.error?.paymentErrorCode, .invalidRequest, catcher.name, file: file, line: line)
            XCTAssertEqual(result.paymentId, paymentId, catcher.name, file: file, line: line)
            XCTAssertEqual(secondPresenter.snapshot.presents, 0, catcher.name, file: file, line: line)
        }

        // The first goes on as if nothing happened: the buyer reaches the return URL, the resolver says SETTLED.
        presenter.navigate(to: returnURL)
        wait(for: [first.arrived], timeout: 10)
        SeedLetterCatcher.drainMainQueue(self)
        first.checkContract(file: file, line: line)
        let result = try XCTUnwrap(first.results.first, file: file, line: line)
        XCTAssertEqual(result.outcome, .succeeded, file: file, line: line)
        XCTAssertEqual(result.paymentId, "p_first", file: file, line: line)
        XCTAssertEqual(result.paymentStatus, "SETTLED", file: file, line: line)
        XCTAssertNil(result.error, file: file, line: line)
        XCTAssertEqual(presenter.presents, 1, file: file, line: line)
        XCTAssertEqual(resolver.callCount, 1, "only the first payment was resolved", file: file, line: line)
        XCTAssertTrue(transport.requests.isEmpty, "no second made a request", file: file, line: line)
        XCTAssertFalse(kit.isPaymentInProgress, file: file, line: line)
    }

    /// Seed 000 (PaymentKit): "Vienlaikus izpilda tikai vienu maksājumu; uzsākot otru, kamēr pirmais ir
    /// ekrānā, otrs nekavējoties tiek pabeigts kā `.failed` ar `invalidRequest` kļūdu."
    /// CONTRACT.md section 2: "starting a second while the first is in progress completes the second at once
    /// as `.failed` with `invalidRequest`; the first is untouched."
    /// Here the kit has no `checkoutBaseURL`: alone, each card second would be `encryptionKeyUnavailable`.
    func testASecondStartIsInvalidRequestEvenWhenItWouldBeEncryptionKeyUnavailable() throws {
        let transport = offlineTransport()
        let resolver = StubResolver(.answer("SETTLED", "order-1"))
        let kit = PaymentKit(
            configuration: Configuration(checkoutAPIBaseURL: api, environment: .sandbox), statusResolver: resolver,
            transport: transport)
        let card = CardPaymentRequest(paymentId: "p_card", verificationKey: "vk-card")
        let unusable = PaymentRequest(
            paymentId: "p_hosted_ftp", verificationKey: "vk-ftp",
            checkoutURL: URL(string: "ftp://checkout.seed-letter.test/pay")!, returnURL: returnURL)
        try checkSecondsAreRefused(
            on: kit, transport: transport, resolver: resolver,
            seconds: [
                ("card, no checkoutBaseURL", .card(card, validCard()), "p_card"),
                ("card, no checkoutBaseURL and an invalid card", .card(card, SeedLetterCards.badLuhn()), "p_card"),
                ("hosted, valid", .hosted(hostedRequest("p_hosted")), "p_hosted"),
                ("hosted, ftp checkout URL", .hosted(unusable), "p_hosted_ftp"),
            ])
    }

    /// Seed 002 (Atpakaļsaukuma līgums): "Viens `PaymentKit` instance vienlaikus apstrādā vienu maksājumu.
    /// Sākot otru, kamēr pirmais vēl ir ekrānā, otrais tiek pabeigts uzreiz ar `.failed` ar `invalidRequest`
    /// kļūdu, nevis saliekot kopā divus norēķinus."
    /// Here the kit is complete but each card second carries an invalid card: alone it would be
    /// `cardValidationFailed`; while a payment runs it is `invalidRequest`.
    func testASecondStartIsInvalidRequestEvenWhenItWouldBeCardValidationFailed() throws {
        let transport = offlineTransport()
        let resolver = StubResolver(.answer("SETTLED", "order-1"))
        let kit = PaymentKit(
            configuration: Configuration(checkoutAPIBaseURL: api, checkoutBaseURL: checkout, environment: .sandbox),
            statusResolver: resolver, transport: transport)
        let card = CardPaymentRequest(paymentId: "p_card", verificationKey: "vk-card")
        try checkSecondsAreRefused(
            on: kit, transport: transport, resolver: resolver,
            seconds: [
                ("card, Luhn failure", .card(card, SeedLetterCards.badLuhn()), "p_card"),
                ("card, expired", .card(card, SeedLetterCards.expired()), "p_card"),
                ("card, no security code", .card(card, SeedLetterCards.noSecurityCode()), "p_card"),
                ("card, valid", .card(card, validCard()), "p_card"),
                (
                    "card, empty paymentId",
                    .card(CardPaymentRequest(paymentId: "", verificationKey: "vk"), validCard()), ""
                ),
                ("hosted, valid", .hosted(hostedRequest("p_hosted")), "p_hosted"),
            ])
    }

    // MARK: 3. Unusable card requests

    /// CONTRACT.md section 2 (callback contract): "Every terminal path goes through it: ... request unusable."
    /// and "The result is never delivered synchronously inside the `start...` call."
    /// CONTRACT.md section 2: "`startCardPayment` needs `checkoutAPIBaseURL` (missing: `.failed`,
    /// `invalidRequest`) and `checkoutBaseURL` (missing: `.failed`, `encryptionKeyUnavailable`)."
    /// Seed 000: "Trūkstošs `checkoutAPIBaseURL` neizdodas ar `invalidRequest`; trūkstošs `checkoutBaseURL`
    /// neizdodas ar `encryptionKeyUnavailable`."
    /// CONTRACT.md section 4.1: "Invalid data fails in the callback before any network request
    /// (`cardValidationFailed`, with the field and reason kept in `userInfo`): nothing reaches the network."
    /// Seed 001: "Nederīgi dati neiztur pārbaudi jūsu atpakaļizsaukumā pirms jebkura tīkla pieprasījuma,
    /// tāpēc līdz tīklam nekas nenonāk." (The `userInfo` part: the next test.)
    func testEveryUnusableCardRequestFailsOnceAsynchronouslyWithoutANetworkRequest() throws {
        let full = Configuration(checkoutAPIBaseURL: api, checkoutBaseURL: checkout, environment: .sandbox)
        var noCheckoutAPI = full
        noCheckoutAPI.checkoutAPIBaseURL = nil
        var noCheckout = full
        noCheckout.checkoutBaseURL = nil
        let usable = CardPaymentRequest(paymentId: "p_1", verificationKey: "vk-secret-1")
        let cases: [(String, Configuration, CardPaymentRequest, CardInput, PaymentError.Code)] = [
            (
                "empty paymentId", full, CardPaymentRequest(paymentId: "", verificationKey: "vk"), validCard(),
                .invalidRequest
            ),
            (
                "empty verificationKey", full, CardPaymentRequest(paymentId: "p_1", verificationKey: ""), validCard(),
                .invalidRequest
            ),
            (
                "line break in paymentId", full,
                CardPaymentRequest(paymentId: "p_1\nX-Evil: 1", verificationKey: "vk"), validCard(), .invalidRequest
            ),
            (
                "escape in verificationKey", full,
                CardPaymentRequest(paymentId: "p_1", verificationKey: "vk\u{1B}[31m"), validCard(), .invalidRequest
            ),
            (
                "NUL in verificationKey", full, CardPaymentRequest(paymentId: "p_1", verificationKey: "vk\u{0}"),
                validCard(), .invalidRequest
            ),
            ("no checkoutAPIBaseURL", noCheckoutAPI, usable, validCard(), .invalidRequest),
            ("no checkoutBaseURL", noCheckout, usable, validCard(), .encryptionKeyUnavailable),
            ("Luhn failure", full, usable, SeedLetterCards.badLuhn(), .cardValidationFailed),
            ("expired", full, usable, SeedLetterCards.expired(), .cardValidationFailed),
            ("no security code", full, usable, SeedLetterCards.noSecurityCode(), .cardValidationFailed),
            ("blank cardholder name", full, usable, SeedLetterCards.blankName(), .cardValidationFailed),
        ]
        for (name, configuration, request, card, code) in cases {
            let transport = offlineTransport()
            let presenter = StubPresenter { _ in [.close] }
            let kit = PaymentKit(configuration: configuration, transport: transport)
            let result = ContractHarness.run(self, timeout: 10) { completion in
                kit.startCardPayment(request, card: card, from: presenter, completion: completion)
            }
            let got = try XCTUnwrap(result, name)
            XCTAssertEqual(got.outcome, .failed, name)
            XCTAssertEqual(got.error?.domain, "com.egw.egwpay", name)
            XCTAssertEqual(got.error?.paymentErrorCode, code, name)
            XCTAssertEqual(got.paymentId, request.paymentId, name)
            XCTAssertNil(got.sessionId, "\(name): no session can exist")
            XCTAssertEqual(transport.requests.map(\.url), [], "\(name): nothing reaches the network")
            XCTAssertEqual(presenter.snapshot.presents, 0, "\(name): nothing is shown")
            XCTAssertFalse(kit.isPaymentInProgress, name)
        }
    }

    /// CONTRACT.md section 4.1: "Invalid data fails in the callback before any network request
    /// (`cardValidationFailed`, with the field and reason kept in `userInfo`): nothing reaches the network."
    /// The card model states its field and reason under `CardValidationIssue.fieldUserInfoKey` and
    /// `reasonUserInfoKey`; the payment's error (or its underlying error) keeps them, so an app can point at
    /// the field without parsing prose. The payment's error also carries the issue itself
    /// (`NSError.cardValidationIssue`).
    func testAnInvalidCardKeepsTheFieldAndReasonInUserInfo() throws {
        let configuration = Configuration(checkoutAPIBaseURL: api, checkoutBaseURL: checkout, environment: .sandbox)
        let request = CardPaymentRequest(paymentId: "p_1", verificationKey: "vk-secret-1")
        let cases: [(CardInput, CardField, CardValidationIssue.Reason)] = [
            (SeedLetterCards.badLuhn(), .cardNumber, .checksumFailed),
            (SeedLetterCards.expired(), .expiry, .expired),
            (SeedLetterCards.noSecurityCode(), .securityCode, .missing),
            (SeedLetterCards.blankName(), .cardholderName, .missing),
        ]
        for (card, field, reason) in cases {
            let name = "\(field) \(reason.rawValue)"
            XCTAssertEqual(card.firstIssue?.field, field, "\(name): the card model agrees")
            XCTAssertEqual(card.firstIssue?.reason, reason, "\(name): the card model agrees")
            let transport = offlineTransport()
            let kit = PaymentKit(configuration: configuration, transport: transport)
            let presenter = StubPresenter { _ in [] }
            let result = ContractHarness.run(self, timeout: 10) { completion in
                kit.startCardPayment(request, card: card, from: presenter, completion: completion)
            }
            let error = try XCTUnwrap(result?.error, name)
            XCTAssertEqual(error.paymentErrorCode, .cardValidationFailed, name)
            XCTAssertTrue(transport.requests.isEmpty, "\(name): nothing reaches the network")
            let keys = SeedLetterCards.keys(of: error)
            XCTAssertEqual(
                SeedLetterCards.userInfoValue(CardValidationIssue.fieldUserInfoKey, in: error) as? Int, field.rawValue,
                "\(name): the field is kept in userInfo; userInfo keys (error, then underlying): \(keys)")
            XCTAssertEqual(
                SeedLetterCards.userInfoValue(CardValidationIssue.reasonUserInfoKey, in: error) as? String,
                reason.rawValue,
                "\(name): the reason is kept in userInfo; userInfo keys (error, then underlying): \(keys)")
            // The issue itself, as a value, on the payment's own error.
            let issue = try XCTUnwrap(error.cardValidationIssue, "\(name): the typed issue; keys: \(keys)")
            XCTAssertEqual(issue.field, field, name)
            XCTAssertEqual(issue.reason, reason, name)
            XCTAssertEqual(issue, card.firstIssue, "\(name): the issue the card model found")
        }
    }

    // MARK: 4. The hosted page URL without a method hint

    /// CONTRACT.md section 3.2: "Present the checkout page (`checkoutURL`, with `preferredMethod` applied as the
    /// page expects it: add or replace one `method` query item and leave every other byte of the URL as it
    /// was)"; section 2: "`nil` shows the method picker; an unrecognised value is ignored."
    /// Seed 000 (PaymentRequest): "`nil` parāda maksājuma veida izvēlni. Neatpazīta vērtība tiek ignorēta."
    /// With nothing to apply, the page asked for is `checkoutURL` itself, byte for byte.
    func testTheHostedPageIsTheCheckoutURLByteForByteWhenNoMethodApplies() throws {
        let urls = [
            "https://checkout.seed-letter.test/pay/p_1?token=a%2Bb%2bc&note=a+b&item=1&item=2&item=1#section-2",
            "https://checkout.seed-letter.test/pay/p_1?method=bank&method=card&x=%20+%25#frag?with=query",
            "http://127.0.0.1:9/gateway-checkout/checkout/pay/p_1?&&empty=&flag&q=%E2%82%AC;semi#",
            "https://checkout.seed-letter.test:8443/pay/p%2F1/?a=1&A=2&a=1",
        ]
        let hints: [String?] = [nil, "crypto", "CARD", ""]
        for text in urls {
            let checkoutURL = try XCTUnwrap(URL(string: text), text)
            XCTAssertEqual(checkoutURL.absoluteString, text, "Foundation keeps the URL as written")
            for hint in hints {
                let label = "\(text) with preferredMethod \(hint.map { "\"\($0)\"" } ?? "nil")"
                let presenter = StubPresenter { _ in [.close] }
                let kit = PaymentKit(
                    configuration: Configuration(environment: .sandbox), transport: offlineTransport())
                var request = PaymentRequest(
                    paymentId: "p_1", verificationKey: "vk-1", checkoutURL: checkoutURL, returnURL: returnURL)
                request.preferredMethod = hint
                let result = ContractHarness.run(self, timeout: 10, pageGone: { presenter.pageGone }) { completion in
                    kit.startPayment(request, from: presenter, completion: completion)
                }
                XCTAssertEqual(result?.outcome, .cancelled, label)
                let page = try XCTUnwrap(presenter.snapshot.pages.first, label)
                XCTAssertEqual(presenter.snapshot.presents, 1, label)
                XCTAssertEqual(page.url.absoluteString, text, label)
                XCTAssertNil(page.formFields, "\(label): the page is a GET")
                XCTAssertEqual(page.purpose, .hostedCheckout, label)
            }
        }
    }
}

// MARK: - Support

/// Cards that fail one rule each (CardInput's rules, CONTRACT.md section 2).
enum SeedLetterCards {
    static func badLuhn() -> CardInput {
        CardInput(
            cardholderName: "Jane Doe", cardNumber: "4111 1111 1111 1112", expiryMonth: "12", expiryYear: "35",
            securityCode: "123")
    }

    /// Expires at the end of 12/35; the card's clock reads 1 January 2036 ("the clock must be injectable").
    static func expired() -> CardInput {
        let newYear2036 = Date(timeIntervalSince1970: 2_082_758_400)
        let clock = CardClock(timeZone: TimeZone(identifier: "UTC")!, now: { newYear2036 })
        return CardInput(
            cardholderName: "Jane Doe", cardNumber: "4111 1111 1111 1111", expiryMonth: "12", expiryYear: "35",
            securityCode: "123", clock: clock)
    }

    static func noSecurityCode() -> CardInput {
        CardInput(
            cardholderName: "Jane Doe", cardNumber: "4111 1111 1111 1111", expiryMonth: "12", expiryYear: "35",
            securityCode: "")
    }

    static func blankName() -> CardInput {
        CardInput(
            cardholderName: "   ", cardNumber: "4111 1111 1111 1111", expiryMonth: "12", expiryYear: "35",
            securityCode: "123")
    }

    /// `key` in `error`'s userInfo or in that of its underlying errors.
    static func userInfoValue(_ key: String, in error: NSError?) -> Any? {
        guard let error else { return nil }
        if let value = error.userInfo[key] { return value }
        return userInfoValue(key, in: error.userInfo[NSUnderlyingErrorKey] as? NSError)
    }

    /// The userInfo keys of `error` and its underlying errors, for failure messages.
    static func keys(of error: NSError?) -> [String] {
        guard let error else { return [] }
        return error.userInfo.keys.sorted() + keys(of: error.userInfo[NSUnderlyingErrorKey] as? NSError)
    }
}
