import Foundation
import HeadlessBrowser
import PaymentFlow
import ReplShell
import Synchronization
import WebKitPresenter

/// The shell's WebKitGTK side (see ``WebKitSupport``): GTK's loop, the WebKit window, page snapshots.
package struct WebKitShell: WebKitSupport {
    package init() {}

    @MainActor package func start() -> String? {
        do {
            try GTKMainLoop.start()
            return nil
        } catch {
            return error.reason
        }
    }

    package func eventLoop() -> EventLoop {
        let woken = WakeFlag()
        return EventLoop(
            callbackQueue: .main, wake: { DispatchQueue.main.async { woken.raise() } },
            wait: { seconds in
                GTKMainLoop.run(timeout: .milliseconds(Int64(seconds * 1000))) { woken.lower() }
            })
    }

    package func windowPresenter(
        script: BuyerScript, configuration: PaymentFlow.Configuration, screenshots: URL?,
        saved: @escaping @Sendable (URL) -> Void
    ) -> any PaymentPresenter {
        WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(configuration: configuration), buyer: WebBuyer(script),
            options: .init(screenshotsDirectory: screenshots),
            onEvent: { event in
                if case .screenshot(let file) = event { saved(file) }
            })
    }

    package func snapshot(_ page: LoadedPage, into directory: URL, completion: @escaping @Sendable (URL?) -> Void) {
        PageSnapshotter(directory: directory).save(
            html: page.html, baseURL: page.url, title: page.title ?? "", completion: completion)
    }
}

/// A wake-up the GTK wait checks after each event: raised by the loop's wake, lowered by the wait.
private final class WakeFlag: Sendable {
    private let raised = Atomic(false)
    func raise() { raised.store(true, ordering: .releasing) }
    /// Whether it was raised (and lowers it).
    func lower() -> Bool { raised.exchange(false, ordering: .acquiringAndReleasing) }
}
