import Foundation
import GatewaySandbox
import HeadlessBrowser
import Synchronization
import XCTest

@testable import PaymentFlow

/// The in-process sandbox the end-to-end XCTest cases share (XCTest runs them
/// one after another; each clears the faults it set). Real HTTP on loopback,
/// real libcurl, real headless browser: no fakes end to end.
enum SharedSandbox {
    static let instance: Sandbox = {
        do {
            return try Sandbox(configuration: .init(seed: 7))
        } catch {
            fatalError("the sandbox did not start: \(error)")
        }
    }()
}

/// A far-future expiry the sandbox accepts ("any future expiry", GATEWAY.md).
let futureMonth = "12"
let futureYear = "35"

extension Sandbox {
    /// The three base URLs of this sandbox, `.sandbox` environment, short request timeout.
    func sdkConfiguration(requestTimeout: TimeInterval = 5) -> PaymentFlow.Configuration {
        var configuration = PaymentFlow.Configuration(
            apiBaseURL: apiBaseURL, checkoutAPIBaseURL: checkoutAPIBaseURL, checkoutBaseURL: checkoutBaseURL,
            environment: .sandbox)
        configuration.requestTimeout = requestTimeout
        return configuration
    }

    /// Requests for `paymentId` (and key fetches, which name no payment) that reached the SDK-facing
    /// endpoints (not the merchant backend nor the pages) after `sequence`.
    ///
    /// The sandbox is shared by the end-to-end tests, and a request an earlier test left behind (one held
    /// by an injected latency fault after the SDK timed out, say) is logged when it finally completes —
    /// possibly inside a later test's window. Counting only this payment's requests keeps them apart.
    func apiRequests(since sequence: Int, payment paymentId: String) -> [SandboxRequestLogEntry] {
        let marker = "/payments/\(paymentId)"
        return requestLog.filter { entry in
            entry.sequence > sequence
                && [
                    SandboxEndpoint.statusLookup, .jwks, .cardSessionCreate, .cardSessionGet, .authentication,
                    .challengeResult,
                ]
                .contains(entry.endpoint ?? .any)
                && (entry.endpoint == .jwks || entry.path.hasSuffix(marker) || entry.path.contains(marker + "/"))
        }
    }

    var lastSequence: Int { requestLog.last?.sequence ?? 0 }
}

func testCard(_ number: String, code: String = "123", name: String = "Jane Doe") -> CardInput {
    CardInput(
        cardholderName: name, cardNumber: number, expiryMonth: futureMonth, expiryYear: futureYear, securityCode: code)
}

/// A headless browser buyer, and the contract's "page gone" check for it.
func browser(_ script: BuyerScript) -> HeadlessBrowserPresenter {
    HeadlessBrowserPresenter(script: script, options: .init(pageTimeout: 5))
}
