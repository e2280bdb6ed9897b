#if canImport(GatewaySandbox)
import Foundation
import GatewaySandbox
import JWE
import LoopbackTestServer
import PaymentFlow
import Testing

@testable import HeadlessBrowser

/// The headless browser over libcurl against the real sandbox pages: the
/// hosted checkout and the issuer's challenge, as a buyer would drive them.
/// Expected statuses and the challenge card and code come from GATEWAY.md
/// (the hosted-page table and the test-card table), not from the sandbox code.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct SandboxBrowserTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// GATEWAY.md: pay / decline / cancel / abandon / leave-pending record
    /// SETTLED, FAILED, CANCELLED, ABANDONED, SENT_FOR_PROCESSING.
    static let expectedStatus: [HostedChoice: String] = [
        .pay: "SETTLED", .decline: "FAILED", .cancel: "CANCELLED", .abandon: "ABANDONED",
        .pending: "SENT_FOR_PROCESSING",
    ]

    @Test(arguments: HostedChoice.allCases)
    func hostedChoiceReachesTheShopWithItsStatus(choice: HostedChoice) async throws {
        let payment = sandbox.createPayment()
        let shop = payment.shopRedirectURL
        let handler = RecordingHandler { url in
            url.host == shop.host && url.port == shop.port && url.path == shop.path ? .cancel : .allow
        }
        let presenter = HeadlessBrowserPresenter(script: .answering(hosted: choice))
        #expect(
            await presenter.present(PageRequest(url: payment.checkoutURL, purpose: .hostedCheckout), handler: handler))
        await handler.log.wait { $0.contains(.decide(shop.absoluteString)) }
        await presenter.dismiss()

        #expect(sandbox.paymentStatus(payment.paymentId) == Self.expectedStatus[choice])
        #expect(
            handler.events == [
                .decide(payment.checkoutURL.absoluteString), .finished(payment.checkoutURL.absoluteString),
                .decide(payment.checkoutURL.absoluteString), .decide(shop.absoluteString),
            ])
        #expect(presenter.currentPage?.kind == .hostedCheckout)
    }

    @Test func methodHintIsCarriedByTheHiddenField() async throws {
        let payment = sandbox.createPayment()
        let hinted = try #require(URL(string: payment.checkoutURL.absoluteString + "?method=bank"))
        let pages = EventLog<LoadedPage>()
        let presenter = HeadlessBrowserPresenter(
            script: .always(.hosted(.pay)),
            onEvent: { event in
                if case .loaded(let page) = event { pages.append(page) }
            })
        let handler = RecordingHandler(cancelPathPrefix: payment.shopRedirectURL.path)
        _ = await presenter.present(PageRequest(url: hinted, purpose: .hostedCheckout), handler: handler)
        await handler.log.wait { $0.contains(.decide(payment.shopRedirectURL.absoluteString)) }
        await presenter.dismiss()
        let page = try #require(pages.items.first)
        #expect(page.meta["egw-method"] == "bank")
        #expect(page.forms.first?.field("method") == HTMLForm.Field(name: "method", value: "bank", type: "hidden"))
        #expect(sandbox.paymentStatus(payment.paymentId) == "SETTLED")
    }

    @Test func closingTheHostedPageLeavesThePaymentOpen() async {
        let payment = sandbox.createPayment()
        let presenter = HeadlessBrowserPresenter(script: .closeAtFirstPage)
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: payment.checkoutURL, purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        #expect(handler.events.last == .closed)
        #expect(sandbox.paymentStatus(payment.paymentId) == "INITIALIZED")
    }

    @Test func aPageServedWithAnErrorStatusFailsTheLoad() async {
        sandbox.inject(SandboxFault(endpoint: .hostedPage, kind: .status(503)))
        defer { sandbox.clearFaults() }
        let payment = sandbox.createPayment()
        let presenter = HeadlessBrowserPresenter(script: .always(.hosted(.pay)))
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: payment.checkoutURL, purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        #expect(handler.events.last == .failed(payment.checkoutURL.absoluteString, "HTTP 503"))
    }

    @Test func aDroppedConnectionFailsTheLoad() async throws {
        sandbox.inject(SandboxFault(endpoint: .hostedPage, kind: .dropConnection))
        defer { sandbox.clearFaults() }
        let payment = sandbox.createPayment()
        let presenter = HeadlessBrowserPresenter(script: .always(.hosted(.pay)))
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: payment.checkoutURL, purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        guard case .failed(_, let reason) = try #require(handler.events.last) else {
            Issue.record("expected a load failure, got \(handler.events)")
            return
        }
        #expect(reason.hasPrefix("reset:"))
    }

    /// GATEWAY.md test cards: 5555 5555 5555 4444 asks for a challenge;
    /// code 1234 completes it, any other code fails it.
    @Test(arguments: [("1234", "COMPLETED"), ("0000", "FAILED")])
    func challengeIsAnsweredAndHandedBackWithoutJavaScript(code: String, expected: String) async throws {
        let payment = sandbox.createPayment()
        let api = SandboxCardAPI(sandbox: sandbox, payment: payment)
        let session = try await api.startChallenge(cardNumber: "5555555555554444")
        let notification = sandbox.checkoutBaseURL.appendingPathComponent("checkout/3ds/notification/\(session.id)")

        let pages = EventLog<String>()
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { page, respond in
                pages.append(page.kind.marker)
                respond(page.kind == .challenge ? .challenge(code: code) : .wait)
            })
        let handler = RecordingHandler { $0 == notification ? .cancel : .allow }
        let request = PageRequest(url: session.acsURL, formFields: [("creq", session.creq)], purpose: .challenge)
        #expect(await presenter.present(request, handler: handler))
        await handler.log.wait { $0.contains(.decide(notification.absoluteString)) }
        await presenter.dismiss()

        // The buyer was asked once (the challenge); the hand-back page submitted itself.
        #expect(pages.items == ["acs-challenge"])
        #expect(presenter.navigations.last == notification)
        #expect(presenter.currentPage?.kind == .challengeComplete)
        #expect(try await api.challengeResult(sessionID: session.id) == expected)
    }
}

