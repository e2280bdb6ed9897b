// webkit-screenshots: the pictures in docs/screenshots (`make screenshots`), taken from the X
// screen itself, so the challenge window shows over the app window that owns it.
//
// Usage: webkit-screenshots OUTPUT_DIR XVFB_SCREEN_FILE
// Run on an Xvfb started with `-fbdir`: XVFB_SCREEN_FILE is its `Xvfb_screen0` (XWD format), read
// after each page has painted and written as PNG with GDK.
import CGTK4
import Foundation
import GatewaySandbox
import HeadlessBrowser
import PaymentFlow
import Synchronization
import WebKitPresenter

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: webkit-screenshots OUTPUT_DIR XVFB_SCREEN_FILE\n".utf8))
    exit(64)
}

do {
    try GTKMainLoop.start()
} catch {
    FileHandle.standardError.write(Data("webkit-screenshots: \(error)\n".utf8))
    exit(1)
}
let sandbox = try Sandbox(configuration: .init(seed: 2026))
var configuration = Configuration(
    apiBaseURL: sandbox.apiBaseURL, checkoutAPIBaseURL: sandbox.checkoutAPIBaseURL,
    checkoutBaseURL: sandbox.checkoutBaseURL, environment: .sandbox)
configuration.requestTimeout = 5
let kit = PaymentKit(configuration: configuration)

/// The X screen, read from Xvfb's frame buffer file.
enum Screen {
    static let output = URL(fileURLWithPath: CommandLine.arguments[1])
    static let file = CommandLine.arguments[2]

    /// Saves the whole X screen as `name`.png (XWD: a big-endian header, a colour map, then the pixels).
    @MainActor static func captureScreen(_ name: String) {
        guard let xwd = FileManager.default.contents(atPath: Screen.file), xwd.count > 100 else {
            fatalError("cannot read \(Screen.file)")
        }
        let bytes = [UInt8](xwd)
        func word(_ index: Int) -> Int {
            (0..<4).reduce(0) { $0 << 8 | Int(bytes[index * 4 + $1]) }
        }
        let (headerSize, width, height, bitsPerPixel, bytesPerLine, colours) = (
            word(0), word(4), word(5), word(11), word(12), word(19)
        )
        precondition(bitsPerPixel == 32 && word(7) == 0, "expected 32-bit little-endian pixels")
        let start = headerSize + colours * 12
        var pixels = Array(bytes[start..<(start + height * bytesPerLine)])
        for row in 0..<height {
            for column in 0..<width { pixels[row * bytesPerLine + column * 4 + 3] = 0xFF }  // X8 → opaque
        }
        let data = g_bytes_new(pixels, gsize(pixels.count))
        let texture = gdk_memory_texture_new(
            Int32(width), Int32(height), GDK_MEMORY_B8G8R8A8, data, gsize(bytesPerLine))
        let path = Screen.output.appendingPathComponent("\(name).png").path
        precondition(gdk_texture_save_to_png(texture, path) != 0, "cannot write \(path)")
        g_object_unref(UnsafeMutableRawPointer(texture))
        g_bytes_unref(data)
        print("wrote \(path)")
    }

    /// Turns the loop until `done`, or fails after `seconds`.
    @MainActor static func wait(_ seconds: Int64 = 30, until done: () -> Bool) {
        guard GTKMainLoop.run(timeout: .seconds(seconds), until: done) else { fatalError("timed out") }
    }

    /// Lets the screen settle (the page painted), then captures it.
    @MainActor static func settleAndCapture(_ name: String) {
        let settled = Atomic(false)
        DispatchQueue.main.asyncAfter(deadline: .now() + 1.0) { settled.store(true, ordering: .releasing) }
        wait { settled.load(ordering: .acquiring) }
        captureScreen(name)
    }
}

/// A buyer's `respond`, held until the screen was captured.
final class PendingAnswer: Sendable {
    private let respond = Mutex<(@Sendable (PageAction) -> Void)?>(nil)
    private let held = Flag()
    func hold(_ respond: @escaping @Sendable (PageAction) -> Void) {
        self.respond.withLock { $0 = respond }
        DispatchQueue.main.async { self.held.set() }  // wakes the loop
    }
    var isHeld: Bool { held.isSet }
    func answer(_ action: PageAction) { respond.withLock { $0 }?(action) }
}

final class Flag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

