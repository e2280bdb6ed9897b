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
        let sandboxStart = options.sandbox ? SandboxStart() : nil  // begun after the first frame
        var gtkProblem: String?
        // Before GTK opens the display: the name a screen reader announces for the application.
        ckt_set_application_name("egw-checkout", "EGW shop")
        // Headless pages too: GTKMainLoop's start-up environment (no shader cache on disk, no GL shaders
        // to compile for a software-rendered first frame) is the shop's as well.
        do throws(WebKitPresenterError) {
            try GTKMainLoop.start()
        } catch {
            gtkProblem = options.browser == .webkit ? "egw-checkout: \(error)\n" : ""
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
            let measuring = options.measure != nil
            let onPageEvent: (@Sendable (WebKitPagePresenter.Event) -> Void)? =
                measuring ? { @Sendable event in CheckoutMeasure.pageEvent(event) } : nil
            shop = try CheckoutWindow(
                options: options, buyer: measuring ? CheckoutWindow.sandboxBuyer : nil, onPageEvent: onPageEvent,
                sandboxStart: sandboxStart)
        } catch {
            FileHandle.standardError.write(
                Data("egw-checkout: could not start (the sandbox, or GTK for WebKit): \(error)\n".utf8))
            return 1
        }
        let gtkWindow = shop.window.assumingMemoryBound(to: GtkWidget.self)
        let quit = Action { GTKRuntime.quit() }
        ckt_on_close(gtkWindow, Action.callback, Unmanaged.passUnretained(quit).toOpaque())
        let shown = Action {
            sandboxStart?.begin()
            if options.exitWhenShown && options.measure == nil {
                print(
                    String(format: "egw-checkout: first frame after %.0f ms", Date().timeIntervalSince(started) * 1000))
                GTKRuntime.quit()
                return
            }
            // Wait for the sandbox only after this frame is painted (a main-queue block runs after the
            // frame clock's paint).
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    do {
                        try shop.finishStarting()
                    } catch {
                        FileHandle.standardError.write(
                            Data("egw-checkout: could not start the sandbox: \(error)\n".utf8))
                        exit(1)
                    }
                    if let measurement = options.measure { CheckoutMeasure.start(measurement, shop: shop) }
                }
            }
        }
        ckt_on_first_frame(gtkWindow, Action.callback, Unmanaged.passUnretained(shown).toOpaque())
        shop.present()
        GTKRuntime.runUntilQuit()
        // A sandbox still starting uses libcrypto, which exit's handlers tear down: let it finish first.
        try? shop.finishStarting()
        _ = (quit, shown)
        return 0
    }
}
