import Foundation

/// A page the SDK asks the host's presenter to show: the hosted checkout, or
/// the 3-D Secure challenge (which starts with a form POST).
public struct PageRequest: Sendable {
    /// Why the page is shown.
    public enum Purpose: Sendable, Equatable {
        /// The hosted checkout page.
        case hostedCheckout
        /// The issuer's 3-D Secure challenge.
        case challenge
    }

    /// The first URL to load.
    public var url: URL
    /// When non-nil, the first load is a `application/x-www-form-urlencoded`
    /// POST of these fields, in order; when nil, a GET.
    public var formFields: [(name: String, value: String)]?
    /// Why the page is shown.
    public var purpose: Purpose

    /// Creates a page request.
    public init(url: URL, formFields: [(name: String, value: String)]? = nil, purpose: Purpose) {
        self.url = url
        self.formFields = formFields
        self.purpose = purpose
    }
}

/// The presenter's answer to "may the page go to this URL?".
public enum NavigationDecision: Sendable, Equatable {
    /// Load it.
    case allow
    /// Do not load it: the SDK has what it needed (e.g. the return URL was reached).
    case cancel
}

/// A navigation a page is about to make, as the presenter knows it.
public struct PageNavigation: Sendable, Equatable {
    /// The URL about to load (after each redirect and form submission too).
    public var url: URL
    /// The HTTP method, `GET` or `POST` (a form submission); `nil` when the presenter cannot tell,
    /// which the SDK treats as a request that may carry the buyer's action.
    public var method: String?

    /// Creates a navigation.
    public init(url: URL, method: String?) {
        self.url = url
        self.method = method
    }
}

/// A request a page sent that the SDK is not asked about: a script's `fetch`, `XMLHttpRequest` or
/// `navigator.sendBeacon`, as the presenter saw it leave. Method and URL only: a presenter never
/// reports a body or a header (they may carry what the buyer typed).
public struct PageSentRequest: Sendable, Equatable {
    /// Where the request goes (absolute, after resolving against the page's base URL).
    public var url: URL
    /// The HTTP method (`POST`, `PUT`, ...); `nil` when the presenter cannot tell, which the SDK treats
    /// as a request that may carry the buyer's action.
    public var method: String?

    /// Creates a report of one request.
    public init(url: URL, method: String?) {
        self.url = url
        self.method = method
    }
}

/// What a presented page reports back to the SDK. The presenter may call
/// these from any thread; the SDK serialises them.
public protocol PageEventHandler: AnyObject, Sendable {
    /// Called before every navigation, the first included, with the URL about
    /// to load (after each redirect and form submission too). The SDK answers
    /// through `decisionHandler`, exactly once, later and on any thread (as
    /// `WKNavigationDelegate` does): the presenter must not block waiting for
    /// it, and does not load the URL when the answer is `.cancel`. An answer
    /// for a page the presenter already dismissed may be ignored.
    func page(
        decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void)
    /// As ``page(decidePolicyFor:decisionHandler:)-(URL,_)``, with the navigation's method: a presenter
    /// that knows it (a browser does) calls this one. The SDK records a form POST it allowed as "the
    /// buyer's action may reach the gateway", at the moment it allows it, so every later ending asks
    /// the gateway instead of guessing from page loads. A navigation reported without a method is
    /// treated as one that may carry the buyer's action. Same threading and answer rules.
    func page(
        decidePolicyFor navigation: PageNavigation,
        decisionHandler: @escaping @Sendable (NavigationDecision) -> Void)
    /// The page at `url` finished loading.
    func pageDidFinishLoad(_ url: URL)
    /// The page at `url` failed to load (transport failure or HTTP error page).
    func pageDidFailLoad(_ url: URL, reason: String)
    /// The buyer closed the page.
    func pageWasClosedByBuyer()
    /// The page sent `request` by itself (a script's `fetch`, XHR or beacon), which no navigation
    /// question showed the SDK. A presenter that can see such requests reports every one whose method
    /// is not `GET` or `HEAD`, before it leaves the page where it can. The SDK records a non-GET request
    /// to the hosted checkout page's origin (or a configured checkout base URL's) as "the buyer's action
    /// may reach the gateway", exactly as an allowed form POST: every later ending then asks the
    /// gateway, and ends `.unresolved` unless the answer is final. On the issuer's challenge the report
    /// changes nothing: only the SDK's own `challenge-result` moves money there. The default implementation ignores the report (handlers written before it existed).
    func page(didSend request: PageSentRequest)
    /// The presenter can no longer show the page and the buyer did not close it: its browser's
    /// process crashed or was killed. Report it at once; the SDK ends the page as a presenter failure
    /// (dismissed, then the gateway asked: `.unresolved` where the buyer may have acted, `.failed` +
    /// `presentationFailed` only where the gateway shows nothing was paid). The default implementation
    /// reports it as ``pageDidFailLoad(_:reason:)`` of `about:blank`.
    func pageDidTerminate(reason: String)
    /// The page tried something that would reach past its window (a download, a JavaScript dialog, a
    /// new window) and the presenter refused it or answered it itself: see ``PageRefusal``. Report it
    /// when it happens; never report page text (a dialog's message: its length only). The SDK records
    /// it in its log (info level, URLs without query or fragment); it changes no payment's outcome.
    /// The default implementation ignores the report (handlers written before it existed).
    func page(didRefuse refusal: PageRefusal)
}

