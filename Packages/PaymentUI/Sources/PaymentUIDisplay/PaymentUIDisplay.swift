internal import CPaymentUIGtk
internal import GLibMainQueue

/// PaymentUI's one way onto a display: GTK started through GLibMainQueue's `GTKRuntime` (the SDK's one
/// `gtk_init_check`, on the main thread), then PaymentUI's two contrast rules installed once for the
/// display (error text and the focus ring, at `GTK_STYLE_PROVIDER_PRIORITY_APPLICATION - 1`). The card
/// entries, the sheet window and `UITest` all start here. Not a product: shared by PaymentUI's targets.
package enum PaymentUIDisplay {
    /// Whether GTK runs here and PaymentUI's rules are installed (false without a display, or off the main
    /// thread).
    package static func start() -> Bool {
        (try? GTKRuntime.start()) != nil && egwui_styled() != 0
    }
}
