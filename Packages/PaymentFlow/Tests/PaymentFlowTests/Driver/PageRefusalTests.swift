import Foundation
import Synchronization
import XCTest

@testable import PaymentFlow

/// What a page tried and its presenter refused (`PageEventHandler.page(didRefuse:)`) reaches the
/// payment's log, with no page text and URLs without their query; the outcome is untouched.
final class PageRefusalTests: XCTestCase {
    let api = URL(string: "http://127.0.0.1:9/merchant-api")!
    let checkout = URL(string: "http://127.0.0.1:9/gateway-checkout/checkout/pay/p_1")!
    let returnURL = URL(string: "myshop://return/p_1")!

    func testRefusalsAreLoggedWithoutPageTextOrQueries() throws {
        let lines = Mutex<[String]>([])
        var configuration = Configuration(apiBaseURL: api, environment: .sandbox)
        configuration.logLevel = .info
        configuration.logSink = { record in lines.withLock { $0.append(record.message) } }
        let transport = StubTransport { request in
            StubTransport.json(200, #"{"paymentId":"p_1","paymentStatus":"SETTLED"}"#, url: request.url)
        }
        let kit = PaymentKit(configuration: configuration, resolver: nil, dependencies: stubDependencies(transport))
        let file = URL(string: "http://127.0.0.1:9/gateway-checkout/receipt.pdf?pan=4111111111111111#x")!
        let popup = URL(string: "http://127.0.0.1:9/gateway-checkout/help?cvc=737")!
        let returnURL = self.returnURL
        let presenter = StubPresenter { _ in
            [
                .refuse(.download(file)), .refuse(.dialog(.prompt, messageLength: 26)),
                .refuse(.dialog(.confirm, messageLength: 3)), .refuse(.newWindow(popup)), .navigate(returnURL),
            ]
        }
        let request = PaymentRequest(
            paymentId: "p_1", verificationKey: "vk-secret-123456", checkoutURL: checkout, returnURL: returnURL)
        let result = try XCTUnwrap(
            ContractHarness.run(self, pageGone: { presenter.pageGone }) { completion in
                kit.startPayment(request, from: presenter, completion: completion)
            })
        XCTAssertEqual(result.outcome, .succeeded, "a refusal changes no outcome")
        let logged = lines.withLock { $0 }
        let refusals = logged.filter { $0.contains("refused") || $0.contains("answered") || $0.contains("window") }
        XCTAssertEqual(
            refusals.map { $0.drop { $0 != ":" }.dropFirst(2) }.map(String.init),
            [
                "download of http://127.0.0.1:9/gateway-checkout/receipt.pdf refused",
                "prompt answered null (message of 26 characters)",
                "confirm answered false (message of 3 characters)",
                "new window for http://127.0.0.1:9/gateway-checkout/help kept in the same view",
            ], "\(logged)")
        let everything = logged.joined(separator: "\n")
        XCTAssertFalse(everything.contains("4111111111111111"))
        XCTAssertFalse(everything.contains("737"))
    }

    func testAHandlerWrittenBeforeTheReportStillCompilesAndIgnoresIt() {
        final class OldHandler: PageEventHandler {
            func page(decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void) {}
            func pageDidFinishLoad(_ url: URL) {}
            func pageDidFailLoad(_ url: URL, reason: String) {}
            func pageWasClosedByBuyer() {}
        }
        OldHandler().page(didRefuse: .dialog(.alert, messageLength: 0))
    }
}