/// Just enough of the card-session API to reach a challenge, over
/// `CurlTransport` (GATEWAY.md "Card sessions").
struct SandboxCardAPI {
    struct Challenge {
        var id: String
        var acsURL: URL
        var creq: String
    }

    let sandbox: Sandbox
    let payment: SandboxPayment
    let transport = CurlTransport()

    private var sessionsURL: URL {
        sandbox.checkoutAPIBaseURL.appendingPathComponent(
            "checkout/api/egw/v1/payments/\(payment.paymentId)/card-sessions")
    }

    private func json(_ method: String, _ url: URL, _ body: Any?) async throws -> [String: Any] {
        var headers = [
            HTTPHeader("Obp-Verification-Key", payment.verificationKey), HTTPHeader("Accept", "application/json"),
        ]
        var bytes: [UInt8]?
        if let body {
            headers.append(HTTPHeader("Content-Type", "application/json"))
            bytes = Array(try JSONSerialization.data(withJSONObject: body))
        }
        let response = try await send(
            HTTPRequest(method: method, url: url, headers: headers, body: bytes), over: transport
        ).get()
        let object = try JSONSerialization.jsonObject(with: Data(response.body))
        return try #require(object as? [String: Any], "HTTP \(response.status)")
    }

    func startChallenge(cardNumber: String) async throws -> Challenge {
        let jwks = try await json(
            "GET", sandbox.checkoutBaseURL.appendingPathComponent("checkout/.well-known/jwks.json"), nil)
        let keys = try #require(jwks["keys"] as? [[String: Any]])
        let jwk = try #require(keys.first)
        let key = try RSAPublicKey(
            jwk: String(decoding: try JSONSerialization.data(withJSONObject: jwk), as: UTF8.self))
        let card = """
            {"cardholderName":"Test Buyer","cardNumber":"\(cardNumber)","expiryMonth":"12","expiryYear":"39","securityCode":"123"}
            """
        let encrypted = try JWEEncrypter(recipient: key).encrypt(Array(card.utf8))
        let created = try await json("POST", sessionsURL, ["encryptedCard": encrypted])
        let id = try #require(created["sessionId"] as? String)
        let notification = sandbox.checkoutBaseURL.appendingPathComponent("checkout/3ds/notification/\(id)")
        let authentication = try await json(
            "POST", sessionsURL.appendingPathComponent("\(id)/authentication"),
            [
                "notificationUrl": notification.absoluteString,
                "browser": [
                    "userAgent": CurlTransport.defaultUserAgent, "acceptHeader": "text/html", "language": "en-GB",
                    "timeZoneOffsetMinutes": 0,
                ] as [String: Any],
            ])
        #expect(authentication["status"] as? String == "CHALLENGE_REQUIRED")
        let challenge = try #require(authentication["challenge"] as? [String: Any])
        let acsURL = try #require((challenge["acsUrl"] as? String).flatMap(URL.init(string:)))
        return Challenge(id: id, acsURL: acsURL, creq: try #require(challenge["creq"] as? String))
    }

    func challengeResult(sessionID: String) async throws -> String? {
        let result = try await json(
            "POST", sessionsURL.appendingPathComponent("\(sessionID)/challenge-result"), [String: Any]())
        return result["status"] as? String
    }
}
#endif
