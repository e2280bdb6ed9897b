internal import CWebKitShim
import Foundation
@_spi(GTK) internal import GLibMainQueue
import PaymentFlow
import Synchronization

/// A `PaymentPresenter` that shows the SDK's pages (the issuer's 3-D Secure
/// challenge, the hosted checkout) in a real WebKitGTK 6 web view, so a
/// person, or a scripted ``WebBuyer``, can answer them.
///
/// Where a page appears (``Host``): made with the app's parent `GtkWindow`
/// (the `from:` of the iOS SDK), each page opens as a modal window transient
/// for it, titled with the page's title and its origin so the buyer sees
/// whose page it is, and closed by the buyer with the window's close button
/// or Escape (`pageWasClosedByBuyer`). Made with a container widget (a
/// `GtkBox`, or a `GtkWindow` whose child it becomes), the page shows inside
/// the app's own window (a kiosk).
///
/// What it guarantees for one page:
/// - Every navigation, the first included (a form POST for the challenge),
///   is asked of the SDK's `PageEventHandler` before anything loads, and
///   waits for the answer without blocking the GTK thread; after `.cancel`
///   nothing is loaded and nothing more is reported (so the return URL and
///   the notification URL are never loaded once the SDK cancels them).
/// - Pop-ups (`target=_blank`, `window.open`) load in the same view, through
///   the same decision; no other window is ever opened.
/// - A load failure, a main-frame HTTP status of 400 or more, a refused TLS
///   certificate or a pin mismatch is `pageDidFailLoad`; after it the page
///   loads nothing more.
/// - Trust follows ``PageTrust`` (the kit's configuration), not WebKit's defaults.
/// - Nothing on disk: every page gets its own ephemeral network session
///   (cookies, cache, local storage and HSTS live in memory for the page's
///   life), dropped when the page is dismissed.
/// - With a ``WebBuyer``, the buyer is asked about every page that loaded
///   and acts on it through the page's own inputs and buttons; without one,
///   a person uses the window.
///
/// Threading: GTK must be started with ``GTKMainLoop/start()`` and its loop
/// must run on that thread (an app's `g_main_loop_run` or
/// `g_application_run`, or ``GTKMainLoop/run(timeout:until:)``). `present`
/// and `dismiss` may be called from any thread; their work and every call of
/// the handler happen on the GTK thread, and completions are called there.
/// With ``GTKMainLoop/start()``, a kit whose `callbackQueue` is `.main`
/// calls this presenter on the GTK thread.
///
/// ```swift
/// try GTKMainLoop.start()
/// let host = WebKitPagePresenter.Host.window(over: GObjectReference(retaining: parentWindow))
/// let presenter = WebKitPagePresenter(host: host, trust: PageTrust(configuration: configuration))
/// kit.startCardPayment(request, card: card, from: presenter) { result in ... }
/// ```
public final class WebKitPagePresenter: PaymentPresenter, Sendable {
    /// Where pages appear.
    ///
    /// The host keeps a reference to the app's widget (GLibMainQueue's `GObjectReference`), given back
    /// on the GTK thread when the last presenter holding it goes.
    public struct Host: Sendable {
        enum Storage {
            case window(parent: GObjectReference?)
            case container(GObjectReference)
        }

        let storage: Storage

        /// Each page in a window of its own, transient for nothing (a command-line tool, a test).
        public static let ownWindow = Host(storage: .window(parent: nil))

        /// Each page in a modal window transient for `parent`, a `GtkWindow` the app owns
        /// (`GObjectReference(retaining: window)`).
        public static func window(over parent: GObjectReference) -> Host {
            Host(storage: .window(parent: parent))
        }

        /// Each page inside `container`, a `GtkBox` (appended, expanding) or a `GtkWindow` (its child
        /// while the page shows). The buyer closes such a page only through the app (or the
        /// ``WebBuyer``).
        public static func container(_ container: GObjectReference) -> Host {
            Host(storage: .container(container))
        }

        /// Each page in a modal window transient for `parent`, a `GtkWindow *`
        /// the app owns; `nil` for a window of its own (a command-line tool).
        @available(*, deprecated, message: "use .window(over: GObjectReference(retaining: parent)) or .ownWindow")
        public static func window(_ parent: UnsafeMutableRawPointer?) -> Host {
            Host(storage: .window(parent: parent.map(GObjectReference.init(retaining:))))
        }

