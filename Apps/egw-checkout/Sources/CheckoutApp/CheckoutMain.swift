internal import CCheckoutGtk
import Foundation
import WebKitPresenter

/// egw-checkout's life: the window, GTK's main loop, and the two non-interactive modes.
public enum CheckoutMain {
    /// Runs the shop until its window closes; the process's exit status.
    @MainActor
    public static func run(_ options: CheckoutOptions, started: Date) -> Int32 {
        // WebKit's pages need GTK started by GTKMainLoop (it also keeps Mesa's shader cache off disk).
        // GTK is initialised once: a second gtk_init_check after a failed one crashes.
        var gtkProblem: String?
        // Before GTK opens the display: the name a screen reader announces for the application.
        ckt_set_application_name("egw-checkout", "EGW shop")
        if options.browser == .webkit {
            do throws(WebKitPresenterError) {
                try GTKMainLoop.start()
            } catch {
                gtkProblem = "egw-checkout: \(error)\n"
            }
        } else if ckt_init() == 0 {
            gtkProblem = ""
        }
        if let gtkProblem {
            FileHandle.standardError.write(
                Data(
                    """
                    \(gtkProblem)egw-checkout: no display. Run it on a desktop, or on a virtual one:
                      make screenshots   # plays a buyer on the real window under Xvfb, PNGs in docs/screenshots

                    """.utf8))
            return 1
        }
        let shop: CheckoutWindow
        do {
            shop = try CheckoutWindow(options: options)
        } catch {
            FileHandle.standardError.write(
                Data("egw-checkout: could not start (the sandbox, or GTK for WebKit): \(error)\n".utf8))
            return 1
        }
        let gtkWindow = shop.window.assumingMemoryBound(to: GtkWidget.self)
        let quit = Action { ckt_quit() }
        ckt_on_close(gtkWindow, Action.callback, Unmanaged.passUnretained(quit).toOpaque())
        let shown = Action {
            if options.exitWhenShown {
                print(
                    String(format: "egw-checkout: first frame after %.0f ms", Date().timeIntervalSince(started) * 1000))
                ckt_quit()
            }
        }
        ckt_on_first_frame(gtkWindow, Action.callback, Unmanaged.passUnretained(shown).toOpaque())
        shop.present()
        ckt_run()
        _ = (quit, shown)
        return 0
    }
}
