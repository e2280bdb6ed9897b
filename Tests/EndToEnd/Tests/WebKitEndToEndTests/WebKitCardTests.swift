import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentFlow
import WebKitPresenter
import XCTest

/// Card payments through a real WebKitGTK window under Xvfb against the sandbox over loopback:
/// the challenge page rendered and answered on the page itself. Expected endings come from
/// GATEWAY.md's test cards and the sandbox's own record of the payment.
final class WebKitCardTests: XCTestCase {
    var sandbox: Sandbox { SharedSandbox.instance }

    override func setUpWithError() throws {
        // Never skipped: without a display this fails (make test runs it under xvfb-run -a).
        XCTAssertTrue(GTK.started, "GTK cannot open a display: run under xvfb-run -a")
        continueAfterFailure = GTK.started
    }

    func pay(
        _ number: String, script: BuyerScript, events: EventLog = EventLog(), file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> (PaymentResult, SandboxPayment) {
        let configuration = sandbox.sdkConfiguration()
        let kit = PaymentKit(configuration: configuration)
        let payment = sandbox.createPayment()
        let presenter = WebKitPagePresenter(
            host: .window(nil), trust: PageTrust(configuration: configuration), buyer: WebBuyer(script),
            onEvent: events.record)
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        let result = try runPayment(presenter: presenter, file: file, line: line) { completion in
            kit.startCardPayment(request, card: testCard(number), from: presenter, completion: completion)
        }
        return (result, payment)
    }

    func testChallengeAnsweredRightPays() throws {
        let events = EventLog()
        let (result, payment) = try pay("5555 5555 5555 4444", script: .answering(challengeCode: "1234"), events: events)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "SETTLED")
        XCTAssertTrue(events.all.contains(.buyerActed("enterCode(••••)")), "\(events.all)")
    }
}
