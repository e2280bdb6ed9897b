import Foundation
import PaymentFlow

/// A `PaymentPresenter` with no screen: a small browser that really loads the
/// pages over an `HTTPTransport` (libcurl by default), follows redirects,
/// keeps cookies, submits forms, and lets a ``BuyerScript`` play the buyer.
/// Tests, the REPL and integrators' automated checks use it.
///
/// What it does for one presented page:
/// - Before every navigation (the first load, each redirect hop, each form
///   submission) it asks the handler's `page(decidePolicyFor:decisionHandler:)` with the method and loads
///   nothing when the answer is `.cancel`; after a cancelled navigation the
///   page stays as it was and the browser takes no further action on it.
/// - Redirects are followed by the browser itself, one reported hop at a
///   time (at most ``Options/maxRedirects``): 301/302 turn a POST into a GET,
///   303 turns anything into a GET, 307/308 keep method and body.
/// - Cookies (`Set-Cookie` name=value, `Path`, `Domain`, `Secure`,
///   `Max-Age`) are kept for the presentation and sent back; a new
///   presentation starts with an empty jar.
/// - A response with status 400 or more, a transport failure, or too many
///   redirects reports `pageDidFailLoad`; the page then takes no further action.
/// - A loaded page reports `pageDidFinishLoad`; then:
///   - a page that submits itself (``LoadedPage/autoSubmitFormIndex``: a
///     form of hidden inputs, `<body onload>` or an inline script calling
///     `submit()`, how an issuer hands the buyer back to the notification
///     URL) is submitted by the browser, as a browser running the script
///     would, without asking the buyer. At most
///     ``Options/maxAutomaticSubmissions`` in a row (a page the buyer is
///     asked about starts the count again); one more is a load failure "too
///     many automatic form submissions";
///   - the notification page (marked `3ds-notification`, or reached by
///     submitting a 3-D Secure result, `cres` or `PaRes`, whatever it looks
///     like; its ``LoadedPage/kind`` is then `.notification`) is left alone:
///     the SDK ends the challenge there;
///   - any other page, a page that needs JavaScript included
///     (``LoadedPage/needsJavaScript``), goes to the buyer script, and the
///     browser performs the answer (see ``BuyerAction``). An action the page
///     cannot satisfy (no such button, no code field) is reported as a load
///     failure whose reason names the action (never a typed code).
/// - Pages are read as ``LoadedPage/init(url:status:html:)`` says: the
///   sandbox's `egw-page` markers when present, else what the page's forms
///   and scripts show. Any gateway's plain HTML works; JavaScript never runs.
/// - A typed challenge code never appears in a ``BrowserEvent``: the
///   `.buyerAction` event carries `challenge(code: "••••")`, and when a code
///   goes out in a GET form's query, the events and the ``LoadedPage/url`` of
///   the page it leads to show that query item as `••••`, and so does every
///   URL derived from that one that keeps its query (a redirect to `#x`, the
///   page's forms without `action` and their submissions); the handler hears
///   the real URLs.
///
/// Threading: `present`, `dismiss` and the accessors may be called from any
/// thread. Completions, handler calls and ``BrowserEvent``s are delivered on
/// one private serial queue, in order; the buyer script runs on a global
/// queue. The handler is held strongly until `dismiss`. After `dismiss` is
/// called the handler hears nothing more, except a call already under way,
/// which finishes before the `dismiss` completion runs; in-flight loads are
/// abandoned (their results are dropped). A load whose transport does not
/// answer within ``Options/pageTimeout`` (and a few seconds' grace) fails
/// as a timed-out load.
///
/// Inside, every decision is a value machine's (`BrowserSession`: what the page
/// is doing, its cookies, the answer it awaits, by token); a small executor
/// performs its effects on the browser's queue.
///
/// ```swift
/// let presenter = HeadlessBrowserPresenter(script: .answering(hosted: .pay, challengeCode: "1234"))
/// kit.startPayment(request, from: presenter) { result in ... }
/// ```
public final class HeadlessBrowserPresenter: PaymentPresenter {
    /// Limits for page loads.
    public struct Options: Sendable {
        /// The total time allowed for each page load, in seconds. Default 30.
        public var pageTimeout: TimeInterval
        /// The most redirects followed after one navigation. Default 10.
        public var maxRedirects: Int
        /// The most automatic form submissions in a row before the page is
        /// reported as failed with "too many automatic form submissions"
        /// (guards against pages that submit forever). Default 10.
        public var maxAutomaticSubmissions: Int

        /// Creates options.
        public init(pageTimeout: TimeInterval = 30, maxRedirects: Int = 10, maxAutomaticSubmissions: Int = 10) {
            self.pageTimeout = pageTimeout
            self.maxRedirects = max(0, maxRedirects)
            self.maxAutomaticSubmissions = max(0, maxAutomaticSubmissions)
        }
    }

    private let executor: BrowserExecutor
    /// The invisible 3DS Method page: a second browser on the same transport, whose buyer never acts
    /// (it only submits what a page submits by itself).
    private let methodExecutor: BrowserExecutor
    /// The `User-Agent` its loads carry.
    private let userAgent: String

