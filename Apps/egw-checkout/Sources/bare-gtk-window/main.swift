import BuyerText
import CCheckoutGtk
import Foundation
import ShopWindowLayout

// The baseline egw-checkout's start-up is measured against: a GTK 4 window, quit after its first frame, in the
// same way (`--exit-when-shown`), with GTK's defaults (its GL renderer, Mesa's shader cache on disk as any GTK
// app has it). Without arguments an empty window; `--shop` the shop's own widgets (the same GtkBuilder
// description, with three plain entries where the SDK's card entries go and the cart's lines), drawn with
// nothing of the SDK; `--second-window` then also opens a second such window once the first is drawn and
// prints the time to its first frame (the baseline of the wallet sheet, a window opened in a running app).
// A measuring instrument, not the product: it starts GTK and turns GLib's loop itself (gtk_init_check,
// g_main_loop_run) where egw-checkout goes through GLibMainQueue's GTKRuntime, the SDK's one GTK edge.
let started = Date()
let arguments = CommandLine.arguments.dropFirst()
let shop = arguments.contains("--shop") || arguments.contains("--second-window")
let second = arguments.contains("--second-window")
guard gtk_init_check() != 0 else {
    FileHandle.standardError.write(Data("bare-gtk-window: no display\n".utf8))
    exit(1)
}

@MainActor func makeWindow() -> UnsafeMutablePointer<GtkWidget> {
    guard shop else {
        let window = gtk_window_new()!
        gtk_window_set_title(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self), "bare")
        return window
    }
    let builder = ckt_builder(ShopWindowUI.xml(BuyerText.current, items: 2))
    for line in ["Book: €12.50", "Mug: €8.00"] { ckt_append(ckt_widget(builder, "cart"), ckt_label_new(line)) }
    ckt_set_text(ckt_widget(builder, "cart-total"), "Total: €20.50")
    ckt_append(ckt_widget(builder, "card-number-slot"), gtk_entry_new())
    ckt_append(ckt_widget(builder, "card-details-slot"), gtk_entry_new())
    ckt_append(ckt_widget(builder, "card-details-slot"), gtk_entry_new())
    return ckt_widget(builder, "window")
}

@MainActor
final class Step {
    let run: @MainActor () -> Void
    init(_ run: @escaping @MainActor () -> Void) { self.run = run }
    static let callback: ckt_fn = { context in
        guard let context else { return }
        let step = Unmanaged<Step>.fromOpaque(context).takeUnretainedValue()
        MainActor.assumeIsolated { step.run() }
    }
}
var steps: [Step] = []
@MainActor func onFirstFrame(_ window: UnsafeMutablePointer<GtkWidget>, _ body: @escaping @MainActor () -> Void) {
    let step = Step(body)
    steps.append(step)
    ckt_on_first_frame(window, Step.callback, Unmanaged.passUnretained(step).toOpaque())
}

let loop = g_main_loop_new(nil, 0)
let window = makeWindow()
onFirstFrame(window) {
    print(String(format: "bare-gtk-window: first frame after %.0f ms", Date().timeIntervalSince(started) * 1000))
    guard second else { return g_main_loop_quit(loop) }
    let asked = Date()
    let other = makeWindow()
    onFirstFrame(other) {
        print(
            String(
                format: "bare-gtk-window: second window first frame after %.0f ms",
                Date().timeIntervalSince(asked) * 1000))
        g_main_loop_quit(loop)
    }
    ckt_present(other)
}
ckt_present(window)
g_main_loop_run(loop)
