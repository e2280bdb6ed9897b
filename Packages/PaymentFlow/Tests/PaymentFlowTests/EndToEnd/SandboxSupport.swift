import Foundation
import GatewaySandbox
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

    /// Requests that reached the SDK-facing endpoints (not the merchant backend nor the pages).
    func apiRequests(since sequence: Int) -> [SandboxRequestLogEntry] {
        requestLog.filter { entry in
            entry.sequence > sequence
                && [
                    SandboxEndpoint.statusLookup, .jwks, .cardSessionCreate, .cardSessionGet, .authentication,
                    .challengeResult,
                ]
                .contains(entry.endpoint ?? .any)
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
