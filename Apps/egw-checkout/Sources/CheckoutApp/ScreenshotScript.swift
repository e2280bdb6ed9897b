internal import CCheckoutGtk
import Foundation

/// `--screenshots DIR`: the README's pictures, taken by playing a buyer on the real window: the empty
/// card form, a half-typed Amex, an invalid expiry with its error, the wallet sheet with shipping and a
/// coupon, and a result. Each step runs after the window has had time to draw.
@MainActor
final class ScreenshotScript {
    private let shop: CheckoutWindow
    private let folder: String
    private var steps: [(name: String?, act: @MainActor (CheckoutWindow) -> Void)] = []
    private var keep: [Action] = []
    private(set) var failed = false

    init(shop: CheckoutWindow, folder: String) {
        self.shop = shop
        self.folder = folder
        let sheet = { (shop: CheckoutWindow) in shop.sheet?.window }
        func click(_ name: String) -> @MainActor (CheckoutWindow) -> Void {
            { shop in if let root = sheet(shop), let widget = ckt_find(root, name) { ckt_activate(widget) } }
        }
        steps = [
            ("card-form-empty", { _ in }),
            ("card-form-half-typed-amex", { ckt_type($0.number.widget, "3782 8224") }),
            (
                "card-form-invalid-expiry",
                { shop in
                    shop.number.clear()
                    if let name = ckt_find(shop.window, "cardholder-name") { ckt_type(name, "Jane Doe") }
                    ckt_type(shop.number.widget, "4111111111111111")
                    ckt_type(shop.expiry.widget, "0120")
                    ckt_type(shop.securityCode.widget, "123")
                    shop.payByCard()
                }
            ),
            (
                nil,
                { shop in
                    shop.clearCardForm()
                    shop.payWithWallet()
                }
            ),
            (nil, click("contact-0")),
            (nil, click("method-express")),
            (
                nil,
                { shop in
                    if let root = sheet(shop), let coupon = ckt_find(root, "coupon") { ckt_type(coupon, "SAVE10") }
                }
            ),
            (nil, click("apply-coupon")),
            ("sheet-shipping-coupon", { _ in }),
            (nil, click("pay")),
            (nil, { _ in }),
            (nil, { _ in }),
            ("result-wallet-paid", { _ in }),
        ]
    }

    func start() { next() }

    private func next() {
        guard !steps.isEmpty else { return ckt_quit() }
        let step = steps.removeFirst()
        step.act(shop)
        let action = Action { [weak self] in
            guard let self else { return }
            if let name = step.name { self.save(name) }
            self.next()
        }
        keep.append(action)
        ckt_after(700, Action.callback, Unmanaged.passUnretained(action).toOpaque())
    }

    private func save(_ name: String) {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/\(name).png"
        // The sheet while it is up, else the shop.
        let root = name.hasPrefix("sheet") ? shop.sheet?.window ?? shop.window : shop.window
        if ckt_snapshot(root, path) == 0 {
            failed = true
            FileHandle.standardError.write(Data("egw-checkout: could not save \(path)\n".utf8))
        } else {
            print("saved \(path)")
        }
    }
}