/// The host's stand-in for the `from: UIViewController` of the iOS SDK: it
/// shows the pages the SDK asks for and reports what happens on them.
///
/// The SDK never draws. It calls `present` and `dismiss` on its callback
/// queue (the main queue by default), at most one page at a time, and always
/// dismisses a page it presented before delivering the result.
public protocol PaymentPresenter: AnyObject, Sendable {
    /// Shows `page` and reports its events to `handler`. Calls `completion`
    /// exactly once: `true` once the page is on screen (its first navigation
    /// may already be under way), `false` when it cannot be shown at all.
    func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void)
    /// Removes the page. Calls `completion` exactly once, when it is gone
    /// (at once when nothing is shown). After `dismiss` the presenter reports
    /// no more events.
    func dismiss(completion: @escaping @Sendable () -> Void)
    /// Reports the browser a challenge would be shown in (EMV 3-D Secure browser data), from what the
    /// presenter really is: its web view's user agent and language, the screen it is on, whether it runs
    /// script, and the challenge window size it will open. Called on the callback queue once per card
    /// payment that authenticates, before the 3DS Method and the authentication; call `completion`
    /// exactly once, from any thread. `nil`: the presenter does not know; the SDK then sends the four
    /// fields it always sent (see the PaymentFlow README) and no screen. An answer that does not come
    /// within the presenter timeout counts as `nil`. The default implementation answers `nil` (presenters
    /// written before it existed).
    func reportBrowserData(completion: @escaping @Sendable (ThreeDSBrowserData?) -> Void)
    /// Loads the 3DS Method invisibly: `method` in a page the buyer never sees and cannot focus, in the
    /// same network session and trust as a challenge would use, reporting its navigations and loads to
    /// `handler` as for a shown page (the SDK answers each navigation; the POST to the method
    /// notification URL ends the method). Calls `completion` exactly once: `true` once loading started,
    /// `false` when the presenter cannot load a method. Called on the callback queue, never while a page
    /// is shown. The SDK waits at most 10 s for the notification (its own timer) and then calls
    /// `endThreeDSMethod`; a method that fails or is cut never fails the payment (the
    /// authentication says `threeDSCompInd` `N`). The default implementation answers `false`.
    func loadThreeDSMethod(
        _ method: ThreeDSMethodRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void)
    /// Stops and removes the invisible method page. Calls `completion` exactly once, when it is gone (at
    /// once when there is none); no events are reported for it afterwards. Called on the callback queue.
    /// The default implementation completes at once.
    func endThreeDSMethod(completion: @escaping @Sendable () -> Void)
}

extension PaymentPresenter {
    /// Answers `nil`: the presenter does not say what browser it is.
    public func reportBrowserData(completion: @escaping @Sendable (ThreeDSBrowserData?) -> Void) {
        completion(nil)
    }

    /// Answers `false`: the presenter cannot load a 3DS Method (the authentication says `N`).
    public func loadThreeDSMethod(
        _ method: ThreeDSMethodRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void
    ) {
        completion(false)
    }

    /// Completes at once (nothing was loaded).
    public func endThreeDSMethod(completion: @escaping @Sendable () -> Void) {
        completion()
    }
}

extension PageEventHandler {
    /// Forwards to ``page(decidePolicyFor:decisionHandler:)-(URL,_)`` for handlers that only know URLs.
    public func page(
        decidePolicyFor navigation: PageNavigation,
        decisionHandler: @escaping @Sendable (NavigationDecision) -> Void
    ) {
        page(decidePolicyFor: navigation.url, decisionHandler: decisionHandler)
    }

    /// Ignores the report (a handler that predates it).
    public func page(didSend request: PageSentRequest) {}

    /// Ignores the report (a handler that predates ``page(didRefuse:)``).
    public func page(didRefuse refusal: PageRefusal) {}

    /// Reports the page as failed to load (a handler that predates ``pageDidTerminate(reason:)``).
    public func pageDidTerminate(reason: String) {
        pageDidFailLoad(URL(string: "about:blank")!, reason: reason)
    }
}
