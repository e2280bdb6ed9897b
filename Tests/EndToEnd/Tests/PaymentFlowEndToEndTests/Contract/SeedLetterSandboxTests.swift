import Dispatch
import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentFlow
import Synchronization
import XCTest

/// The seeds' normative sentences about the card flow, one test each, against
/// the real loopback sandbox (real HTTP over libcurl, the headless browser as
/// the buyer), through the public API only. Each test quotes the sentence it
/// pins.
final class SeedLetterSandboxTests: XCTestCase {
    var sandbox: Sandbox { SharedSandbox.instance }

    override func setUp() { sandbox.clearFaults() }
    override func tearDown() { sandbox.clearFaults() }

    func cardRequest(_ payment: SandboxPayment) -> CardPaymentRequest {
        CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
    }

    func hostedRequest(_ payment: SandboxPayment) -> PaymentRequest {
        PaymentRequest(
            paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: payment.checkoutURL,
            returnURL: payment.shopRedirectURL)
    }

    /// Pays `card` for `payment` (a fresh one by default) on `kit` and checks the callback contract.
    func payByCard(
        _ card: CardInput, kit: PaymentKit, payment: SandboxPayment? = nil,
        script: BuyerScript = .answering(challengeCode: "1234"), file: StaticString = #filePath, line: UInt = #line
    ) throws -> PaymentResult {
        let payment = payment ?? sandbox.createPayment()
        let presenter = browser(script)
        let request = cardRequest(payment)
        let result = ContractHarness.run(self, pageGone: { !presenter.isPresenting }, file: file, line: line) {
            completion in
            kit.startCardPayment(request, card: card, from: presenter, completion: completion)
        }
        return try XCTUnwrap(result, file: file, line: line)
    }

    // MARK: 1. One payment at a time, while a card payment runs

    /// Seed 000 (PaymentKit): "Vienlaikus izpilda tikai vienu maksājumu; uzsākot otru, kamēr pirmais ir
    /// ekrānā, otrs nekavējoties tiek pabeigts kā `.failed` ar `invalidRequest` kļūdu."
    /// CONTRACT.md section 2: "the first is untouched."
    /// The first is a card payment held at its 3-D Secure challenge; the seconds are payments that would
    /// succeed alone. Each is refused, sends nothing, and the first then pays.
    func testASecondStartWhileACardPaymentRunsIsRefusedAndTheFirstStillPays() throws {
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration())
        let challengeShown = expectation(description: "challenge shown")
        challengeShown.assertForOverFulfill = false
        let heldAnswer = Mutex<(@Sendable (BuyerAction) -> Void)?>(nil)
        let presenter = browser(
            BuyerScript { page, respond in
                guard page.kind == .challenge else { return respond(.close) }
                heldAnswer.withLock { $0 = respond }
                challengeShown.fulfill()
            })
        let first = sandbox.createPayment()
        let firstCatcher = SeedLetterCatcher("first card payment", in: self)
        kit.startCardPayment(
            cardRequest(first), card: testCard("5555 5555 5555 4444"), from: presenter,
            completion: firstCatcher.deliver)
        firstCatcher.startDidReturn()
        wait(for: [challengeShown], timeout: 30)

        let mark = sandbox.lastSequence
        let cardSecond = sandbox.createPayment()
        let hostedSecond = sandbox.createPayment()
        let asyncSecond = sandbox.createPayment()
        let idle = StubPresenter { _ in [.close] }
        let refusedCard = SeedLetterCatcher("second card (completion)", in: self)
        kit.startCardPayment(
            cardRequest(cardSecond), card: testCard("4111 1111 1111 1111"), from: idle,
            completion: refusedCard.deliver)
        refusedCard.startDidReturn()
        let refusedHosted = SeedLetterCatcher("second hosted (delegate)", in: self)
        let delegate = StubDelegate(onResult: refusedHosted.deliver)
        kit.startPayment(hostedRequest(hostedSecond), from: idle, delegate: delegate)
        refusedHosted.startDidReturn()
        let refusedAsync = SeedLetterCatcher("second card (async)", in: self, checksCallbackQueue: false)
        let asyncRequest = cardRequest(asyncSecond)
        let deliverAsync = refusedAsync.deliver
        Task {
            deliverAsync(await kit.startCardPayment(asyncRequest, card: testCard("4111 1111 1111 1111"), from: idle))
        }
        wait(for: [refusedCard.arrived, refusedHosted.arrived, refusedAsync.arrived], timeout: 10)
        SeedLetterCatcher.drainMainQueue(self)
        withExtendedLifetime(delegate) {}

