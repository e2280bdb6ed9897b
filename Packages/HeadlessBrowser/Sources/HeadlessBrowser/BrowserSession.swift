internal import EGWWire
import Foundation
import PaymentFlow

/// The headless browser's presentations as a value: what the presented page is doing (deciding a
/// navigation, loading, asking the buyer script, resting, stopped, dismissed), its cookie jar, the
/// run of automatic submissions, the page loaded last, and the token of the one answer it awaits.
/// Events in, effects out; ``HeadlessBrowserPresenter``'s executor performs the effects on its serial
/// queue and feeds back what comes of them (the model is PaymentFlow's `PaymentLifecycle` run by
/// `PaymentExecutor`).
///
/// What it guarantees, by construction (and checked over every ordering up to a depth by
/// `BrowserSessionExplorationTests`):
/// - at most one answer is awaited at a time (a decision, a load, the buyer script), under a token
///   never used before; any other answer (a second one, a late one, one for a dismissed or earlier
///   presentation) is dropped and does nothing;
/// - nothing is loaded without the handler allowing that very navigation, once;
/// - a load ends once: a redirect hop (then a new decision), a finished page, or a failure; at most
///   ``HeadlessBrowserPresenter/Options/maxRedirects`` hops per navigation and
///   ``HeadlessBrowserPresenter/Options/maxAutomaticSubmissions`` automatic submissions in a row;
/// - a cancelled navigation, a failure or the buyer's close stops the page: the handler hears
///   nothing more; after `dismiss` neither the handler nor an observer hears anything (``admits(_:)``
///   lets the executor drop what a dismissal from another thread overtook);
/// - a typed code never appears in an event or in the description;
/// - every wait for the transport is bounded by a timer the session owns (the page timeout and a
///   grace); the decision and the buyer's answer are the SDK's and the buyer's to give, and end with
///   `dismiss`.
///
/// Every `switch` over the phase is exhaustive and has no `default:`: a new phase or event does not
/// compile until each pair says what it does.
struct BrowserSession: Sendable, CustomStringConvertible {
    /// The `Accept` header of every page load (also reported as the browser's, EMV browserAcceptHeader).
    static let acceptHeader = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"
    /// The `Accept-Language` of every page load; its first tag is the browser's language.
    static let acceptLanguage = "en-GB,en;q=0.8"
    static let language = "en-GB"

    /// The limits of every presentation.
    struct Settings: Sendable, Equatable {
        /// The transport's limit for one load.
        var pageTimeout: TimeInterval
        var maxRedirects: Int
        var maxAutomaticSubmissions: Int
        /// How long after `pageTimeout` the session stops waiting for a transport that did not answer.
        var loadGrace: TimeInterval = 5
    }

    /// One navigation: what is asked about and loaded.
    struct Navigation: Sendable, Equatable {
        var method: String
        var url: URL
        var body: [UInt8]?
        var contentType: String?
        /// Redirect hops followed to reach it.
        var redirects: Int
        /// The submission carries a 3-D Secure result (`cres`, `PaRes`): the page it ends on (after
        /// redirects) is the notification page.
        var handsBack = false
        /// The query item of `url` that holds a typed code (a GET challenge form's, or carried on to a URL
        /// derived from that one, see ``TypedCodeQuery``), masked in events.
        var secretQueryItem: String?

        /// The URL as events show it: a typed code in the query masked.
        var shownURL: URL { TypedCodeQuery.masked(url, item: secretQueryItem) }

        /// The first navigation of a presented page: a GET, or a POST of its form fields.
        init(_ page: PageRequest) {
            if let fields = page.formFields {
                let body = FormEncoding.encode(fields.map { (name: $0.name, value: $0.value) })
                self.init(
                    method: "POST", url: page.url, body: Array(body.utf8),
                    contentType: "application/x-www-form-urlencoded", redirects: 0)
            } else {
                self.init(method: "GET", url: page.url, body: nil, contentType: nil, redirects: 0)
            }
        }

        init(
            method: String, url: URL, body: [UInt8]?, contentType: String?, redirects: Int, handsBack: Bool = false,
            secretQueryItem: String? = nil
        ) {
            self.method = method
            self.url = url
            self.body = body
            self.contentType = contentType
            self.redirects = redirects
            self.handsBack = handsBack
            self.secretQueryItem = secretQueryItem
        }
    }

