import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentFlow
import WebKitPresenter
import XCTest

/// Card payments through a real WebKitGTK window under Xvfb against the sandbox over loopback:
/// the challenge page rendered and answered on the page itself. Expected endings come from
/// GATEWAY.md's test cards and CONTRACT.md; each is checked against the sandbox's own record
/// of the card session and the payment.
final class WebKitCardTests: WebKitTestCase {
    func pay(
        _ number: String, script: WebBuyer, events: EventLog = EventLog(),
        configure: (inout PaymentFlow.Configuration) -> Void = { _ in }, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> (PaymentResult, [SandboxCardSessionSummary], String?) {
        var configuration = sandbox.sdkConfiguration()
        configure(&configuration)
        let kit = PaymentKit(configuration: configuration)
        let payment = sandbox.createPayment()
        let presenter = WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(configuration: configuration), buyer: script,
            onEvent: events.record)
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        let result = try runPayment(presenter: presenter, file: file, line: line) { completion in
            kit.startCardPayment(request, card: testCard(number), from: presenter, completion: completion)
        }
        return (result, sandbox.cardSessions(paymentId: payment.paymentId), sandbox.paymentStatus(payment.paymentId))
    }

    func testFrictionlessOpensNoWindow() throws {
        let events = EventLog()
        let (result, sessions, status) = try pay("4111 1111 1111 1111", script: .closeAtFirstPage, events: events)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(sessions.map(\.status), ["COMPLETED"])
        XCTAssertEqual(status, "SETTLED")
        XCTAssertEqual(events.all, [], "no page was ever presented")
    }

    func testChallengeAnsweredRightPays() throws {
        let events = EventLog()
        let (result, sessions, status) = try pay(
            "5555 5555 5555 4444", script: .answering(challengeCode: "1234"), events: events)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertNil(result.error)
        XCTAssertEqual(sessions.map(\.status), ["COMPLETED"])
        XCTAssertEqual(status, "SETTLED")
        XCTAssertEqual(
            events.all.filter { if case .buyerActed = $0 { true } else { false } }, [.buyerActed("enterCode(••••)")])
        // The issuer's script-free hand-back posted the cres to the notification URL, which the SDK allowed.
        XCTAssertTrue(
            events.all.contains {
                if case .decided(let url, .allow) = $0 { url.path.contains("/3ds/notification/") } else { false }
            }, "\(events.all)")
        XCTAssertEqual(events.all.last, .dismissed)
    }

    func testChallengeAnsweredWrongFailsAuthentication() throws {
        let (result, sessions, status) = try pay("5555 5555 5555 4444", script: .answering(challengeCode: "0000"))
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertEqual(result.error?.paymentErrorCode, .authenticationFailed)
        XCTAssertEqual(sessions.map(\.status), ["FAILED"])
        XCTAssertNotEqual(status, "SETTLED")
    }

    func testBuyerClosingTheChallengeCancels() throws {
        let (result, sessions, status) = try pay("5555 5555 5555 4444", script: .closeAtFirstPage)
        XCTAssertEqual(result.outcome, .cancelled)
        XCTAssertNil(result.error)
        XCTAssertEqual(sessions.map(\.status), ["CHALLENGE_REQUIRED"], "the issuer never had an answer")
        XCTAssertNotEqual(status, "SETTLED")
    }

    func testAbandonedChallengeEndsAtTheDeadline() throws {
        let started = ContinuousClock.now
        let (result, sessions, status) = try pay(
            "5555 5555 5555 4444", script: .always(.wait), configure: { $0.challengeTimeout = 3 })
        XCTAssertEqual(result.outcome, .cancelled)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .seconds(3))
        XCTAssertEqual(sessions.map(\.status), ["CHALLENGE_REQUIRED"])
        XCTAssertNotEqual(status, "SETTLED")
    }

    func testChallengePageFailingToLoad() throws {
        sandbox.inject(SandboxFault(endpoint: .acsChallenge, kind: .status(500), schedule: .next(1)))
        let (result, sessions, status) = try pay("5555 5555 5555 4444", script: .answering(challengeCode: "1234"))
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertEqual(result.error?.paymentErrorCode, .pageLoadFailed)
        XCTAssertEqual(sessions.map(\.status), ["CHALLENGE_REQUIRED"])
        XCTAssertNotEqual(status, "SETTLED")
    }

    func testIssuerUnreachableIsALoadFailure() throws {
        sandbox.inject(SandboxFault(endpoint: .acsChallenge, kind: .dropConnection, schedule: .next(1)))
        let (result, _, status) = try pay("5555 5555 5555 4444", script: .answering(challengeCode: "1234"))
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertEqual(result.error?.paymentErrorCode, .pageLoadFailed)
        XCTAssertNotEqual(status, "SETTLED")
    }
}
