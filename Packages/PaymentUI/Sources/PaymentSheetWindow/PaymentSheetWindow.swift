import BuyerText
internal import CGtk4
internal import CPaymentUIGtk
import Dispatch
import Foundation
@_spi(GTK) import GLibMainQueue
import PaymentAuthorization
internal import PaymentUIDisplay

/// The payment sheet as a GTK 4 window: a `WalletSheetPresenter` that shows each
/// `WalletSheet` in a window modal over the app's window, and passes the buyer's
/// clicks to the sheet's controller.
///
/// ```swift
/// let sheet = PaymentSheetWindow(over: GObjectReference(retaining: appWindow))
/// let context = WalletPaymentContext(paymentRequest: request, sheetPresenter: sheet, ...)
/// context?.present { result in ... }   // on the main queue, after the window is gone
/// ```
///
/// What it shows: the summary items and the total formatted for the currency's exponent; the shipping
/// methods, the wallet's contacts (city and country only: the sheet never has more before
/// authorization) and cards (masked, `Visa •••• 1111`) as radio buttons; a coupon field; Pay and
/// Cancel. While the delegate answers, every control but Cancel is insensitive and a spinner runs. The
/// delegate's errors are shown beside the part they name (contact, card, coupon), others below. The
/// status the delegate answered is shown for ``Options/statusDuration`` before the controller is told:
/// "Payment complete", "Payment failed", or for `.unresolved` (a payment in doubt: the gateway may have
/// taken the money) "We are confirming your payment" and a line not to pay again, never the failure's
/// words.
///
/// Keyboard: Tab moves between controls, Space/Enter activates them, Enter in the coupon field applies
/// it, Escape (like closing the window) cancels. Every control has an accessible name.
///
/// Stable widget names, for UI tests and accessibility tools: `pay`, `cancel`, `coupon`, `apply-coupon`,
/// `method-<identifier>`, `contact-<index>`, `card-<index>`, `total`, `status`, `error-contact`,
/// `error-card`, `error-coupon`, `error-general`.
///
/// Threading: GTK's thread (the main thread). The presenter methods may be called from any thread: they
/// hop to the main queue, which GTK's main loop drains through GLibMainQueue's bridge (installed by `init`:
/// the one source WebKitPresenter's `GTKMainLoop.start()` installs too).
@MainActor
public final class PaymentSheetWindow {
    /// How the window behaves.
    public struct Options: Sendable {
        /// How long the authorization's status stays on screen before the controller goes on, in seconds.
        public var statusDuration: TimeInterval = 1.2

        /// The defaults.
        public init() {}
    }

    private let parent: GObjectReference?
    private let options: Options
    private var ui: SheetWidgets?
    private var buyer: (any WalletSheetBuyer)?
    private var current: WalletSheet?
    private var rendering = false
    /// How many renderings were drawn (tests wait on it).
    private(set) var renderings = 0

    /// How many times a sheet was shown in this window object.
    public private(set) var presentations = 0
    /// The last reply to a buyer's action taken in the window.
    public private(set) var lastReply: SheetBuyerReply?

    /// A window object whose sheets are plain modal windows; nothing is shown until the controller
    /// presents a sheet. Installs GLibMainQueue's bridge (`GLibMainQueue.install()`; nothing when it is
    /// already installed).
    public convenience init(options: Options = Options()) {
        self.init(parentReference: nil, options: options)
    }

    /// A window object whose sheets are modal over `parent`, the app's `GtkWindow`
    /// (`GObjectReference(retaining: window)`, held while this object lives); otherwise as
    /// ``init(options:)``.
    public convenience init(over parent: GObjectReference, options: Options = Options()) {
        self.init(parentReference: parent, options: options)
    }

    /// A window object; nothing is shown until the controller presents a sheet. `parent` is the app's
    /// `GtkWindow *` the sheet is modal over (nil: a plain modal window). Installs GLibMainQueue's bridge
    /// (`GLibMainQueue.install()`; nothing when it is already installed).
    @available(*, deprecated, message: "use init(over: GObjectReference(retaining: parent)) or init(options:)")
    public init(parent: UnsafeMutableRawPointer? = nil, options: Options = Options()) {
        self.parent = parent.map(GObjectReference.init(retaining:))
        self.options = options
        GLibMainQueue.install()
    }