    /// A loaded page as the session keeps it: parsed at the real URL it was loaded from, so its forms'
    /// actions are where they really submit, and the query item of that URL that holds a typed code
    /// (``Navigation/secretQueryItem``). Events, the buyer script and `currentPage` are given the page
    /// as shown (`shown(_:)`): its URL and every action derived from it masked.
    struct Page: Sendable {
        var loaded: LoadedPage
        var secretQueryItem: String?
    }

    /// Why a page takes no further action.
    enum Stop: Sendable, Equatable {
        /// The handler cancelled a navigation.
        case cancelled
        /// A load failed, or the page could not do what the buyer asked.
        case failed
        /// The buyer closed the window.
        case closed
    }

    /// What the presentation is doing.
    enum Phase: Sendable {
        /// Nothing was presented yet.
        case idle
        /// The handler was asked about `navigation`; its answer comes as `.decided(token, ...)`.
        case deciding(Navigation, token: UInt64)
        /// `navigation` is loading; the transport's answer and the watchdog come with `token`.
        case loading(Navigation, token: UInt64)
        /// The buyer script was asked about `page`; its answer comes as `.buyerAnswered(token, ...)`.
        case askingBuyer(Page, token: UInt64)
        /// The page stays as it is: the notification page (the SDK ends the challenge there), or the
        /// buyer chose to wait.
        case resting(Page)
        /// The page takes no further action until dismissed.
        case stopped(Stop)
        /// Dismissed: nothing more until the next `present`.
        case dismissed
    }

    /// What happens to the browser.
    enum Event: Sendable {
        /// `present(page)` was called.
        case present(PageRequest)
        /// The handler answered the navigation question `token`.
        case decided(token: UInt64, NavigationDecision)
        /// The transport answered load `token`.
        case loaded(token: UInt64, Result<HTTPResponse, TransportError>)
        /// Load `token`'s watchdog fired.
        case loadTimedOut(token: UInt64)
        /// The buyer script answered question `token`.
        case buyerAnswered(token: UInt64, BuyerAction)
        /// `dismiss` was called.
        case dismiss
    }

    /// What the session asks its executor to do. Effects tagged with a `session` reach the world
    /// only while that presentation is the current one and not dismissed (``admits(_:)``).
    enum Effect: Sendable {
        /// Call `present`'s completion.
        case answerPresent(Bool)
        /// Ask the handler `page(decidePolicyFor:)`; answer with `.decided(token, ...)`.
        case askHandler(session: UInt64, token: UInt64, PageNavigation)
        /// Send `request` (redirects not followed); answer with `.loaded(token, ...)`.
        case load(session: UInt64, token: UInt64, HTTPRequest)
        /// Start load `token`'s watchdog; when it fires, feed `.loadTimedOut(token)`.
        case startTimer(session: UInt64, token: UInt64, after: TimeInterval)
        case cancelTimer(token: UInt64)
        /// `pageDidFinishLoad(url)`.
        case reportFinished(session: UInt64, URL)
        /// `pageDidFailLoad(url, reason:)`.
        case reportFailed(session: UInt64, URL, reason: String)
        /// `pageWasClosedByBuyer()`.
        case reportClosed(session: UInt64)
        /// Tell the observer.
        case observe(session: UInt64, BrowserEvent)
        /// Ask the buyer script about `page` (off the queue); answer with `.buyerAnswered(token, ...)`.
        case askBuyer(session: UInt64, token: UInt64, LoadedPage)
        /// Tell the observer `.dismissed` when a page was presented, then call `dismiss`'s completion.
        case completeDismiss(wasPresented: Bool)
    }

    let settings: Settings
    private(set) var phase = Phase.idle
    /// The current (or last) presentation's number; effects carry it.
    private(set) var session: UInt64 = 0
    private(set) var jar = CookieJar()
    /// Automatic submissions since the buyer was last asked.
    private(set) var automaticSubmissions = 0
    /// The page loaded last during the current (or last) presentation, as shown (a typed code masked).
    private(set) var lastPage: LoadedPage?
    private var counter: UInt64 = 0

