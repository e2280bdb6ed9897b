import Foundation
import Synchronization
import XCTest

@testable import PaymentFlow

/// A payment whose machine sleeps through a deadline, on the flow's live timers over a simulated
/// machine: on resume the deadline fires and the payment ends as that deadline says (CONTRACT.md
/// section 4a: a status nobody could read is `.unresolved`), instead of waiting on as if no time had
/// passed while the gateway's session expired.
final class SuspendedPaymentTests: XCTestCase {
    let api = URL(string: "http://127.0.0.1:9/merchant-api")!
    let checkout = URL(string: "http://127.0.0.1:9/gateway-checkout/checkout/pay/p_1")!
    let returnURL = URL(string: "myshop://return/p_1")!

    /// The buyer came back to the shop; the status lookup went out and no answer came before the
    /// machine slept for an hour. Its watchdog (the request timeout plus grace, 35 s) passed during the
    /// sleep: on resume the lookup is given up and the payment ends `.unresolved`.
    func testAStatusLookupThatSleptThroughItsWatchdogEndsUnresolvedOnResume() throws {
        let configuration = Configuration(apiBaseURL: api, environment: .sandbox)
        let watchdog = CallWatchdog.deadline(requestTimeout: configuration.requestTimeout)
        let watchdogArmed = expectation(description: "the lookup's watchdog is armed")
        watchdogArmed.assertForOverFulfill = false
        let machine = SimulatedMachine(onArm: { delay in if delay == watchdog { watchdogArmed.fulfill() } })
        let transport = StubTransport { _ in nil }  // the lookup is never answered
        let kit = PaymentKit(
            configuration: configuration, resolver: nil,
            dependencies: stubDependencies(transport, clock: .suspendAware(machine.source)))
        let returnURL = self.returnURL
        let presenter = StubPresenter { _ in [.navigate(returnURL)] }
        let request = PaymentRequest(
            paymentId: "p_1", verificationKey: "vk-secret-123456", checkoutURL: checkout, returnURL: returnURL)
        let result = ContractHarness.run(self, pageGone: { presenter.pageGone }) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
            DispatchQueue.global().async {
                guard XCTWaiter().wait(for: [watchdogArmed], timeout: 30) == .completed else { return }
                machine.suspend(for: 3_600)
            }
        }
        XCTAssertEqual(result?.outcome, .unresolved)
        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertEqual(transport.requests.first?.method, "GET")
    }

    /// The buyer pressed Pay (a form POST the SDK allowed) and the machine slept for an hour with the
    /// checkout page open: its 30-minute deadline passed during the sleep. On resume the deadline ends
    /// the page, and with no lookup configured a page that may carry the buyer's payment is
    /// `.unresolved`, never `.cancelled`.
    func testAPageDeadlineThatPassedDuringASleepEndsThePaymentOnResume() throws {
        let machine = SimulatedMachine()
        let payURL = URL(string: "http://127.0.0.1:9/gateway-checkout/checkout/pay/p_1/submit")!
        let presenter = StubPresenter { _ in [.post(payURL)] }
        let kit = PaymentKit(
            configuration: Configuration(apiBaseURL: nil, environment: .sandbox), resolver: nil,
            dependencies: stubDependencies(StubTransport { _ in nil }, clock: .suspendAware(machine.source)))
        let request = PaymentRequest(
            paymentId: "p_1", verificationKey: "vk-secret-123456", checkoutURL: checkout, returnURL: returnURL)
        let result = ContractHarness.run(self, pageGone: { presenter.pageGone }) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
            DispatchQueue.global().async {
                // The page's own load and the buyer's POST were decided: the buyer may have paid.
                while presenter.snapshot.decisions.count < 2 { usleep(1_000) }
                machine.suspend(for: 3_600)
            }
        }
        XCTAssertEqual(result?.outcome, .unresolved)
        XCTAssertEqual(presenter.snapshot.decisions.last?.0, payURL)
        XCTAssertEqual(presenter.snapshot.decisions.last?.1, .allow)
        XCTAssertEqual(presenter.snapshot.dismissCompleted, 1)
    }

    /// A card payment without 3-D Secure: the key comes, the card-session creation (which moves money)
    /// goes out and no answer comes. The machine sleeps through every wait (each suspend outlasts any
    /// deadline). Each watchdog fires on resume; a creation whose answer never came may have been
    /// applied, so the payment ends `.unresolved` (CONTRACT.md 4a), never `.failed`.
    func testACardCreationInFlightAcrossSleepsEndsUnresolved() throws {
        let jwk = try JWETestKey.key.jwkJSON()
        let members = try JSONSerialization.jsonObject(with: Data(jwk.utf8)) as? [String: Any] ?? [:]
        let jwks = #"{"keys":[{"kty":"RSA","kid":"test-key","use":"enc","alg":"RSA-OAEP-256","n":"\#(members["n"] as? String ?? "")","e":"\#(members["e"] as? String ?? "")"}]}"#
        let transport = StubTransport { request in
            request.url.path.hasSuffix("jwks.json") ? StubTransport.json(200, jwks, url: request.url) : nil
        }
        let machine = SimulatedMachine()
        let kit = PaymentKit(
            configuration: Configuration(
                checkoutAPIBaseURL: URL(string: "https://api.example/gw")!,
                checkoutBaseURL: URL(string: "https://keys.example/co")!, environment: .sandbox),
            resolver: nil, dependencies: stubDependencies(transport, clock: .suspendAware(machine.source)))
        let card = CardInput(
            cardholderName: "Test", cardNumber: "4111111111111111", expiryMonth: "12", expiryYear: "35",
            securityCode: "123")
        let presenter = StubPresenter { _ in [] }
        let finished = Atomic(false)
        let result = ContractHarness.run(self, pageGone: { presenter.pageGone }) { completion in
            kit.startCardPayment(
                CardPaymentRequest(paymentId: "p1", verificationKey: "vk"), card: card, from: presenter,
                completion: completion)
            Thread {
                // Once the creation is out (from then on nothing is ever answered, so nothing races a
                // sleep), whenever the run waits on a timer the machine sleeps for an hour.
                while !finished.load(ordering: .relaxed) {
                    let posted = transport.requests.contains { $0.method == "POST" }
                    if posted && machine.pendingWakes > 0 { machine.suspend(for: 3_600) }
                    usleep(1_000)
                }
            }.start()
        }
        finished.store(true, ordering: .relaxed)
        XCTAssertEqual(result?.outcome, .unresolved)
        XCTAssertGreaterThanOrEqual(transport.requests.filter { $0.method == "POST" }.count, 1)
    }
}
