import Foundation
import GatewaySandbox
import HeadlessBrowser
import Synchronization
import XCTest

import PaymentFlow

/// Issue 30 (3): every request the SDK sends carries `PaymentKit.userAgent`, which names the SDK, its
/// version and the platform, and nothing of the buyer: the sandbox logs each request's `User-Agent`,
/// and after a challenged card payment, its challenge pages and a status lookup through the public API
/// every logged request of that run has the SDK's, and none carries the card's number or code, the
/// payment's verification key or the gateway's encryption key.
final class UserAgentEndToEndTests: XCTestCase {
    var sandbox: Sandbox { SharedSandbox.instance }
    let number = "5555555555554444"
    let code = "987"

    func testEveryRequestOfAChallengedPaymentAndALookupCarriesTheSDKsUserAgentAndNoCardData() throws {
        let mark = sandbox.lastSequence
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration())
        let payment = sandbox.createPayment()
        let paid = expectation(description: "card payment")
        let result = Mutex<PaymentResult?>(nil)
        kit.startCardPayment(
            CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey),
            card: testCard(number, code: code), from: browser(.answering(challengeCode: "1234"))
        ) { delivered in
            result.withLock { $0 = delivered }
            paid.fulfill()
        }
        wait(for: [paid], timeout: 30)
        XCTAssertEqual(result.withLock { $0?.outcome }, .succeeded)
        let looked = expectation(description: "lookup")
        kit.lookUpStatus(paymentId: payment.paymentId, verificationKey: payment.verificationKey) { _ in
            looked.fulfill()
        }
        wait(for: [looked], timeout: 30)

        let logged = sandbox.requestLog.filter { $0.sequence > mark }
        let sdk = sandbox.apiRequests(since: mark, payment: payment.paymentId)
        // The card flow's calls (a challenge: creation, authentication, challenge result) and the lookup.
        XCTAssertTrue(Set(sdk.compactMap(\.endpoint)).isSuperset(of: [.cardSessionCreate, .statusLookup]))
        XCTAssertTrue(sdk.contains { $0.endpoint == .challengeResult }, "the payment was challenged")
        for entry in sdk {
            XCTAssertEqual(entry.userAgent, PaymentKit.userAgent, "\(entry)")
        }
        // The challenge pages, loaded by the headless browser through the kit's transport, say the same.
        let pages = logged.filter { $0.endpoint == .acsChallenge || $0.endpoint == .acsSubmit }
        XCTAssertFalse(pages.isEmpty, "the challenge page was logged")
        for entry in pages {
            XCTAssertEqual(entry.userAgent.map { $0.hasPrefix(PaymentKit.userAgent) }, true, "\(entry)")
        }

        // What it says: the SDK, a semantic version, the platform; nothing else.
        let version = PaymentKit.sdkVersion.split(separator: ".")
        XCTAssertEqual(version.count, 3)
        XCTAssertTrue(version.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, PaymentKit.sdkVersion)
        XCTAssertTrue(PaymentKit.userAgent.hasPrefix("EGWPay-Linux/\(PaymentKit.sdkVersion) (Linux; "))
        let secrets = [
            number, "5555 5555 5555 4444", String(number.suffix(8)), code, payment.verificationKey,
            payment.paymentId, sandbox.currentKeyID,
        ]
        for entry in logged {
            let agent = try XCTUnwrap(entry.userAgent, "\(entry) has no User-Agent")
            for secret in secrets {
                XCTAssertFalse(agent.contains(secret), "\(entry.path): the User-Agent holds a secret")
            }
        }
    }
}