    /// A deliberate bug the exploration test switches on (debug builds only) to show that its invariants
    /// bite; release builds never look at it.
    enum Mutation: String, CaseIterable, Sendable {
        case none
        /// `dismiss` completes but the page goes on acting on the answers it gets.
        case actsAfterDismiss
        /// ``admits(_:)`` lets every effect through, also those a dismissal overtook.
        case admitsEverything
        /// An answer is taken whatever its token (a second or stale one too).
        case ignoresTokens
        /// One redirect more than `maxRedirects` is followed.
        case oneRedirectTooMany
        /// One automatic submission more than the limit is made.
        case oneAutomaticSubmissionTooMany
        /// Events show the real URL of a GET that carries a typed code.
        case showsTheTypedCode
        /// A URL derived from one that carries a typed code and keeping its query (a redirect to `#x`, a
        /// form without `action`) is shown unmasked: the mask stays behind on the code-bearing URL.
        case leavesTheMaskBehind
        /// A cancelled navigation is loaded all the same.
        case loadsWhatWasCancelled
    }

    #if DEBUG
    /// The bug switched on (tests).
    var mutation = Mutation.none

    private func mutated(_ bug: Mutation) -> Bool { mutation == bug }
    #else
    @inline(__always) private func mutated(_ bug: Mutation) -> Bool { false }
    #endif

    init(settings: Settings) {
        self.settings = settings
    }

    /// Whether a page is presented (and not yet dismissed).
    var isPresenting: Bool {
        switch phase {
        case .idle, .dismissed: false
        case .deciding, .loading, .askingBuyer, .resting, .stopped: true
        }
    }

    /// Whether the executor may still perform `effect`: an effect of a presentation reaches the handler,
    /// the transport, the buyer script or the observer only while that presentation is presented. The
    /// effects of one event are performed one after the other; a `dismiss` from another thread may come
    /// between two of them, and what follows it is dropped here, by the session's number.
    func admits(_ effect: Effect) -> Bool {
        switch effect {
        case .answerPresent, .cancelTimer, .completeDismiss:
            return true
        case .askHandler(let id, _, _), .load(let id, _, _), .startTimer(let id, _, _), .reportFinished(let id, _),
            .reportFailed(let id, _, _), .reportClosed(let id), .observe(let id, _), .askBuyer(let id, _, _):
            return mutated(.admitsEverything) || (id == session && isPresenting)
        }
    }

    var description: String {
        let state: String
        switch phase {
        case .idle: state = "idle"
        case .deciding(let navigation, let token):
            state =
                "deciding #\(token) \(navigation.method) \(navigation.shownURL.absoluteString) (hop \(navigation.redirects))"
        case .loading(let navigation, let token):
            state =
                "loading #\(token) \(navigation.method) \(navigation.shownURL.absoluteString) (hop \(navigation.redirects))"
        case .askingBuyer(let page, let token):
            state = "asking the buyer #\(token) about \(shown(page).url.absoluteString)"
        case .resting(let page): state = "resting on \(shown(page).url.absoluteString)"
        case .stopped(let stop): state = "stopped (\(stop))"
        case .dismissed: state = "dismissed"
        }
        return "page \(session) \(state), \(automaticSubmissions) automatic submissions, \(jar.cookies.count) cookies"
    }

    // MARK: - Events

    mutating func handle(_ event: Event) -> [Effect] {
        switch event {
        case .present(let page):
            return present(page)
        case .decided(let token, let decision):
            switch phase {
            case .deciding(let navigation, let awaited) where awaited == token || mutated(.ignoresTokens):
                return decided(decision, navigation)
            case .idle, .deciding, .loading, .askingBuyer, .resting, .stopped, .dismissed:
                return []
            }
        case .loaded(let token, let result):
            switch phase {
            case .loading(let navigation, let awaited) where awaited == token || mutated(.ignoresTokens):
                return [.cancelTimer(token: awaited)] + received(result, for: navigation)
            case .idle, .deciding, .loading, .askingBuyer, .resting, .stopped, .dismissed:
                return []
            }
        case .loadTimedOut(let token):
            switch phase {
            case .loading(let navigation, let awaited) where awaited == token:
                let error = TransportError(.timeout, "no answer within \(Int(settings.pageTimeout)) s")
                return fail(navigation.url, shown: shown(navigation), reason: error.description)
            case .idle, .deciding, .loading, .askingBuyer, .resting, .stopped, .dismissed:
                return []
            }
        case .buyerAnswered(let token, let action):
            switch phase {
            case .askingBuyer(let page, let awaited) where awaited == token || mutated(.ignoresTokens):
                return perform(action, on: page)
            case .idle, .deciding, .loading, .askingBuyer, .resting, .stopped, .dismissed:
                return []
            }
        case .dismiss:
            return dismiss()
        }
    }

