import Foundation
import HeadlessBrowser
import PaymentFlow

/// What the shell needs from WebKitGTK for `--browser webkit` and `--screenshots`.
///
/// `egw-repl` itself links no GTK or WebKit: loading WebKitGTK's libraries costs about 150 ms of
/// the dynamic loader's symbol binding and 40 MB of memory at every start, against the start-up
/// targets of 150 ms and 40 MB (issue 6). So the WebKit side lives in the `ReplWebKit` target and
/// its own program, `egw-repl-webkit`, which passes it to ``Launcher/run(arguments:webKit:)``;
/// `egw-repl` given either flag runs that program in its place (same arguments), found beside it.
package protocol WebKitSupport: Sendable {
    /// Starts GTK on the main thread; `nil` when it runs, otherwise why it cannot (no display).
    @MainActor func start() -> String?
    /// The wait that turns GTK's main loop (with the main queue bridged into it) while a payment runs.
    func eventLoop() -> EventLoop
    /// A WebKitGTK window driven by `script`, for pages that may load what `configuration` allows.
    /// `screenshots`: where each page is saved as it is shown; `saved` hears of every file.
    func windowPresenter(
        script: BuyerScript, configuration: PaymentFlow.Configuration, screenshots: URL?,
        saved: @escaping @Sendable (URL) -> Void
    ) -> any PaymentPresenter
    /// Saves `page` (as the headless browser loaded it) as WebKit renders it into `directory`, then
    /// calls `completion` with the file (`nil`: not rendered).
    func snapshot(_ page: LoadedPage, into directory: URL, completion: @escaping @Sendable (URL?) -> Void)
}