        /// Each page inside `container`, a `GtkBox *` (appended, expanding) or
        /// a `GtkWindow *` (its child while the page shows). The buyer closes
        /// such a page only through the app (or the ``WebBuyer``).
        @available(*, deprecated, message: "use .container(GObjectReference(retaining: container))")
        public static func container(_ container: UnsafeMutableRawPointer) -> Host {
            Host(storage: .container(GObjectReference(retaining: container)))
        }
    }

    /// How pages are shown.
    public struct Options: Sendable {
        /// The page window's default size, in pixels. Default 720 × 640.
        public var windowSize: (width: Int, height: Int)
        /// When set, a PNG of every page state the buyer saw is saved there,
        /// numbered in order: `01-<title>.png`, `02-...` (the title reduced to
        /// letters and dashes: no digit, so never a card number), after the
        /// highest number already there, so presenters sharing a directory
        /// never overwrite each other's files. The directory must exist.
        public var screenshotsDirectory: URL?

        /// Creates options.
        public init(windowSize: (width: Int, height: Int) = (720, 640), screenshotsDirectory: URL? = nil) {
            self.windowSize = windowSize
            self.screenshotsDirectory = screenshotsDirectory
        }
    }

    /// What the presenter did, for logs and tests. Never carries a typed code: URLs come without
    /// their query and fragment (a GET form puts what was typed in the query; the handler alone
    /// hears the full URL), actions as ``PageAction/description`` shows them.
    public enum Event: Sendable, Equatable {
        /// A page was shown (`url` is its first URL).
        case presented(URL)
        /// The SDK answered a navigation.
        case decided(URL, NavigationDecision)
        /// The page's script sent a request that is not a `GET` or `HEAD` (`fetch`, XHR, a beacon),
        /// reported to the SDK as `PageSentRequest` (PaymentFlow) before it left.
        case sentRequest(URL, method: String)
        /// A navigation was refused by ``PageTrust`` or because the page had stopped, or a connection by
        /// the kit's trust (`reason` names the pin, chain or TLS version); or the page tried to reach past
        /// its window (a download, a JavaScript dialog, a new window: `reason` is the `PageRefusal`'s
        /// description, URL queries cut, no page text), also reported as `PageEventHandler.page(didRefuse:)`.
        case refused(URL, reason: String)
        /// A connection to `host` passed the kit's trust (the page relay's libcurl handshake): WebKit may
        /// accept the relay's certificate for it. Once per host and page.
        case certificateAdmitted(host: String)
        /// GTK painted the first frame after the page at this URL finished loading
        /// (the frame clock's after-paint): what `make bench` times.
        case painted(URL)
        /// The buyer was asked about a rendered page.
        case buyerAsked(URL)
        /// The buyer acted (see ``PageAction/description``).
        case buyerActed(String)
        /// A screenshot was saved.
        case screenshot(URL)
        /// The page was dismissed.
        case dismissed
    }

    private let host: Host
    private let trust: PageTrust
    private let buyer: WebBuyer?
    private let options: Options
    private let onEvent: (@Sendable (Event) -> Void)?
    private let presenting = Atomic(false)
    /// The pages and the screenshot count, on the GTK thread (the main actor).
    let pages = PresenterPages()

    /// Creates a presenter.
    ///
    /// - Parameters:
    ///   - host: where pages appear.
    ///   - trust: what pages may load; use `PageTrust(configuration:)` with the kit's configuration.
    ///   - buyer: a scripted buyer; `nil` lets a person use the window.
    ///   - options: window size and screenshots.
    ///   - onEvent: observes what the presenter does; called on the GTK thread.
    public init(
        host: Host, trust: PageTrust, buyer: WebBuyer? = nil, options: Options = .init(),
        onEvent: (@Sendable (Event) -> Void)? = nil
    ) {
        self.host = host
        self.trust = trust
        self.buyer = buyer
        self.options = options
        self.onEvent = onEvent
    }

    deinit {
        // The pages go with the presenter (a method the flow never ended): their views and sessions
        // are dropped on the GTK thread, reporting nothing more.
        guard GTKMainLoop.isStarted else { return }
        let pages = pages
        onGTKThread {
            for page in [pages.page, pages.methodPage].compactMap({ $0 }) { page.tearDown(reporting: false) }
            (pages.page, pages.methodPage) = (nil, nil)
        }
    }