    private mutating func present(_ page: PageRequest) -> [Effect] {
        switch phase {
        case .idle, .dismissed:
            session += 1
            jar = CookieJar()
            automaticSubmissions = 0
            lastPage = nil
            return [.answerPresent(true)] + navigate(Navigation(page))
        case .deciding, .loading, .askingBuyer, .resting, .stopped:
            // One page at a time.
            return [.answerPresent(false)]
        }
    }

    private mutating func dismiss() -> [Effect] {
        if mutated(.actsAfterDismiss) && isPresenting { return [.completeDismiss(wasPresented: true)] }
        switch phase {
        case .idle, .dismissed:
            return [.completeDismiss(wasPresented: false)]
        case .loading(_, let token):
            // The transfer is abandoned: its answer will find the page dismissed.
            phase = .dismissed
            return [.cancelTimer(token: token), .completeDismiss(wasPresented: true)]
        case .deciding, .askingBuyer, .resting, .stopped:
            phase = .dismissed
            return [.completeDismiss(wasPresented: true)]
        }
    }

    // MARK: - Steps

    private mutating func nextToken() -> UInt64 {
        counter += 1
        return counter
    }

    /// The URL events show for `navigation`.
    private func shown(_ navigation: Navigation) -> URL {
        mutated(.showsTheTypedCode) ? navigation.url : navigation.shownURL
    }

    /// `page` as events, the buyer script and `currentPage` see it: its URL and each form's action that
    /// carries the typed code on (``carried(_:from:to:)``) masked; the forms otherwise as parsed.
    private func shown(_ page: Page) -> LoadedPage {
        if mutated(.showsTheTypedCode) { return page.loaded }
        var shown = page.loaded
        shown.url = TypedCodeQuery.masked(page.loaded.url, item: page.secretQueryItem)
        for index in shown.forms.indices {
            let action = shown.forms[index].action
            shown.forms[index].action = TypedCodeQuery.masked(
                action, item: carried(page.secretQueryItem, from: page.loaded.url, to: action))
        }
        return shown
    }

    /// The secret query item of `derived`, a URL the session derived from `base` (a redirect's target, a
    /// form's action) where `item` holds a typed code: see ``TypedCodeQuery/item(_:of:derivedFrom:)``.
    private func carried(_ item: String?, from base: URL, to derived: URL) -> String? {
        mutated(.leavesTheMaskBehind) ? nil : TypedCodeQuery.item(item, of: derived, derivedFrom: base)
    }

    /// Asks the handler about `navigation`; nothing loads before it answers.
    private mutating func navigate(_ navigation: Navigation) -> [Effect] {
        let token = nextToken()
        phase = .deciding(navigation, token: token)
        return [
            .askHandler(session: session, token: token, PageNavigation(url: navigation.url, method: navigation.method))
        ]
    }

    /// Reports a load failure at `url` (`shown`: the URL as events show it); the page stops.
    private mutating func fail(_ url: URL, shown: URL, reason: String) -> [Effect] {
        phase = .stopped(.failed)
        return [
            .reportFailed(session: session, url, reason: reason),
            .observe(session: session, .failed(url: shown, reason: reason)),
        ]
    }

