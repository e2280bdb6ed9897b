import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentFlow
import Synchronization
import WebKitPresenter
import XCTest

/// The sandbox's JavaScript dialect (`pages: .js`): WebKit completes the script-built challenge
/// (input and button made by script, code checked with fetch, cres form made and submitted by
/// script) and the fetch-driven hosted checkout; the headless browser reports the same pages as
/// needing JavaScript and the run ends by the contract. Endings checked against the sandbox.
final class ScriptPagesTests: WebKitTestCase {
    static let scripted: Sandbox = {
        var configuration = Sandbox.Configuration(seed: 22)
        configuration.pages = .js
        do {
            return try Sandbox(configuration: configuration)
        } catch {
            fatalError("the sandbox did not start: \(error)")
        }
    }()

    override var sandbox: Sandbox { Self.scripted }

    func webKit(_ script: WebBuyer, events: EventLog = EventLog()) -> WebKitPagePresenter {
        WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(configuration: sandbox.sdkConfiguration()), buyer: script,
            onEvent: events.record)
    }

    func payCard(
        _ number: String, presenter: any PaymentPresenter & AnyObject, gone: @escaping @Sendable () -> Bool
    )
        throws -> (PaymentResult, [String], String?)
    {
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration())
        let payment = sandbox.createPayment()
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        let result = try runPayment(pageGone: gone) { completion in
            kit.startCardPayment(request, card: testCard(number), from: presenter, completion: completion)
        }
        return (
            result, sandbox.cardSessions(paymentId: payment.paymentId).map(\.status),
            sandbox.paymentStatus(payment.paymentId)
        )
    }

    func payHosted(
        presenter: any PaymentPresenter & AnyObject, gone: @escaping @Sendable () -> Bool
    ) throws
        -> (PaymentResult, String?)
    {
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration())
        let payment = sandbox.createPayment()
        let request = PaymentRequest(
            paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: payment.checkoutURL,
            returnURL: payment.shopRedirectURL)
        let result = try runPayment(pageGone: gone) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
        }
        return (result, sandbox.paymentStatus(payment.paymentId))
    }

    func testServedPagesHoldNoForm() throws {
        let payment = sandbox.createPayment()
        final class Body: Sendable { let bytes = Mutex<[UInt8]?>(nil) }
        let body = Body()
        CurlTransport().send(PaymentFlow.HTTPRequest(method: "GET", url: payment.checkoutURL, timeout: 5)) { result in
            let bytes = (try? result.get())?.body ?? []
            DispatchQueue.main.async { body.bytes.withLock { $0 = bytes } }  // wakes the GLib loop
        }
        XCTAssertTrue(GTKMainLoop.run(timeout: .seconds(10)) { body.bytes.withLock { $0 != nil } })
        let html = String(decoding: body.bytes.withLock { $0 } ?? [], as: UTF8.self)
        XCTAssertTrue(html.contains("<script>"))
        XCTAssertFalse(html.contains("<form"))
        XCTAssertFalse(html.contains("<button"))
        XCTAssertTrue(LoadedPage(url: payment.checkoutURL, status: 200, html: html).needsJavaScript)
    }

    func testWebKitCompletesTheScriptedChallenge() throws {
        let events = EventLog()
        let presenter = webKit(.answering(challengeCode: "1234"), events: events)
        let (result, sessions, status) = try payCard("5555 5555 5555 4444", presenter: presenter) {
            !presenter.isPresenting
        }
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(sessions, ["COMPLETED"])
        XCTAssertEqual(status, "SETTLED")
        XCTAssertTrue(events.all.contains(.buyerActed("enterCode(••••)")), "\(events.all)")
    }

    func testWebKitWrongCodeOnTheScriptedChallenge() throws {
        let presenter = webKit(.answering(challengeCode: "9999"))
        let (result, sessions, status) = try payCard("5555 5555 5555 4444", presenter: presenter) {
            !presenter.isPresenting
        }
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertEqual(result.error?.paymentErrorCode, .authenticationFailed)
        XCTAssertEqual(sessions, ["FAILED"])
        XCTAssertNotEqual(status, "SETTLED")
    }

    func testWebKitPaysAndCancelsTheScriptedCheckout() throws {
        for (choice, outcome, recorded) in [
            (HostedChoice.pay, PaymentOutcome.succeeded, "SETTLED"), (.cancel, .cancelled, "CANCELLED"),
        ] {
            let presenter = webKit(.answering(hosted: choice))
            let (result, status) = try payHosted(presenter: presenter) { !presenter.isPresenting }
            XCTAssertEqual(status, recorded, "\(choice)")
            XCTAssertEqual(result.outcome, outcome, "\(choice)")
            XCTAssertEqual(result.paymentStatus, recorded, "\(choice)")
        }
    }

    func testHeadlessBrowserSeesAChallengeThatNeedsJavaScript() throws {
        let pages = PageLog()
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { page, respond in
                pages.record(page)
                BuyerScript.answering(challengeCode: "1234").decide(page, respond)
            }, options: .init(pageTimeout: 5))
        let (result, sessions, status) = try payCard("5555 5555 5555 4444", presenter: presenter) {
            !presenter.isPresenting
        }
        XCTAssertEqual(pages.all.map(\.needsJavaScript), [true])
        XCTAssertEqual(result.outcome, .cancelled, "dismissed, challenge-result CHALLENGE_NOT_COMPLETED")
        XCTAssertEqual(sessions, ["CHALLENGE_REQUIRED"])
        XCTAssertNotEqual(status, "SETTLED")
    }

    func testHeadlessBrowserCannotPayTheScriptedCheckout() throws {
        let presenter = HeadlessBrowserPresenter(script: .answering(hosted: .pay), options: .init(pageTimeout: 5))
        let (result, status) = try payHosted(presenter: presenter) { !presenter.isPresenting }
        XCTAssertEqual(status, "INITIALIZED")
        XCTAssertEqual(result.outcome, .cancelled)
    }
}

final class PageLog: Sendable {
    private let pages = Mutex<[LoadedPage]>([])
    func record(_ page: LoadedPage) { pages.withLock { $0.append(page) } }
    var all: [LoadedPage] { pages.withLock { $0 } }
}