    /// Whether a page is shown (from any thread).
    public var isPresenting: Bool { presenting.load(ordering: .acquiring) }

    /// Shows `page` (see the type's documentation); `completion(false)` when
    /// GTK was not started or a page is already shown.
    public func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void)
    {
        guard GTKMainLoop.isStarted else {
            completion(false)
            return
        }
        onGTKThread { [self] in
            guard pages.page == nil else {
                completion(false)
                return
            }
            let shown = WebPage(request: page, handler: handler, presenter: self)
            pages.page = shown
            presenting.store(true, ordering: .releasing)
            shown.show(in: host, size: windowSize(for: page))
            emit(.presented(page.url))
            completion(true)
            shown.start()
        }
    }

    /// Removes the page, ignores the navigations still waiting for an answer,
    /// and drops its session; `completion` runs on the GTK thread once the
    /// window (or the view in the container) is gone.
    public func dismiss(completion: @escaping @Sendable () -> Void) {
        guard GTKMainLoop.isStarted else {
            completion()
            return
        }
        onGTKThread { [self] in
            if let page = pages.page {
                page.tearDown()
                pages.page = nil
                presenting.store(false, ordering: .releasing)
                emit(.dismissed)
            }
            completion()
        }
    }

    // MARK: For the page (GTK thread)

    var trustRules: PageTrust { trust }
    var pageHost: Host { host }
    var pageOptions: Options { options }
    var scriptedBuyer: WebBuyer? { buyer }
    var wantsScreenshots: Bool { options.screenshotsDirectory != nil }

    func emit(_ event: Event) { onEvent?(event.withoutQueries) }

    /// The next screenshot's file for a page titled `title`.
    @MainActor func nextScreenshotFile(title: String) -> URL? {
        guard let directory = options.screenshotsDirectory else { return nil }
        let number =
            (pages.screenshotCount
                ?? ScreenshotName.highestNumber(
                    in: (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])) + 1
        pages.screenshotCount = number
        return directory.appendingPathComponent(ScreenshotName.file(number: number, title: title))
    }
}

/// What a presenter keeps on the GTK thread (the main actor): the shown page, the invisible 3DS
/// Method page (ThreeDSMethodPage.swift) and how many screenshots it saved.
@MainActor
final class PresenterPages {
    var page: WebPage?
    var methodPage: WebPage?
    var screenshotCount: Int?

    nonisolated init() {}
}

/// Screenshot file names: `NN-<title>.png`, the title reduced to lower-case
/// ASCII letters and single dashes. Digits are dropped, all of them: a card
/// number, grouped or not, never reaches a file name.
enum ScreenshotName {
    static func file(number: Int, title: String) -> String {
        var slug = ""
        for scalar in title.lowercased().unicodeScalars where !("0"..."9").contains(scalar) {
            if ("a"..."z").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        let numbered = number < 10 ? "0\(number)" : "\(number)"
        return "\(numbered)-\(slug.isEmpty ? "page" : String(slug.prefix(60))).png"
    }

    /// The highest `NN` of the `NN-<title>.png` files among `names`, 0 when there is none.
    static func highestNumber(in names: [String]) -> Int {
        names.compactMap { name -> Int? in
            guard name.hasSuffix(".png"), let dash = name.firstIndex(of: "-") else { return nil }
            return Int(name[..<dash])
        }.max() ?? 0
    }
}

extension WebKitPagePresenter.Event {
    /// The event with every URL cut before its query.
    var withoutQueries: Self {
        func cut(_ url: URL) -> URL {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                components.query != nil || components.fragment != nil
            else { return url }
            components.query = nil
            components.fragment = nil
            return components.url ?? url
        }
        switch self {
        case .presented(let url): return .presented(cut(url))
        case .decided(let url, let decision): return .decided(cut(url), decision)
        case .sentRequest(let url, let method): return .sentRequest(cut(url), method: method)
        case .refused(let url, let reason): return .refused(cut(url), reason: reason)
        case .painted(let url): return .painted(cut(url))
        case .buyerAsked(let url): return .buyerAsked(cut(url))
        case .certificateAdmitted, .buyerActed, .screenshot, .dismissed: return self
        }
    }
}