    private init(parentReference: GObjectReference?, options: Options) {
        parent = parentReference
        self.options = options
        GLibMainQueue.install()
    }

    /// The sheet's window while it is shown, else nil (a new reference at each call).
    public var windowReference: GObjectReference? {
        ui.map { GObjectReference(retaining: UnsafeMutableRawPointer($0.window)) }
    }

    /// The sheet's `GtkWindow *` while it is shown, else nil.
    @available(*, deprecated, message: "use windowReference (GLibMainQueue's GObjectReference)")
    public var window: UnsafeMutableRawPointer? { ui.map { UnsafeMutableRawPointer($0.window) } }
    /// The rendering shown last.
    public var sheet: WalletSheet? { current }
    /// Whether a sheet is on screen.
    public var isPresenting: Bool { ui != nil }

    // MARK: - Showing

    private func show(_ sheet: WalletSheet, buyer: any WalletSheetBuyer) -> Bool {
        guard ui == nil, PaymentUIDisplay.start() else { return false }
        let widgets = SheetWidgets(parent: parent?.pointer.assumingMemoryBound(to: GtkWidget.self), owner: self)
        ui = widgets
        self.buyer = buyer
        presentations += 1
        render(sheet)
        egwui_window_present(widgets.window)
        return true
    }

    private func dismiss() {
        guard let widgets = ui else { return }
        ui = nil
        buyer = nil
        widgets.close()
    }

    func perform(_ action: SheetBuyerAction) {
        guard let buyer, let widgets = ui else { return }
        let reply = buyer.perform(action)
        lastReply = reply
        if reply != .accepted, let sheet = current {
            render(sheet)  // puts the radio buttons back on what the sheet has selected
            if let message = SheetText.reply(reply) { widgets.setError(message, in: .general) }
        }
    }

    func selected(_ check: UnsafeMutablePointer<GtkWidget>, _ action: SheetBuyerAction) {
        guard !rendering, egwui_check_active(check) != 0 else { return }
        perform(action)
    }

    private func render(_ sheet: WalletSheet) {
        current = sheet
        renderings += 1
        guard let widgets = ui else { return }
        rendering = true
        defer { rendering = false }
        widgets.render(sheet)
    }

    private func showStatus(_ status: PaymentAuthorizationStatus, sheet: WalletSheet) {
        render(sheet)
        ui?.showStatus(status)
    }
}

extension PaymentSheetWindow: WalletSheetPresenter {
    /// Shows `sheet` in a new window (`completion(false)` when one is already up or there is no display).
    nonisolated public func presentSheet(
        _ sheet: WalletSheet, buyer: any WalletSheetBuyer, completion: @escaping @Sendable (Bool) -> Void
    ) {
        Self.onGTK { completion(self.show(sheet, buyer: buyer)) }
    }

    /// Shows the new rendering.
    nonisolated public func update(_ sheet: WalletSheet) {
        Self.onGTK { self.render(sheet) }
    }

    /// Shows the status, then calls `completion` after ``Options/statusDuration``.
    nonisolated public func showStatus(
        _ status: PaymentAuthorizationStatus, on sheet: WalletSheet, completion: @escaping @Sendable () -> Void
    ) {
        Self.onGTK {
            self.showStatus(status, sheet: sheet)
            let milliseconds = Int64(max(0, self.options.statusDuration) * 1000)
            guard milliseconds > 0 else { return completion() }
            GTKRuntime.after(.milliseconds(milliseconds), completion)
        }
    }

    /// Destroys the window; `completion` once it is gone.
    nonisolated public func dismissSheet(completion: @escaping @Sendable () -> Void) {
        Self.onGTK {
            self.dismiss()
            completion()
        }
    }

    /// Runs `body` on GTK's thread, which is the main thread (GTKRuntime's rule): now when already
    /// there, else through GTKRuntime's one hop.
    nonisolated private static func onGTK(_ body: @escaping @MainActor @Sendable () -> Void) {
        GTKRuntime.perform { MainActor.assumeIsolated(body) }
    }
}