    private mutating func decided(_ decision: NavigationDecision, _ navigation: Navigation) -> [Effect] {
        let observed = Effect.observe(
            session: session, .navigation(method: navigation.method, url: shown(navigation), decision: decision))
        switch decision {
        case .cancel where !mutated(.loadsWhatWasCancelled):
            phase = .stopped(.cancelled)
            return [observed]
        case .cancel, .allow:
            break
        }
        let scheme = navigation.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            return [observed]
                + fail(navigation.url, shown: shown(navigation), reason: "the browser loads only http and https URLs")
        }
        var headers = [
            HTTPHeader("Accept", Self.acceptHeader),
            HTTPHeader("Accept-Language", Self.acceptLanguage),
        ]
        if let cookie = jar.header(for: navigation.url) {
            headers.append(HTTPHeader("Cookie", cookie))
        }
        if navigation.body != nil {
            headers.append(HTTPHeader("Content-Type", navigation.contentType ?? "application/x-www-form-urlencoded"))
        }
        let request = HTTPRequest(
            method: navigation.method, url: navigation.url, headers: headers, body: navigation.body,
            timeout: settings.pageTimeout, followRedirects: false)
        let token = nextToken()
        phase = .loading(navigation, token: token)
        return [
            observed, .startTimer(session: session, token: token, after: settings.pageTimeout + settings.loadGrace),
            .load(session: session, token: token, request),
        ]
    }

    private mutating func received(
        _ result: Result<HTTPResponse, TransportError>, for navigation: Navigation
    ) -> [Effect] {
        let response: HTTPResponse
        switch result {
        case .failure(let error):
            return fail(navigation.url, shown: shown(navigation), reason: error.description)
        case .success(let received):
            response = received
        }
        jar.store(response)
        if let target = RedirectRule.target(
            status: response.status, location: response.header("Location"), base: navigation.url)
        {
            let limit = settings.maxRedirects + (mutated(.oneRedirectTooMany) ? 1 : 0)
            guard navigation.redirects < limit else {
                return fail(
                    navigation.url, shown: shown(navigation), reason: "more than \(settings.maxRedirects) redirects")
            }
            let (method, body) = RedirectRule.nextMethod(
                status: response.status, method: navigation.method, body: navigation.body)
            // A redirected hand-back still ends on the notification page; a target that keeps the query
            // (`Location: #x`) keeps a typed code in it, masked.
            let next = Navigation(
                method: method, url: target, body: body, contentType: body == nil ? nil : navigation.contentType,
                redirects: navigation.redirects + 1, handsBack: navigation.handsBack,
                secretQueryItem: carried(navigation.secretQueryItem, from: navigation.url, to: target))
            return [
                .observe(session: session, .redirect(status: response.status, from: shown(navigation), to: shown(next)))
            ] + navigate(next)
        }
        guard response.status < 400 else {
            return fail(navigation.url, shown: shown(navigation), reason: "HTTP \(response.status)")
        }
        // Parsed and kept at its real URL (forms resolve against it); shown and asked about with a typed
        // code masked, in its URL and in every action derived from it.
        var parsed = LoadedPage(
            url: navigation.url, status: response.status, html: HeadlessBrowserPresenter.text(of: response))
        if navigation.handsBack && parsed.meta["egw-page"] == nil {
            parsed.kind = .notification
        }
        let page = Page(loaded: parsed, secretQueryItem: navigation.secretQueryItem)
        let shownPage = shown(page)
        lastPage = shownPage
        let loaded: [Effect] = [
            .reportFinished(session: session, navigation.url), .observe(session: session, .loaded(shownPage)),
        ]
        if let index = parsed.autoSubmitFormIndex {
            automaticSubmissions += 1
            let limit = settings.maxAutomaticSubmissions + (mutated(.oneAutomaticSubmissionTooMany) ? 1 : 0)
            guard automaticSubmissions <= limit else {
                return loaded
                    + fail(
                        navigation.url, shown: shown(navigation),
                        reason:
                            "too many automatic form submissions (more than \(settings.maxAutomaticSubmissions) in a row)"
                    )
            }
            let form = parsed.forms[index]
            return loaded + [.observe(session: session, .autoSubmitted(url: shownPage.url, formID: form.id))]
                + submit(form, of: page, pressing: nil, overrides: [:])
        }
        // The challenge ends on the notification page: the SDK dismisses it, the buyer has nothing to do.
        guard parsed.kind != .notification else {
            phase = .resting(page)
            return loaded
        }
        automaticSubmissions = 0
        let token = nextToken()
        phase = .askingBuyer(page, token: token)
        return loaded + [.askBuyer(session: session, token: token, shownPage)]
    }

    private mutating func perform(_ action: BuyerAction, on page: Page) -> [Effect] {
        let shownURL = shown(page).url
        let observed = Effect.observe(session: session, .buyerAction(action.redacted, url: shownURL))
        let forms = page.loaded.forms
        switch action {
        case .wait:
            phase = .resting(page)
            return [observed]
        case .close:
            phase = .stopped(.closed)
            return [observed, .reportClosed(session: session), .observe(session: session, .closedByBuyer)]
        case .hosted(let choice):
            guard let (form, button, overrides) = PageRules.hostedSubmission(choice, in: forms) else {
                return [observed]
                    + fail(
                        page.loaded.url, shown: shownURL,
                        reason: "buyer action hosted(\(choice.rawValue)): the page has no '\(choice.rawValue)' button")
            }
            return [observed] + submit(form, of: page, pressing: button, overrides: overrides)
        case .challenge(let code):
            guard let (formIndex, fieldName) = PageRules.codeEntry(in: forms) else {
                return [observed]
                    + fail(
                        page.loaded.url, shown: shownURL,
                        reason: "buyer action challenge: the page has no form with a code field")
            }
            let form = forms[formIndex]
            return [observed]
                + submit(
                    form, of: page, pressing: PageRules.forwardButton(of: form), overrides: [fieldName: code],
                    secretField: fieldName)
        case .press(let label):
            guard let (form, button) = PageRules.button(labelled: label, in: forms) else {
                return [observed]
                    + fail(
                        page.loaded.url, shown: shownURL,
                        reason: "buyer action press: the page has no button labelled '\(label)'")
            }
            return [observed] + submit(form, of: page, pressing: button, overrides: [:])
        case .submit(let formIndex, let fields):
            guard forms.indices.contains(formIndex) else {
                return [observed]
                    + fail(
                        page.loaded.url, shown: shownURL,
                        reason: "buyer action submit: the page has no form number \(formIndex)")
            }
            let form = forms[formIndex]
            return [observed] + submit(form, of: page, pressing: form.buttons.first, overrides: fields)
        }
    }

    /// Submits `form` of `page` as a browser does; `secretField` names a field that holds a typed code
    /// (masked in events when it goes into a query). A POST goes to the action as it is, so an action
    /// derived from a URL that holds a typed code (a form without `action`) carries it on, masked; a GET
    /// replaces the action's query with the form's.
    private mutating func submit(
        _ form: HTMLForm, of page: Page, pressing button: HTMLForm.Button?, overrides: [String: String],
        secretField: String? = nil
    ) -> [Effect] {
        let entries = form.entries(pressing: button, overrides: overrides)
        let encoded = FormEncoding.encode(entries)
        let handsBack = PageRules.carriesChallengeResult(entries.map(\.name))
        if form.method == "POST" {
            return navigate(
                Navigation(
                    method: "POST", url: form.action, body: Array(encoded.utf8),
                    contentType: "application/x-www-form-urlencoded", redirects: 0, handsBack: handsBack,
                    secretQueryItem: carried(page.secretQueryItem, from: page.loaded.url, to: form.action)))
        }
        var url = form.action
        if var components = URLComponents(url: form.action, resolvingAgainstBaseURL: true) {
            components.percentEncodedQuery = encoded.isEmpty ? nil : encoded
            components.fragment = nil
            url = components.url ?? form.action
        }
        return navigate(
            Navigation(
                method: "GET", url: url, body: nil, contentType: nil, redirects: 0, handsBack: handsBack,
                secretQueryItem: secretField))
    }
}

