import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentFlow
import Synchronization
import WebKitPresenter
import XCTest

/// The kit's trust in WebKit pages: an HTTPS sandbox whose test CA the configuration trusts pays;
/// the same pages with the CA not trusted, or a wrong pin, fail to load before the issuer's page
/// receives a request; a plain-http page is refused in `.live`.
final class WebKitTrustTests: WebKitTestCase {
    static let https: Sandbox = {
        var configuration = Sandbox.Configuration(seed: 21)
        configuration.tls = Sandbox.TLS()
        do {
            return try Sandbox(configuration: configuration)
        } catch {
            fatalError("the HTTPS sandbox did not start: \(error)")
        }
    }()

    override var sandbox: Sandbox { Self.https }

    /// A challenged card over HTTPS; the kit trusts the sandbox's CA, the pages trust `pageTrust`.
    func payChallenge(
        pageTrust: (PaymentFlow.Configuration) -> PageTrust, events: EventLog = EventLog(),
        file: StaticString = #filePath, line: UInt = #line
    )
        throws -> (PaymentResult, acsRequests: Int, String?)
    {
        let ca = try XCTUnwrap(sandbox.tlsTrust?.certificateAuthorityFile, file: file, line: line)
        var configuration = sandbox.sdkConfiguration()
        configuration.transportSecurity = .trusting(certificateAuthorityFile: ca)
        let kit = PaymentKit(configuration: configuration)
        let payment = sandbox.createPayment()
        let presenter = WebKitPagePresenter(
            host: .ownWindow, trust: pageTrust(configuration), buyer: .answering(challengeCode: "1234"),
            onEvent: events.record)
        let mark = sandbox.lastSequence
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        let result = try runPayment(presenter: presenter, file: file, line: line) { completion in
            kit.startCardPayment(
                request, card: testCard("5555 5555 5555 4444"), from: presenter, completion: completion)
        }
        let acs = sandbox.requestLog.filter { $0.sequence > mark && $0.endpoint == .acsChallenge }.count
        return (result, acs, sandbox.paymentStatus(payment.paymentId))
    }

    func testTrustedCAOverHTTPSPays() throws {
        XCTAssertEqual(sandbox.checkoutAPIBaseURL.scheme, "https")
        let events = EventLog()
        let (result, acs, status) = try payChallenge(pageTrust: { PageTrust(configuration: $0) }, events: events)
        XCTAssertTrue(events.all.contains(.certificateAdmitted(host: "127.0.0.1")), "\(events.all)")
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(status, "SETTLED")
        XCTAssertEqual(acs, 1)
    }

    func testUntrustedCAIsALoadFailureAndTheIssuerHearsNothing() throws {
        let (result, acs, status) = try payChallenge { _ in PageTrust(allowsPlainHTTP: true) }
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertEqual(result.error?.paymentErrorCode, .pageLoadFailed)
        XCTAssertEqual(acs, 0, "the TLS handshake failed before any request")
        XCTAssertNotEqual(status, "SETTLED")
    }

    func testMatchingPinPays() throws {
        let pin = try XCTUnwrap(sandbox.tlsTrust?.serverPublicKeyPin)
        let (result, _, status) = try payChallenge { configuration in
            var security = configuration.transportSecurity
            security.pinnedPublicKeys = ["127.0.0.1": [pin]]
            return PageTrust(allowsPlainHTTP: true, transportSecurity: security)
        }
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(status, "SETTLED")
    }

    func testPinMismatchIsALoadFailure() throws {
        // The CA's key is a real key of this chain, but not the server's: the pin names the leaf.
        let wrong = try XCTUnwrap(sandbox.tlsTrust?.certificateAuthorityPublicKeyPin)
        let events = EventLog()
        let (result, acs, status) = try payChallenge(
            pageTrust: { configuration in
                var security = configuration.transportSecurity
                security.pinnedPublicKeys = ["127.0.0.1": [wrong]]
                return PageTrust(allowsPlainHTTP: true, transportSecurity: security)
            }, events: events)
        // The relay refused the host (reported as an event and as the page's failure) and never
        // admitted it.
        XCTAssertTrue(
            events.all.contains {
                if case .refused(_, let reason) = $0 { return reason.contains("does not match the pins for 127.0.0.1") }
                return false
            }, "\(events.all)")
        XCTAssertFalse(events.all.contains(.certificateAdmitted(host: "127.0.0.1")))
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertEqual(result.error?.paymentErrorCode, .pageLoadFailed)
        XCTAssertEqual(acs, 0)
        XCTAssertNotEqual(status, "SETTLED")
    }

    /// `.live` rules: a plain-http page is never asked about nor loaded; the page fails.
    func testPlainHTTPRefusedInLive() throws {
        let plain = SharedSandbox.instance
        let payment = plain.createPayment()
        let handler = RecordingHandler()
        let presenter = WebKitPagePresenter(host: .ownWindow, trust: PageTrust(allowsPlainHTTP: false))
        let mark = plain.lastSequence
        presenter.present(PageRequest(url: payment.checkoutURL, purpose: .hostedCheckout), handler: handler) { _ in }
        XCTAssertTrue(GTKMainLoop.run(timeout: .seconds(10)) { !handler.events.isEmpty })
        let gone = Atomic(false)
        presenter.dismiss { gone.store(true, ordering: .releasing) }
        XCTAssertTrue(GTKMainLoop.run(timeout: .seconds(10)) { gone.load(ordering: .acquiring) })
        XCTAssertEqual(
            handler.events,
            ["failed \(payment.checkoutURL.absoluteString): plain http is refused outside the sandbox environment"])
        let after = plain.requestLog.filter { $0.sequence > mark }
        XCTAssertEqual(after.count, 0, "\(after.map { "\($0.method) \($0.path)" })")
    }
}

/// A handler that records what the page reported and allows every navigation.
final class RecordingHandler: PageEventHandler {
    private let log = Mutex<[String]>([])
    var events: [String] { log.withLock { $0 } }

    func page(decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void) {
        log.withLock { $0.append("asked \(url.absoluteString)") }
        decisionHandler(.allow)
    }
    func pageDidFinishLoad(_ url: URL) { log.withLock { $0.append("loaded \(url.absoluteString)") } }
    func pageDidFailLoad(_ url: URL, reason: String) {
        log.withLock { $0.append("failed \(url.absoluteString): \(reason)") }
    }
    func pageWasClosedByBuyer() { log.withLock { $0.append("closed") } }
}
