import Foundation
import GatewaySandbox
import HeadlessBrowser
import Synchronization
import XCTest

@testable import PaymentFlow

/// The 3DS Method and the browser data end to end: the real sandbox (its method cards, GATEWAY.md
/// step 2), real libcurl, the headless browser loading the method invisibly. Expected outcomes are
/// the sandbox README's method-card rows: a completed method with complete browser data is
/// frictionless; a method cut at 10 s says `N` and is challenged; a card without a method says `U`.
/// The measured wait of the slow method is printed, never asserted.
final class ThreeDSMethodEndToEndTests: XCTestCase {
    var sandbox: Sandbox { SharedSandbox.instance }

    /// Pays `number` with `presenter`; returns the result, the sandbox's log for the session, and the
    /// seconds the run spent in the method (its transitions, on the test's clock).
    func pay(
        _ number: String, presenter: (any PaymentPresenter)? = nil, payment: SandboxPayment? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (PaymentResult, [SandboxRequestLogEntry], Double?) {
        let kit = PaymentKit(configuration: sandbox.sdkConfiguration())
        let payment = payment ?? sandbox.createPayment()
        // Page loads may take 30 s, so the slow method's 12 s are cut by the SDK's 10 s, not the browser.
        let headless = HeadlessBrowserPresenter(
            script: .answering(challengeCode: "1234"), options: .init(pageTimeout: 30))
        let presenter = presenter ?? headless
        let since = sandbox.lastSequence
        let methodTimes = Mutex<(start: ContinuousClock.Instant?, end: ContinuousClock.Instant?)>((nil, nil))
        let options = PaymentOptions(observer: { event in
            guard case .transition(let step) = event else { return }
            if step.to == "runningThreeDSMethod" { methodTimes.withLock { $0.start = .now } }
            if step.to == "endingThreeDSMethod" { methodTimes.withLock { $0.end = .now } }
        })
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        let result = try XCTUnwrap(
            ContractHarness.run(self, timeout: 60, pageGone: { !headless.isPresenting }, file: file, line: line) {
                completion in
                kit.startCardPayment(request, card: testCard(number), from: presenter, options: options, completion: completion)
            }, file: file, line: line)
        let session = result.sessionId ?? "none"
        // This run's session's requests, and the issuer's pages (their paths name no session; the
        // end-to-end tests run one at a time).
        let log = sandbox.requestLog.filter { entry in
            entry.sequence > since
                && (entry.path.contains(session) || entry.endpoint == .acsMethod || entry.endpoint == .acsChallenge)
        }
        let waited = methodTimes.withLock { times -> Double? in
            guard let start = times.start, let end = times.end else { return nil }
            let elapsed = end - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        return (result, log, waited)
    }

    static func compInd(_ log: [SandboxRequestLogEntry]) -> String? {
        log.first { $0.endpoint == .authentication }?.threeDSCompInd
    }

    func testAFastMethodSaysYAndPaysFrictionlessly() throws {
        let (result, log, waited) = try pay("4000 0000 0000 2107")
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(Self.compInd(log), "Y")
        XCTAssertTrue(log.contains { $0.endpoint == .methodNotification })
        XCTAssertFalse(log.contains { $0.endpoint == .acsChallenge }, "frictionless: no challenge page")
        print("3DS Method (fast) took \(waited.map { String(format: "%.3f", $0) } ?? "?") s")
    }

    func testASlowMethodIsCutAndSaysN() throws {
        let (result, log, waited) = try pay("4000 0000 0000 2206")
        XCTAssertEqual(result.outcome, .succeeded, "a method cut at 10 s never fails the payment (challenge, 1234)")
        XCTAssertEqual(Self.compInd(log), "N")
        XCTAssertFalse(log.contains { $0.endpoint == .methodNotification })
        XCTAssertTrue(log.contains { $0.endpoint == .acsChallenge })
        print("3DS Method (slow, 12 s) cut after \(waited.map { String(format: "%.3f", $0) } ?? "?") s")
    }

    func testAMethodThatNeverPostsBackSaysN() throws {
        let (result, log, _) = try pay("4000 0000 0000 2305")
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(Self.compInd(log), "N")
    }

    func testACardWithoutAMethodSaysU() throws {
        let (result, log, waited) = try pay("4111 1111 1111 1111")
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(Self.compInd(log), "U")
        XCTAssertNil(waited, "no method ran")
    }

    /// A host presenter whose browser report EMV refuses: a clear error, the authentication never
    /// sent, and the payment still payable.
    func testMalformedBrowserDataFromAHostPresenterIsAClearErrorAndNoPaymentIsLost() throws {
        let payment = sandbox.createPayment()
        let host = MisreportingPresenter(inner: browser(.answering(challengeCode: "1234")))
        let (result, log, _) = try pay("4000 0000 0000 2107", presenter: host, payment: payment)
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertEqual(result.error?.paymentErrorCode, .invalidRequest)
        XCTAssertTrue(String(describing: result.error).contains("browser.language"), "\(String(describing: result.error))")
        XCTAssertFalse(log.contains { $0.endpoint == .authentication }, "the authentication never went out")
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "INITIALIZED")
        let (again, _, _) = try pay("4000 0000 0000 2107", payment: payment)
        XCTAssertEqual(again.outcome, .succeeded)
    }
}

/// A host's presenter that shows pages with the headless browser but reports a language EMV refuses.
final class MisreportingPresenter: PaymentPresenter {
    let inner: HeadlessBrowserPresenter
    init(inner: HeadlessBrowserPresenter) { self.inner = inner }
    func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
        inner.present(page, handler: handler, completion: completion)
    }
    func dismiss(completion: @escaping @Sendable () -> Void) { inner.dismiss(completion: completion) }
    func reportBrowserData(completion: @escaping @Sendable (ThreeDSBrowserData?) -> Void) {
        var report = inner.browserData
        report.language = "english-GB"
        completion(report)
    }
}
