import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentFlow
import WebKitPresenter
import XCTest

/// The hosted checkout rendered by WebKit; the buyer presses the page's buttons. Expected endings:
/// GATEWAY.md's hosted choices mapped by CONTRACT.md's status table, and the sandbox's record.
final class WebKitHostedTests: WebKitTestCase {
    /// Pays and returns the result, the sandbox's status, and whether the return URL was ever requested.
    func pay(
        _ script: WebBuyer, events: EventLog = EventLog(), file: StaticString = #filePath, line: UInt = #line
    )
        throws -> (PaymentResult, String?)
    {
        let mark = sandbox.lastSequence
        let configuration = sandbox.sdkConfiguration()
        let kit = PaymentKit(configuration: configuration)
        let payment = sandbox.createPayment(orderNumber: "order-\(UUID().uuidString.prefix(8))")
        let presenter = WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(configuration: configuration), buyer: script,
            onEvent: events.record)
        let request = PaymentRequest(
            paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: payment.checkoutURL,
            returnURL: payment.shopRedirectURL)
        let result = try runPayment(presenter: presenter, file: file, line: line) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
        }
        let returnPath = payment.shopRedirectURL.path
        XCTAssertFalse(
            sandbox.requestLog.contains { $0.sequence > mark && $0.path.hasPrefix(returnPath) },
            "the return URL was loaded", file: file, line: line)
        return (result, sandbox.paymentStatus(payment.paymentId))
    }

    func testHostedPay() throws {
        let events = EventLog()
        let (result, status) = try pay(.answering(hosted: .pay), events: events)
        XCTAssertEqual(status, "SETTLED")
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(result.paymentStatus, status)
        XCTAssertEqual(
            events.all.filter { if case .buyerActed = $0 { true } else { false } }, [.buyerActed("press(\"pay\")")])
    }

    func testHostedCancel() throws {
        let (result, status) = try pay(.answering(hosted: .cancel))
        XCTAssertEqual(status, "CANCELLED")
        XCTAssertEqual(result.outcome, .cancelled)
        XCTAssertEqual(result.paymentStatus, status)
    }

    func testHostedDecline() throws {
        let (result, status) = try pay(.answering(hosted: .decline))
        XCTAssertEqual(status, "FAILED")
        XCTAssertEqual(result.outcome, .failed)
    }

    func testHostedPageFailingToLoad() throws {
        sandbox.inject(SandboxFault(endpoint: .hostedPage, kind: .status(503), schedule: .next(1)))
        let (result, status) = try pay(.answering(hosted: .pay))
        XCTAssertEqual(status, "INITIALIZED", "nothing was chosen")
        XCTAssertNotEqual(result.outcome, .succeeded)
        XCTAssertEqual(result.error?.paymentErrorCode, .pageLoadFailed)
    }
}