// The app: a shop window with a little content.
let appWidget = gtk_window_new()!
let app = UnsafeMutableRawPointer(appWidget).assumingMemoryBound(to: GtkWindow.self)
gtk_window_set_title(app, "Corner Shop")
gtk_window_set_default_size(app, 1100, 760)
let shopBox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
gtk_window_set_child(app, shopBox)
let shopLabel = gtk_label_new(nil)!
gtk_label_set_markup(
    OpaquePointer(shopLabel),
    "<span size='xx-large' weight='bold'>Corner Shop</span>\n\nBasket: 1 × Tea (12.50 EUR)\n\nPaying by card…")
// Without a window manager (Xvfb) a new window opens at the screen's top left: keep the shop's
// text on the right, where the challenge window does not cover it.
gtk_widget_set_halign(shopLabel, GTK_ALIGN_END)
gtk_widget_set_margin_end(shopLabel, 40)
gtk_widget_set_margin_top(shopLabel, 40)
gtk_box_append(UnsafeMutableRawPointer(shopBox).assumingMemoryBound(to: GtkBox.self), shopLabel)
gtk_window_present(app)

// 1. The challenge, modal over the shop: captured once the page shows its code field. The buyer's
// answer waits for the capture, which runs here at the top level (never inside a main-queue block:
// the main queue is serial, so a loop turned from inside one would never see the next block).
let challengeBuyer = PendingAnswer()
let challengeDone = Flag()
let challengePresenter = WebKitPagePresenter(
    host: .window(over: GObjectReference(retaining: UnsafeMutableRawPointer(app))),
    trust: PageTrust(configuration: configuration),
    buyer: WebBuyer { _, respond in challengeBuyer.hold(respond) })
let challengePayment = sandbox.createPayment()
kit.startCardPayment(
    CardPaymentRequest(paymentId: challengePayment.paymentId, verificationKey: challengePayment.verificationKey),
    card: CardInput(
        cardholderName: "Jane Doe", cardNumber: "5555555555554444", expiryMonth: "12", expiryYear: "35",
        securityCode: "123"), from: challengePresenter
) { result in
    print("challenge: \(result.outcome)")
    challengeDone.set()
}
Screen.wait { challengeBuyer.isHeld }
Screen.settleAndCapture("challenge-over-app")
challengeBuyer.answer(.enterCode("1234"))
Screen.wait { challengeDone.isSet }

// 2. The hosted checkout (the sandbox's JavaScript dialect) inside the shop's window (kiosk).
sandbox.pages = .js
let hostedDone = Flag()
let hostedBuyer = PendingAnswer()
gtk_widget_set_visible(shopLabel, 0)
let hostedPresenter = WebKitPagePresenter(
    host: .container(GObjectReference(retaining: UnsafeMutableRawPointer(shopBox))),
    trust: PageTrust(configuration: configuration),
    buyer: WebBuyer { _, respond in hostedBuyer.hold(respond) })
let hostedPayment = sandbox.createPayment()
kit.startPayment(
    PaymentRequest(
        paymentId: hostedPayment.paymentId, verificationKey: hostedPayment.verificationKey,
        checkoutURL: hostedPayment.checkoutURL, returnURL: hostedPayment.shopRedirectURL), from: hostedPresenter
) { result in
    print("hosted: \(result.outcome)")
    hostedDone.set()
}
Screen.wait { hostedBuyer.isHeld }
Screen.settleAndCapture("hosted-checkout")
hostedBuyer.answer(.press(labels: ["pay"]))
Screen.wait { hostedDone.isSet }

// 3. A load failure: the issuer's page answers 500; shown as the presenter shows it, before the SDK
// (here a handler that only records) would dismiss it.
sandbox.pages = .html
gtk_widget_set_visible(shopLabel, 1)
sandbox.inject(SandboxFault(endpoint: .hostedPage, kind: .status(500), schedule: .next(1)))
final class FailureHandler: PageEventHandler {
    let failed = Flag()
    func page(decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void) {
        decisionHandler(.allow)
    }
    func pageDidFinishLoad(_ url: URL) {}
    func pageDidFailLoad(_ url: URL, reason: String) {
        print("load failure: \(reason)")
        failed.set()
    }
    func pageWasClosedByBuyer() {}
}
let failure = FailureHandler()
let failingPresenter = WebKitPagePresenter(
    host: .window(over: GObjectReference(retaining: UnsafeMutableRawPointer(app))),
    trust: PageTrust(configuration: configuration))
failingPresenter.present(
    PageRequest(url: sandbox.createPayment().checkoutURL, purpose: .hostedCheckout), handler: failure
) { _ in }
Screen.wait { failure.failed.isSet }
Screen.settleAndCapture("load-failure")
let gone = Flag()
failingPresenter.dismiss { gone.set() }
Screen.wait { gone.isSet }
gtk_window_destroy(app)
sandbox.stop()