        XCTAssertTrue(firstCatcher.results.isEmpty, "the first payment is untouched")
        XCTAssertTrue(presenter.isPresenting, "the first payment's challenge is still shown")
        let seconds = [(refusedCard, cardSecond), (refusedHosted, hostedSecond), (refusedAsync, asyncSecond)]
        for (catcher, payment) in seconds {
            catcher.checkContract()
            let result = try XCTUnwrap(catcher.results.first, catcher.name)
            XCTAssertEqual(result.outcome, .failed, catcher.name)
            XCTAssertEqual(result.error?.paymentErrorCode, .invalidRequest, catcher.name)
            XCTAssertEqual(result.paymentId, payment.paymentId, catcher.name)
            XCTAssertEqual(
                sandbox.apiRequests(since: mark, payment: payment.paymentId).count, 0, "\(catcher.name): nothing sent")
            XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "INITIALIZED", catcher.name)
        }
        XCTAssertEqual(idle.snapshot.presents, 0, "no second payment showed a page")

        // The first goes on: the buyer answers the challenge, the payment settles.
        // Taken out, not copied: the kept answer holds the presenter, which holds the script that keeps it.
        let answer = heldAnswer.withLock { held in
            defer { held = nil }
            return held
        }
        answer?(.challenge(code: "1234"))
        wait(for: [firstCatcher.arrived], timeout: 30)
        SeedLetterCatcher.drainMainQueue(self)
        firstCatcher.checkContract()
        let result = try XCTUnwrap(firstCatcher.results.first)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertNil(result.error)
        XCTAssertNotNil(result.sessionId)
        XCTAssertFalse(presenter.isPresenting)
        XCTAssertEqual(sandbox.paymentStatus(first.paymentId), "SETTLED")
    }

    // MARK: 2. The card flow does not use apiBaseURL

    /// CONTRACT.md section 2 (Configuration): "`apiBaseURL` (merchant backend for hosted-checkout status
    /// lookup; unused by the card flow)".
    /// Seed 001 (Konfigurēt): "`apiBaseURL` — Jūsu aizmugursistēmai, mitinātā checkout maksājuma statusa
    /// uzmeklēšanai. Kartes forma to neizmanto."
    /// An `apiBaseURL` the configuration rules would refuse cannot fail a card payment.
    func testAMalformedAPIBaseURLDoesNotFailACardPayment() throws {
        for text in ["ftp://x", "merchant-api", "http://"] {
            var configuration = sandbox.sdkConfiguration()
            configuration.apiBaseURL = try XCTUnwrap(URL(string: text), text)
            XCTAssertNotNil(configuration.validationError(), "\(text) breaks the configuration rules")
            let kit = PaymentKit(configuration: configuration)
            let mark = sandbox.lastSequence
            let result = try payByCard(testCard("4111 1111 1111 1111"), kit: kit)
            XCTAssertEqual(result.outcome, .succeeded, "apiBaseURL \(text): \(result)")
            XCTAssertNil(result.error, "apiBaseURL \(text)")
            XCTAssertEqual(sandbox.paymentStatus(result.paymentId), "SETTLED", "apiBaseURL \(text)")
            XCTAssertFalse(
                sandbox.apiRequests(since: mark, payment: result.paymentId).contains { $0.endpoint == .statusLookup },
                "apiBaseURL \(text): the card flow made no status lookup")
        }
    }

    /// CONTRACT.md section 2 (Configuration): "`apiBaseURL` (...; unused by the card flow)" and "In `.live`
    /// every URL must be `https`; plain `http` is accepted only in `.sandbox`." — the URLs the card flow uses
    /// are `https` here; the one it does not use is `http`, which cannot fail it.
    /// The `https` checkout hosts are served by the sandbox through a transport that rewrites the host.
    func testAnHTTPAPIBaseURLInLiveDoesNotFailACardPayment() throws {
        let liveAPI = "https://checkout-api.seed-letter.test/gateway-api"
        let liveCheckout = "https://checkout.seed-letter.test/gateway-checkout"
        let transport = SeedLetterRewritingTransport([
            (liveAPI, sandbox.checkoutAPIBaseURL.absoluteString),
            (liveCheckout, sandbox.checkoutBaseURL.absoluteString),
        ])
        var configuration = Configuration(
            apiBaseURL: sandbox.apiBaseURL, checkoutAPIBaseURL: URL(string: liveAPI),
            checkoutBaseURL: URL(string: liveCheckout), environment: .live)
        configuration.requestTimeout = 5
        XCTAssertEqual(sandbox.apiBaseURL.scheme, "http")
        XCTAssertNotNil(configuration.validationError(), "an http apiBaseURL breaks the .live rule")
        let kit = PaymentKit(configuration: configuration, transport: transport)
        let result = try payByCard(testCard("4111 1111 1111 1111"), kit: kit)
        XCTAssertEqual(result.outcome, .succeeded, "\(result)")
        XCTAssertNil(result.error)
        XCTAssertEqual(sandbox.paymentStatus(result.paymentId), "SETTLED")
        let sent = transport.sent
        XCTAssertFalse(sent.isEmpty)
        XCTAssertTrue(
            sent.allSatisfy { $0.hasPrefix(liveAPI) || $0.hasPrefix(liveCheckout) },
            "the card flow talks to the checkout hosts only: \(sent)")
    }

    // MARK: 7. The delegate overload of startCardPayment

    /// CONTRACT.md section 2 (PaymentDelegate): "`paymentDidFinish(_ result: PaymentResult)` — exactly once,
    /// main queue, after the SDK UI is gone; held weakly."
    /// Seed 000 (PaymentDelegate): "Tiek izsaukts tieši vienu reizi, galvenajā pavedienā, pēc tam, kad SDK
    /// saskarne ir aizvērta. `PaymentKit` delegātu tur vājas norādes režīmā, tāpēc saglabājiet savu spēcīgo
    /// norādi."
    /// CONTRACT.md section 2 (callback contract): "The delegate is held weakly. If it is gone, the result is
    /// dropped, not retried."
    func testTheCardDelegateIsCalledOnceOnMainAndHeldWeakly() throws {
        // Alive: one call, on the main queue, after start returned and after the challenge page is gone.
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration())
        let payment = sandbox.createPayment()
        let presenter = browser(.answering(challengeCode: "1234"))
        var kept: [StubDelegate] = []
        let result = ContractHarness.run(self, pageGone: { !presenter.isPresenting }) { completion in
            let delegate = StubDelegate(onResult: completion)
            kept.append(delegate)
            kit.startCardPayment(
                cardRequest(payment), card: testCard("5555 5555 5555 4444"), from: presenter, delegate: delegate)
        }
        XCTAssertEqual(result?.outcome, .succeeded)
        XCTAssertEqual(kept.first?.results.withLock { $0.count }, 1)
        XCTAssertEqual(presenter.navigations.isEmpty, false, "the challenge was shown")

        // Gone: the kit did not keep the delegate alive, and the payment still ran to its end.
        let handedOver = expectation(description: "result handed to the callback queue")
        let observed = PaymentOptions(observer: { event in
            if case .finished = event { handedOver.fulfill() }
        })
        let kit2 = PaymentKit(configuration: sandbox.sdkConfiguration())
        let second = sandbox.createPayment()
        weak var weakDelegate: StubDelegate?
        do {
            let gone = StubDelegate(onResult: { _ in XCTFail("a released delegate was called") })
            weakDelegate = gone
            kit2.startCardPayment(
                cardRequest(second), card: testCard("4111 1111 1111 1111"), from: browser(.closeAtFirstPage),
                options: observed, delegate: gone)
        }
        XCTAssertNil(weakDelegate, "the kit holds the delegate weakly")
        wait(for: [handedOver], timeout: 30)
        SeedLetterCatcher.drainMainQueue(self)
        XCTAssertFalse(kit2.isPaymentInProgress, "the dropped result still ended the payment")
        XCTAssertEqual(sandbox.paymentStatus(second.paymentId), "SETTLED", "the payment was not abandoned")
    }

    // MARK: 8. Nothing on disk

    /// CONTRACT.md section 4.2: "the SDK never writes card data to disk or to a log."
    /// Seed 001 (warning): "Kartes numurs un drošības kods pastāv tikai `CardInput` un tajā parastā teksta
    /// versijā, ko SDK izveido tieši pirms šifrēšanas. SDK tos neieraksta ne diskā, ne žurnālā."
    /// The places a library writes to without being told (HOME, TMPDIR) stay empty through a frictionless and
    /// a challenged card payment.
    func testACardPaymentWritesNothingUnderHomeOrTmpdir() throws {
        _ = sandbox.apiBaseURL  // started before the environment changes
        let fileManager = FileManager.default
        let root = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("seed-letter-\(UUID().uuidString)", isDirectory: true)
        let home = root.appendingPathComponent("home", isDirectory: true)
        let tmp = root.appendingPathComponent("tmp", isDirectory: true)
        try fileManager.createDirectory(at: home, withIntermediateDirectories: true)
        try fileManager.createDirectory(at: tmp, withIntermediateDirectories: true)
        let saved: [(String, String?)] = ["HOME", "TMPDIR"].map { (name: String) in
            (name, getenv(name).map { String(cString: $0) })
        }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
            try? fileManager.removeItem(at: root)
        }
        setenv("HOME", home.path, 1)
        setenv("TMPDIR", tmp.path + "/", 1)
        XCTAssertEqual(String(cString: getenv("HOME")), home.path)
        XCTAssertTrue(NSTemporaryDirectory().hasPrefix(tmp.path), "TMPDIR is in effect: \(NSTemporaryDirectory())")

        let numbers = ["4111 1111 1111 1111", "5555 5555 5555 4444"]
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration())
        for number in numbers {
            let result = try payByCard(testCard(number, code: "837"), kit: kit)
            XCTAssertEqual(result.outcome, .succeeded, number)
        }

        for directory in [home, tmp] {
            let entries = Self.everything(under: directory)
            XCTAssertEqual(entries, [], "nothing written under \(directory.path)")
            for entry in entries {
                let bytes = (try? Data(contentsOf: entry)) ?? Data()
                let text = String(decoding: bytes, as: UTF8.self).filter(\.isNumber)
                for number in numbers {
                    XCTAssertFalse(
                        text.contains(number.filter(\.isNumber)), "card number in \(entry.path)")
                }
            }
        }
    }

    /// Every file and directory under `directory`, hidden ones included.
    static func everything(under directory: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        else { return [] }
        return enumerator.compactMap { $0 as? URL }
    }

    // MARK: 9. One payment, both flows

    /// CONTRACT.md section 2 (CardPaymentRequest): "The same `paymentId`/`verificationKey` may be paid by
    /// either flow."
    /// Seed 001 (Piedāvājot abas plūsmas): "Vienu maksājumu var veikt jebkurā no veidiem. ... pēc tam izsauc
    /// `startPayment` vai `startCardPayment` ar to pašu `paymentId` un `verificationKey`."
    /// Seed 002: "`.cancelled` attiecas arī uz gadījumiem, kad pircējs aizvēra norēķinu lapu."
    func testAPaymentWhoseHostedPageWasClosedIsThenPaidByCard() throws {
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration())
        let payment = sandbox.createPayment(orderNumber: "order-seed-letter")
        let closing = browser(.closeAtFirstPage)
        let hosted = ContractHarness.run(self, pageGone: { !closing.isPresenting }) { completion in
            kit.startPayment(hostedRequest(payment), from: closing, completion: completion)
        }
        XCTAssertEqual(hosted?.outcome, .cancelled)
        XCTAssertNil(hosted?.error)
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "INITIALIZED")

        let card = try payByCard(testCard("4111 1111 1111 1111"), kit: kit, payment: payment)
        XCTAssertEqual(card.outcome, .succeeded)
        XCTAssertEqual(card.paymentId, payment.paymentId)
        XCTAssertNil(card.error)
        XCTAssertNotNil(card.sessionId)
        XCTAssertNil(card.paymentStatus, "the card flow makes no status lookup")
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "SETTLED")
    }

    // MARK: 10. A custom resolver and the card flow

    /// CONTRACT.md section 2 (PaymentStatusResolving): "It replaces only the hosted-checkout lookup; the card
    /// flow has none."
    /// Seed 002: "Tas aizstāj tikai hostēta norēķinu risinājuma statusa meklēšanu; kartes plūsmā tādas nav."
    /// The resolver answers `FAILED`, so a call would also show in the outcomes; it is counted directly.
    func testACustomResolverIsNeverCalledByTheCardFlow() throws {
        let resolver = StubResolver(.answer("FAILED", "order-from-resolver"))
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration(), statusResolver: resolver)
        let cards: [(String, BuyerScript, PaymentOutcome)] = [
            ("4111 1111 1111 1111", .answering(challengeCode: "1234"), .succeeded),  // frictionless
            ("5555 5555 5555 4444", .answering(challengeCode: "1234"), .succeeded),  // challenge
            ("5555 5555 5555 4444", .closeAtFirstPage, .cancelled),  // challenge closed
            ("4000 0000 0000 0002", .answering(challengeCode: "1234"), .failed),  // declined
        ]
        for (number, script, outcome) in cards {
            let result = try payByCard(testCard(number), kit: kit, script: script)
            XCTAssertEqual(result.outcome, outcome, number)
            XCTAssertNil(result.paymentStatus, number)
            XCTAssertNil(result.orderNumber, number)
            XCTAssertEqual(resolver.callCount, 0, "\(number): the card flow called the resolver")
        }

        // The same kit's hosted flow does call it: the count is live.
        let payment = sandbox.createPayment()
        let closing = browser(.closeAtFirstPage)
        let hosted = ContractHarness.run(self, pageGone: { !closing.isPresenting }) { completion in
            kit.startPayment(hostedRequest(payment), from: closing, completion: completion)
        }
        XCTAssertEqual(hosted?.paymentStatus, "FAILED")
        XCTAssertEqual(resolver.callCount, 1)
    }
}

/// Sends each request to the real libcurl transport after replacing the first matching URL prefix, and
/// records the URLs the SDK asked for: the sandbox standing in for `https` gateway hosts.
final class SeedLetterRewritingTransport: HTTPTransport {
    private let base = CurlTransport()
    private let prefixes: [(from: String, to: String)]
    private let asked = Mutex<[String]>([])

    init(_ prefixes: [(from: String, to: String)]) { self.prefixes = prefixes }

    var sent: [String] { asked.withLock { $0 } }

    func send(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void) {
        let text = request.url.absoluteString
        asked.withLock { $0.append(text) }
        var rewritten = request
        if let (from, to) = prefixes.first(where: { text.hasPrefix($0.from) }),
            let url = URL(string: to + text.dropFirst(from.count))
        {
            rewritten.url = url
        }
        base.send(rewritten, completion: completion)
    }
}
