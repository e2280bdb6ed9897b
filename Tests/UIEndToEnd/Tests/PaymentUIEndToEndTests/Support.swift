import CUIEndToEndGtk
import Foundation
import GatewaySandbox
import PaymentAuthorization
import PaymentFlow
import PaymentSheetWindow
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

/// Iterates GLib's main context only, until `condition` holds or `timeout` seconds passed.
@MainActor
func spin(timeout: Double = 15, until condition: () -> Bool = { false }) {
    let end = Date().addingTimeInterval(timeout)
    while !condition() && Date() < end {
        uie2e_iterate()
        usleep(1000)
    }
}

@MainActor
func find(_ window: PaymentSheetWindow, _ name: String) -> UnsafeMutablePointer<GtkWidget>? {
    uie2e_find(window.window, name)
}

@MainActor
func text(_ window: PaymentSheetWindow, _ name: String) -> String? {
    find(window, name).map { String(cString: uie2e_text($0)) }
}

/// Clicks the control named `name` and waits until the sheet changed and is ready again.
@MainActor
func click(_ window: PaymentSheetWindow, _ name: String) throws {
    let widget = try XCTUnwrap(find(window, name), name)
    let before = (window.sheet?.selectedContact, window.sheet?.selectedShippingMethod, window.sheet?.total)
    uie2e_activate(widget)
    spin {
        let now = (window.sheet?.selectedContact, window.sheet?.selectedShippingMethod, window.sheet?.total)
        return (now.0 != before.0 || now.1 != before.1 || now.2 != before.2) && window.sheet?.state == .ready
    }
}

/// Sends this process's stdout and stderr into a file until `finish()`, which restores them and returns
/// what was written.
final class OutputCapture {
    private let path = NSTemporaryDirectory() + "uie2e-output-\(getpid()).txt"
    private let savedOut = dup(STDOUT_FILENO)
    private let savedErr = dup(STDERR_FILENO)

    init() throws {
        fflush(nil)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        dup2(fd, STDOUT_FILENO)
        dup2(fd, STDERR_FILENO)
        close(fd)
        print("output capture started")
    }

    func finish() throws -> String {
        fflush(nil)
        dup2(savedOut, STDOUT_FILENO)
        dup2(savedErr, STDERR_FILENO)
        close(savedOut)
        close(savedErr)
        defer { unlink(path) }
        return try String(contentsOfFile: path, encoding: .utf8)
    }
}