    /// Creates a browser presenter.
    ///
    /// - Parameters:
    ///   - script: plays the buyer on every page that is not auto-submitted.
    ///   - transport: loads the pages; a default `CurlTransport` (PaymentFlow's) when omitted (no pins, the system's
    ///     certificate authorities, `http` allowed): for tests. An app passes its kit's configuration
    ///     (``init(script:configuration:options:onEvent:)``).
    ///   - options: page-load limits.
    ///   - onEvent: observes what the browser does (see ``BrowserEvent``).
    public init(
        script: BuyerScript,
        transport: any HTTPTransport = CurlTransport(),
        options: Options = Options(),
        onEvent: (@Sendable (BrowserEvent) -> Void)? = nil
    ) {
        let settings = BrowserSession.Settings(
            pageTimeout: options.pageTimeout, maxRedirects: options.maxRedirects,
            maxAutomaticSubmissions: options.maxAutomaticSubmissions)
        executor = BrowserExecutor(
            session: BrowserSession(settings: settings), script: script, transport: transport, onEvent: onEvent)
        methodExecutor = BrowserExecutor(
            session: BrowserSession(settings: settings), script: .always(.wait), transport: transport, onEvent: onEvent)
        userAgent = (transport as? CurlTransport)?.options.userAgent ?? CurlTransport.defaultUserAgent
    }

    /// Creates a browser presenter that loads pages as securely as the kit built from `configuration`
    /// makes its own requests: the same pins and certificate authorities, `https` required outside
    /// `.sandbox`, the same timeouts (`CurlTransport(configuration:)`). What an app should use;
    /// the SDK also refuses, on every page, any top-level navigation its environment forbids.
    public convenience init(
        script: BuyerScript, configuration: Configuration, options: Options = Options(),
        onEvent: (@Sendable (BrowserEvent) -> Void)? = nil
    ) {
        self.init(
            script: script, transport: CurlTransport(configuration: configuration), options: options, onEvent: onEvent)
    }

    /// Every URL the handler was asked about during the current (or last)
    /// presentation, allowed or cancelled, in order. A snapshot; thread-safe.
    public var navigations: [URL] { executor.navigations }

    /// The page loaded last during the current (or last) presentation.
    public var currentPage: LoadedPage? { executor.lastPage }

    /// The pages the buyer script was asked about during the current (or last)
    /// presentation, in order, recorded on the browser's queue as it asks (tests).
    var askedAbout: [URL] { executor.askedAbout }

    /// Whether a page is presented (and not yet dismissed).
    public var isPresenting: Bool { executor.isPresenting }

    /// Starts showing `page`. Calls `completion(true)` on the browser's queue,
    /// then starts the first navigation; `completion(false)` when a page is
    /// already presented (one at a time).
    public func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void)
    {
        executor.present(page, handler: handler, completion: completion)
    }

    /// Removes the page: stops every further load, script answer and event,
    /// then calls `completion` once on the browser's queue (also when nothing
    /// was presented).
    public func dismiss(completion: @escaping @Sendable () -> Void) {
        executor.dismiss(completion: completion)
    }

    /// What this browser is, honestly (EMV 3-D Secure browser data): the `User-Agent` its transport
    /// sends, the `Accept` and first `Accept-Language` tag of its page loads, this process's time
    /// zone, JavaScript and Java disabled (it runs neither), no screen (so no size and no colour depth),
    /// and `challengeWindowSize` `05`: it has no window to size. Answers at once, on the caller's thread.
    public var browserData: ThreeDSBrowserData {
        ThreeDSBrowserData(
            userAgent: userAgent, acceptHeader: BrowserSession.acceptHeader, language: BrowserSession.language,
            timeZoneOffsetMinutes: ThreeDSBrowserData.localTimeZoneOffsetMinutes(), javascriptEnabled: false,
            javaEnabled: false, challengeWindowSize: .fullScreen)
    }

    /// Reports ``browserData``.
    public func reportBrowserData(completion: @escaping @Sendable (ThreeDSBrowserData?) -> Void) {
        completion(browserData)
    }

    /// Loads the 3DS Method in a second, invisible browser: a form POST of `threeDSMethodData` to the
    /// method URL, then only what the pages submit by themselves (an ACS's auto-posting form to the
    /// method notification URL); no buyer script is asked. Every navigation goes through `handler`,
    /// as for a shown page. `completion(true)` once it started, `false` while a method is loading.
    /// Its cookies are its own (a headless buyer keeps no state between pages that matters to a
    /// method). Works alongside a shown page.
    public func loadThreeDSMethod(
        _ method: ThreeDSMethodRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void
    ) {
        methodExecutor.present(
            PageRequest(url: method.url, formFields: method.formFields, purpose: .challenge), handler: handler,
            completion: completion)
    }

    /// Stops the method's loads (a transfer under way is abandoned) and calls `completion` once.
    public func endThreeDSMethod(completion: @escaping @Sendable () -> Void) {
        methodExecutor.dismiss(completion: completion)
    }

    /// The body as text: Latin-1 when the `Content-Type` says so, else UTF-8
    /// (invalid sequences replaced).
    static func text(of response: HTTPResponse) -> String {
        let contentType = response.header("Content-Type")?.lowercased() ?? ""
        if contentType.contains("charset=iso-8859-1") || contentType.contains("charset=latin1")
            || contentType.contains("charset=windows-1252")
        {
            return String(response.body.map { Character(Unicode.Scalar($0)) })
        }
        return String(decoding: response.body, as: UTF8.self)
    }
}
