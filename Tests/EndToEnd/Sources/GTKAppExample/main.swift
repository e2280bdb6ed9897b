// The GTK app of WebKitPresenter's README: a shop window, a card payment whose 3-D Secure challenge
// opens as a modal window over it, the result on the GTK thread through the main-queue bridge.
// Built here so the README's code compiles and runs (against a sandbox started for it; a person,
// or with `--scripted` the WebBuyer, answers the challenge: code 1234).
import CGTK4
import Foundation
import GatewaySandbox
import PaymentFlow
import WebKitPresenter

try GTKMainLoop.start()  // GTK + the Dispatch bridge, on the main thread
let sandbox = try Sandbox()
let configuration = Configuration(
    checkoutAPIBaseURL: sandbox.checkoutAPIBaseURL, checkoutBaseURL: sandbox.checkoutBaseURL, environment: .sandbox)
let kit = PaymentKit(configuration: configuration)  // callbackQueue: .main
let shop = UnsafeMutableRawPointer(gtk_window_new()!).assumingMemoryBound(to: GtkWindow.self)
gtk_window_set_title(shop, "Shop")
gtk_window_present(shop)
let buyer = CommandLine.arguments.contains("--scripted") ? WebBuyer { _, respond in respond(.enterCode("1234")) } : nil
let presenter = WebKitPagePresenter(
    host: .window(over: GObjectReference(retaining: UnsafeMutableRawPointer(shop))),
    trust: PageTrust(configuration: configuration), buyer: buyer)
let card = CardInput(
    cardholderName: "Jane Doe", cardNumber: "5555555555554444", expiryMonth: "12", expiryYear: "35",
    securityCode: "123")
let payment = sandbox.createPayment()
let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
kit.startCardPayment(request, card: card, from: presenter) { result in
    // On the GTK thread, once, after the challenge window is gone.
    print("outcome: \(result.outcome)")
    exit(result.outcome == .succeeded ? 0 : 1)
}
while true { _ = g_main_context_iteration(nil, 1) }  // the app's loop (g_application_run in a real app)