/// Where a typed code sits in a URL: the query item a GET challenge form sent it in. The session keeps
/// the item's name with every URL it carries that holds the code (the navigation, the page it loads,
/// and every URL it derives from that one keeping its query) and shows each of them masked.
enum TypedCodeQuery {
    /// What a typed code reads as in a shown query: `••••`, percent-encoded.
    static let mask = "%E2%80%A2%E2%80%A2%E2%80%A2%E2%80%A2"

    /// `url` with the value of its query item `name` masked (`url` itself when `name` is `nil`).
    static func masked(_ url: URL, item name: String?) -> URL {
        guard let name,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let items = components.percentEncodedQueryItems
        else { return url }
        let escaped = FormEncoding.escape(name)
        components.percentEncodedQueryItems = items.map { item in
            item.name == escaped ? URLQueryItem(name: item.name, value: mask) : item
        }
        return components.url ?? url
    }

    /// The query item of `derived` that holds a typed code, for a URL resolved against `base` whose item
    /// `name` holds one: `name` when `derived` kept `base`'s query (a fragment-only reference such as a
    /// redirect to `#x`, a form without `action` or with `action="#x"`, a target that repeats the
    /// query), `nil` when it has a query of its own (a path reference, a GET form's entries) or none.
    static func item(_ name: String?, of derived: URL, derivedFrom base: URL) -> String? {
        guard let name, let query = percentEncodedQuery(of: base) else { return nil }
        return percentEncodedQuery(of: derived) == query ? name : nil
    }

    private static func percentEncodedQuery(of url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedQuery
    }
}
