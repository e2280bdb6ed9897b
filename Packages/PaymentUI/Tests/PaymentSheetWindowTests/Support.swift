import CGtk4
import CPaymentUIGtk
import CPaymentUITestHooks
import Foundation
import PaymentAuthorization
import PaymentUITesting
import Synchronization
import XCTest

@testable import PaymentSheetWindow

/// Runs a test body on the main actor: XCTest on Linux runs every test on the main thread, but cannot
/// call a `@MainActor` test method itself.
func onMain<T: Sendable>(_ body: @MainActor () throws -> T) throws -> T {
    try MainActor.assumeIsolated(body)
}

/// Iterates GLib's main context only (never the run loop): the main queue runs because the sheet's
/// GLibMainQueue source drains it. Stops when `condition` holds or after `timeout` seconds.
@MainActor
func spin(timeout: Double = 10, until condition: () -> Bool = { false }) {
    UITest.spin(timeout: timeout, until: condition)
}

@MainActor
func named(_ window: PaymentSheetWindow, _ name: String) -> UnsafeMutablePointer<GtkWidget>? {
    guard let root = window.rawWindow else { return nil }
    return egwui_find_named(root.assumingMemoryBound(to: GtkWidget.self), name)
}

@MainActor
func label(_ window: PaymentSheetWindow, _ name: String) -> String? {
    named(window, name).map { String(cString: egwui_label_text($0)) }
}

/// The merchant of the cases (the figures of PaymentAuthorization's end-to-end tests, checked by hand):
/// a 12.50 EUR book; standard shipping free, express 4.99; SAVE10 is 10 % off the goods, OLD has expired.
func bookShop() -> SimulatedMerchant {
    let merchant = SimulatedMerchant(
        name: "Example shop", goods: [PaymentSummaryItem(label: "Book", amount: Decimal(string: "12.50")!)],
        currencyCode: "EUR", initialMethod: methods[0])
    merchant.setCoupon("SAVE10", .percentOff(10))
    merchant.setCoupon("OLD", .expired)
    merchant.setUnserviceable("US")
    return merchant
}

let methods = [
    ShippingMethod(identifier: "standard", label: "Standard", amount: 0),
    ShippingMethod(identifier: "express", label: "Express", amount: Decimal(string: "4.99")!),
]

let home = Contact(
    name: "Jane Doe", street: "Brivibas iela 1", city: "Riga", state: "Riga", postalCode: "LV-1010",
    countryCode: "LV")
let abroad = Contact(name: "John Roe", street: "1 Main St", city: "Springfield", postalCode: "62701", countryCode: "US")

func request(_ merchant: SimulatedMerchant) -> PaymentAuthorizationRequest {
    var request = PaymentAuthorizationRequest(
        merchantIdentifier: "merchant.lv.example", countryCode: "LV", currencyCode: "EUR",
        supportedNetworks: [.visa, .mastercard], paymentSummaryItems: merchant.summaryItems)
    request.requiredShippingContactFields = [.postalAddress, .name]
    request.shippingMethods = methods
    request.supportsCouponCode = true
    return request
}

func wallet() -> SimulatedWallet {
    SimulatedWallet(
        cards: [
            WalletCard(
                CardInput(cardNumber: "4111 1111 1111 1111", expiryMonth: "12", expiryYear: "35", securityCode: "123")),
            WalletCard(
                CardInput(cardNumber: "3782 822463 10005", expiryMonth: "12", expiryYear: "35", securityCode: "1234")),
        ],
        contacts: [home, abroad])
}

/// A delegate that prices changes with a SimulatedMerchant and answers authorizations from a list.
final class MerchantDelegate: PaymentAuthorizationControllerDelegate {
    let merchant: SimulatedMerchant
    private let state = Mutex<(answers: [PaymentAuthorizationResult], finished: Int, payments: [Payment])>(([], 0, []))

    init(_ merchant: SimulatedMerchant, answers: [PaymentAuthorizationResult]) {
        self.merchant = merchant
        state.withLock { $0.answers = answers }
    }

    var finished: Int { state.withLock { $0.finished } }
    var payments: [Payment] { state.withLock { $0.payments } }

    func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {
        state.withLock { $0.finished += 1 }
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
        handler: @escaping @Sendable (PaymentAuthorizationResult) -> Void
    ) {
        let answer = state.withLock { state -> PaymentAuthorizationResult in
            state.payments.append(payment)
            return state.answers.isEmpty ? PaymentAuthorizationResult(status: .success) : state.answers.removeFirst()
        }
        handler(answer)
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingContact contact: Contact,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
    ) {
        merchant.shippingContactChanged(contact, controller: controller, handler: handler)
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didSelectShippingMethod shippingMethod: ShippingMethod,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void
    ) {
        merchant.shippingMethodChanged(shippingMethod, controller: controller, handler: handler)
    }

    func paymentAuthorizationController(
        _ controller: PaymentAuthorizationController, didChangeCouponCode couponCode: String,
        handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void
    ) {
        merchant.couponCodeChanged(couponCode, controller: controller, handler: handler)
    }
}

/// Saves a PNG of the sheet into `EGW_SCREENSHOTS` when it is set (`make screenshots`).
@MainActor
func saveScreenshot(_ window: PaymentSheetWindow, _ name: String) {
    guard let folder = ProcessInfo.processInfo.environment["EGW_SCREENSHOTS"], let root = window.rawWindow else {
        return
    }
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    XCTAssertEqual(egwui_snapshot_png(root.assumingMemoryBound(to: GtkWidget.self), "\(folder)/\(name).png"), 1)
}

/// Activates the widget named `name` and waits until the sheet drew a new rendering and is ready again.
@MainActor
func act(_ window: PaymentSheetWindow, _ name: String) throws {
    let before = window.renderings
    egwui_widget_activate(try XCTUnwrap(named(window, name), name))
    spin { window.renderings > before && window.sheet?.state == .ready }
}

/// A sheet shown in a PaymentSheetWindow by a controller with no deadline and a MerchantDelegate pricing
/// the book shop, ready for the buyer.
@MainActor
struct ShownSheet {
    let merchant = bookShop()
    let window: PaymentSheetWindow
    let delegate: MerchantDelegate
    let controller: PaymentAuthorizationController

    init(statusDuration: TimeInterval = 1.2, answers: [PaymentAuthorizationResult] = []) throws {
        var options = PaymentSheetWindow.Options()
        options.statusDuration = statusDuration
        window = PaymentSheetWindow(options: options)
        delegate = MerchantDelegate(merchant, answers: answers)
        var controllerOptions = PaymentAuthorizationController.Options()
        controllerOptions.deadline = nil
        controller = try XCTUnwrap(
            PaymentAuthorizationController(
                paymentRequest: request(merchant), presenter: window, wallet: wallet(), options: controllerOptions))
        controller.delegate = delegate
        let shown = Mutex<Bool?>(nil)
        controller.present { value in shown.withLock { $0 = value } }
        let window = window
        spin { shown.withLock { $0 } != nil && window.sheet?.state == .ready }
        XCTAssertEqual(shown.withLock { $0 }, true)
    }
}

extension PaymentSheetWindow {
    /// The sheet's `GtkWindow *` while it is shown, for the tests' own GTK calls (the window lives while
    /// the sheet is shown).
    var rawWindow: UnsafeMutableRawPointer? { windowReference?.withUnsafePointer { $0 } }
}
