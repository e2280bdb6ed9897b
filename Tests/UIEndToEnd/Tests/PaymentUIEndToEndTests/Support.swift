import Foundation
import GatewaySandbox
import PaymentAuthorization
import PaymentFlow
import PaymentSheetWindow
import PaymentUITesting
import XCTest

/// The shop of the cases: 12.50 EUR book, free standard or 4.99 express shipping, a Visa in the wallet.
enum Shop {
    static let methods = [
        ShippingMethod(identifier: "standard", label: "Standard", amount: 0),
        ShippingMethod(identifier: "express", label: "Express", amount: Decimal(string: "4.99")!),
    ]

    static func request(_ merchant: SimulatedMerchant) -> PaymentAuthorizationRequest {
        var request = PaymentAuthorizationRequest(
            merchantIdentifier: "merchant.lv.example", countryCode: "LV", currencyCode: "EUR",
            supportedNetworks: [.visa, .mastercard], paymentSummaryItems: merchant.summaryItems)
        request.requiredShippingContactFields = [.postalAddress, .name]
        request.shippingMethods = methods
        request.supportsCouponCode = true
        return request
    }

    static func wallet() -> SimulatedWallet {
        SimulatedWallet(
            cards: [
                WalletCard(
                    CardInput(
                        cardholderName: "Jane Doe", cardNumber: "4111 1111 1111 1111", expiryMonth: "12",
                        expiryYear: "35", securityCode: "987"))
            ],
            contacts: [
                Contact(
                    name: "Jane Doe", street: "Brivibas iela 1", city: "Riga", state: "Riga", postalCode: "LV-1010",
                    countryCode: "LV")
            ])
    }

    static func kit(_ sandbox: Sandbox) -> PaymentKit {
        var configuration = PaymentFlow.Configuration(
            apiBaseURL: sandbox.apiBaseURL, checkoutAPIBaseURL: sandbox.checkoutAPIBaseURL,
            checkoutBaseURL: sandbox.checkoutBaseURL, environment: .sandbox)
        configuration.requestTimeout = 5
        return PaymentKit(configuration: configuration)
    }
}

/// A page presenter for frictionless cards: it shows nothing.
final class NoPage: PaymentPresenter {
    func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
        completion(false)
    }
    func dismiss(completion: @escaping @Sendable () -> Void) { completion() }
}

@MainActor
func find(_ window: PaymentSheetWindow, _ name: String) -> UnsafeMutableRawPointer? {
    UITest.find(name, in: window.windowReference)
}

@MainActor
func text(_ window: PaymentSheetWindow, _ name: String) -> String? {
    find(window, name).map { UITest.text(of: $0) }
}

/// Clicks the control named `name` and waits until the sheet changed and is ready again.
@MainActor
func click(_ window: PaymentSheetWindow, _ name: String) throws {
    let widget = try XCTUnwrap(find(window, name), name)
    let before = (window.sheet?.selectedContact, window.sheet?.selectedShippingMethod, window.sheet?.total)
    UITest.activate(widget)
    UITest.spin(timeout: 15) {
        let now = (window.sheet?.selectedContact, window.sheet?.selectedShippingMethod, window.sheet?.total)
        return (now.0 != before.0 || now.1 != before.1 || now.2 != before.2) && window.sheet?.state == .ready
    }
}
