internal import EGWWire
import Foundation
import PaymentFlow
import Synchronization

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
///   the page it leads to show that query item as `••••` (the handler hears
///   the real URL).
///
/// Threading: `present`, `dismiss` and the accessors may be called from any
/// thread. Completions, handler calls and ``BrowserEvent``s are delivered on
/// one private serial queue, in order; the buyer script runs on a global
/// queue. The handler is held strongly until `dismiss`. After `dismiss` is
/// called the handler hears nothing more, except a call already under way,
/// which finishes before the `dismiss` completion runs; in-flight loads are
/// abandoned (their results are dropped).
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

    private struct Navigation {
        var method: String
        var url: URL
        var body: [UInt8]?
        var contentType: String?
        var redirects: Int
        /// The submission carries a 3-D Secure result (`cres`, `PaRes`): the
        /// page it ends on (after redirects) is the notification page.
        var handsBack = false
        /// The query item that holds a typed code (a GET challenge form), masked in events.
        var secretQueryItem: String?

        /// The URL as events show it: a typed code in the query masked.
        var shownURL: URL {
            guard let secretQueryItem,
                var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
                let items = components.percentEncodedQueryItems
            else { return url }
            let name = FormEncoding.escape(secretQueryItem)
            components.percentEncodedQueryItems = items.map { item in
                item.name == name ? URLQueryItem(name: item.name, value: "%E2%80%A2%E2%80%A2%E2%80%A2%E2%80%A2") : item
            }
            return components.url ?? url
        }
    }

    private struct Session {
        let id: UInt64
        let handler: any PageEventHandler
        var jar = CookieJar()
        var active = true
        var decisionToken: UInt64 = 0
        var automaticSubmissions = 0
    }

    private struct State {
        var session: Session?
        var lastID: UInt64 = 0
        var navigations: [URL] = []
        var lastPage: LoadedPage?
        var askedAbout: [URL] = []
    }

    private let script: BuyerScript
    private let transport: any HTTPTransport
    private let options: Options
    private let onEvent: (@Sendable (BrowserEvent) -> Void)?
    private let queue = DispatchQueue(label: "egw.headless-browser")
    private let state = Mutex(State())

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
        self.script = script
        self.transport = transport
        self.options = options
        self.onEvent = onEvent
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
    public var navigations: [URL] {
        state.withLock { $0.navigations }
    }

    /// The page loaded last during the current (or last) presentation.
    public var currentPage: LoadedPage? {
        state.withLock { $0.lastPage }
    }

    /// The pages the buyer script was asked about during the current (or last)
    /// presentation, in order, recorded on the browser's queue as it asks (tests).
    var askedAbout: [URL] {
        state.withLock { $0.askedAbout }
    }

    /// Whether a page is presented (and not yet dismissed).
    public var isPresenting: Bool {
        state.withLock { $0.session != nil }
    }

    /// Starts showing `page`. Calls `completion(true)` on the browser's queue,
    /// then starts the first navigation; `completion(false)` when a page is
    /// already presented (one at a time).
    public func present(_ page: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void)
    {
        let id: UInt64? = state.withLock { state in
            guard state.session == nil else { return nil }
            state.lastID += 1
            state.session = Session(id: state.lastID, handler: handler)
            state.navigations = []
            state.lastPage = nil
            state.askedAbout = []
            return state.lastID
        }
        let first: Navigation
        if let fields = page.formFields {
            let body = FormEncoding.encode(fields.map { (name: $0.name, value: $0.value) })
            first = Navigation(
                method: "POST", url: page.url, body: Array(body.utf8), contentType: "application/x-www-form-urlencoded",
                redirects: 0)
        } else {
            first = Navigation(method: "GET", url: page.url, body: nil, contentType: nil, redirects: 0)
        }
        queue.async { [self] in
            guard let id else {
                completion(false)
                return
            }
            completion(true)
            navigate(first, session: id)
        }
    }

    /// Removes the page: stops every further load, script answer and event,
    /// then calls `completion` once on the browser's queue (also when nothing
    /// was presented).
    public func dismiss(completion: @escaping @Sendable () -> Void) {
        let wasPresented = state.withLock { state -> Bool in
            defer { state.session = nil }
            return state.session != nil
        }
        queue.async { [self] in
            if wasPresented {
                onEvent?(.dismissed)
            }
            completion()
        }
    }

    // MARK: - Steps (all on `queue`)

    /// The handler when `id` is the presented session and still acts.
    private func activeHandler(_ id: UInt64) -> (any PageEventHandler)? {
        state.withLock { state in
            guard let session = state.session, session.id == id, session.active else { return nil }
            return session.handler
        }
    }

    /// Tells observers, unless the session was dismissed.
    private func observe(_ event: @autoclosure () -> BrowserEvent, session id: UInt64) {
        guard let onEvent, state.withLock({ $0.session?.id == id }) else { return }
        onEvent(event())
    }

    /// Stops the session acting; returns its handler if it was active.
    private func deactivate(_ id: UInt64) -> (any PageEventHandler)? {
        state.withLock { state in
            guard var session = state.session, session.id == id, session.active else { return nil }
            session.active = false
            state.session = session
            return session.handler
        }
    }

    /// Reports a load failure at `url` (`shown` is the URL as events show it).
    private func fail(_ url: URL, shown: URL? = nil, reason: String, session id: UInt64) {
        guard let handler = deactivate(id) else { return }
        handler.pageDidFailLoad(url, reason: reason)
        observe(.failed(url: shown ?? url, reason: reason), session: id)
    }

    private func navigate(_ navigation: Navigation, session id: UInt64) {
        // Recorded before asking, so `navigations` already holds the URL when
        // the handler hears about it.
        let asking: (any PageEventHandler)? = state.withLock { state in
            guard let session = state.session, session.id == id, session.active else { return nil }
            state.navigations.append(navigation.url)
            return session.handler
        }
        guard let handler = asking else { return }
        // The SDK answers later, on any thread; the browser goes on from its own queue.
        let answered = AnswerFlag()
        let asked = PageNavigation(url: navigation.url, method: navigation.method)
        handler.page(decidePolicyFor: asked) { [self] decision in
            guard answered.claim() else { return }
            queue.async { self.decided(decision, navigation, session: id) }
        }
    }

    private func decided(_ decision: NavigationDecision, _ navigation: Navigation, session id: UInt64) {
        let proceed = state.withLock { state -> Bool in
            guard var session = state.session, session.id == id, session.active else { return false }
            if decision == .cancel {
                session.active = false
                state.session = session
                return false
            }
            return true
        }
        observe(.navigation(method: navigation.method, url: navigation.shownURL, decision: decision), session: id)
        guard proceed else { return }

        let scheme = navigation.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            fail(
                navigation.url, shown: navigation.shownURL, reason: "the browser loads only http and https URLs",
                session: id)
            return
        }
        var headers = [
            HTTPHeader("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"),
            HTTPHeader("Accept-Language", "en-GB,en;q=0.8"),
        ]
        if let cookie = state.withLock({ $0.session?.id == id ? $0.session?.jar.header(for: navigation.url) : nil }) {
            headers.append(HTTPHeader("Cookie", cookie))
        }
        if navigation.body != nil {
            headers.append(HTTPHeader("Content-Type", navigation.contentType ?? "application/x-www-form-urlencoded"))
        }
        let request = HTTPRequest(
            method: navigation.method, url: navigation.url, headers: headers, body: navigation.body,
            timeout: options.pageTimeout, followRedirects: false)
        transport.send(request) { [self] result in
            queue.async { self.received(result, for: navigation, session: id) }
        }
    }

    private func received(
        _ result: Result<HTTPResponse, TransportError>, for navigation: Navigation, session id: UInt64
    ) {
        guard activeHandler(id) != nil else { return }
        let response: HTTPResponse
        switch result {
        case .failure(let error):
            fail(navigation.url, shown: navigation.shownURL, reason: error.description, session: id)
            return
        case .success(let received):
            response = received
        }
        state.withLock { state in
            guard state.session?.id == id else { return }
            state.session?.jar.store(response)
        }
        if let target = RedirectRule.target(
            status: response.status, location: response.header("Location"), base: navigation.url)
        {
            guard navigation.redirects < options.maxRedirects else {
                fail(
                    navigation.url, shown: navigation.shownURL, reason: "more than \(options.maxRedirects) redirects",
                    session: id)
                return
            }
            let (method, body) = RedirectRule.nextMethod(
                status: response.status, method: navigation.method, body: navigation.body)
            observe(.redirect(status: response.status, from: navigation.shownURL, to: target), session: id)
            // A redirected hand-back still ends on the notification page.
            let next = Navigation(
                method: method, url: target, body: body, contentType: body == nil ? nil : navigation.contentType,
                redirects: navigation.redirects + 1, handsBack: navigation.handsBack)
            navigate(next, session: id)
            return
        }
        guard response.status < 400 else {
            fail(navigation.url, shown: navigation.shownURL, reason: "HTTP \(response.status)", session: id)
            return
        }
        // Parsed at its real URL (forms resolve against it); kept, shown and asked about with a typed code masked.
        var page = LoadedPage(url: navigation.url, status: response.status, html: Self.text(of: response))
        page.url = navigation.shownURL
        if navigation.handsBack && page.meta["egw-page"] == nil {
            page.kind = .notification
        }
        state.withLock { state in
            guard state.session?.id == id else { return }
            state.lastPage = page
        }
        guard let handler = activeHandler(id) else { return }
        handler.pageDidFinishLoad(navigation.url)
        observe(.loaded(page), session: id)

        if let index = page.autoSubmitFormIndex {
            let count = state.withLock { state -> Int in
                guard var session = state.session, session.id == id else { return Int.max }
                session.automaticSubmissions += 1
                state.session = session
                return session.automaticSubmissions
            }
            guard count <= options.maxAutomaticSubmissions else {
                if count != Int.max {
                    fail(
                        navigation.url, shown: navigation.shownURL,
                        reason:
                            "too many automatic form submissions (more than \(options.maxAutomaticSubmissions) in a row)",
                        session: id)
                }
                return
            }
            let form = page.forms[index]
            observe(.autoSubmitted(url: page.url, formID: form.id), session: id)
            submit(form, pressing: nil, overrides: [:], session: id)
            return
        }
        // The challenge ends on the notification page: the SDK dismisses it, the buyer has nothing to do.
        guard page.kind != .notification else { return }
        state.withLock { state in
            guard state.session?.id == id else { return }
            state.session?.automaticSubmissions = 0
        }
        ask(about: page, session: id)
    }

    private func ask(about page: LoadedPage, session id: UInt64) {
        let token: UInt64? = state.withLock { state in
            guard var session = state.session, session.id == id, session.active else { return nil }
            session.decisionToken += 1
            state.session = session
            state.askedAbout.append(page.url)
            return session.decisionToken
        }
        guard let token else { return }
        let answered = AnswerFlag()
        let script = self.script
        DispatchQueue.global().async { [self] in
            script.decide(page) { [self] action in
                guard answered.claim() else { return }
                queue.async { self.perform(action, on: page, token: token, session: id) }
            }
        }
    }

    private func perform(_ action: BuyerAction, on page: LoadedPage, token: UInt64, session id: UInt64) {
        let current = state.withLock { state -> Bool in
            guard var session = state.session, session.id == id, session.active, session.decisionToken == token else {
                return false
            }
            session.decisionToken += 1
            state.session = session
            return true
        }
        guard current else { return }
        observe(.buyerAction(action.redacted, url: page.url), session: id)
        switch action {
        case .wait:
            return
        case .close:
            guard let handler = deactivate(id) else { return }
            handler.pageWasClosedByBuyer()
            observe(.closedByBuyer, session: id)
        case .hosted(let choice):
            guard let (form, button, overrides) = PageRules.hostedSubmission(choice, in: page.forms) else {
                fail(
                    page.url,
                    reason: "buyer action hosted(\(choice.rawValue)): the page has no '\(choice.rawValue)' button",
                    session: id)
                return
            }
            submit(form, pressing: button, overrides: overrides, session: id)
        case .challenge(let code):
            guard let (formIndex, fieldName) = PageRules.codeEntry(in: page.forms) else {
                fail(page.url, reason: "buyer action challenge: the page has no form with a code field", session: id)
                return
            }
            let form = page.forms[formIndex]
            submit(
                form, pressing: PageRules.forwardButton(of: form), overrides: [fieldName: code],
                secretField: fieldName, session: id)
        case .press(let label):
            guard let (form, button) = PageRules.button(labelled: label, in: page.forms) else {
                fail(page.url, reason: "buyer action press: the page has no button labelled '\(label)'", session: id)
                return
            }
            submit(form, pressing: button, overrides: [:], session: id)
        case .submit(let formIndex, let fields):
            guard page.forms.indices.contains(formIndex) else {
                fail(page.url, reason: "buyer action submit: the page has no form number \(formIndex)", session: id)
                return
            }
            let form = page.forms[formIndex]
            submit(form, pressing: form.buttons.first, overrides: fields, session: id)
        }
    }

    /// Submits `form` as a browser does; `secretField` names a field that
    /// holds a typed code (masked in events when it goes into a query).
    private func submit(
        _ form: HTMLForm, pressing button: HTMLForm.Button?, overrides: [String: String], secretField: String? = nil,
        session id: UInt64
    ) {
        let entries = form.entries(pressing: button, overrides: overrides)
        let encoded = FormEncoding.encode(entries)
        let handsBack = PageRules.carriesChallengeResult(entries.map(\.name))
        if form.method == "POST" {
            navigate(
                Navigation(
                    method: "POST", url: form.action, body: Array(encoded.utf8),
                    contentType: "application/x-www-form-urlencoded", redirects: 0, handsBack: handsBack),
                session: id)
            return
        }
        var url = form.action
        if var components = URLComponents(url: form.action, resolvingAgainstBaseURL: true) {
            components.percentEncodedQuery = encoded.isEmpty ? nil : encoded
            components.fragment = nil
            url = components.url ?? form.action
        }
        navigate(
            Navigation(
                method: "GET", url: url, body: nil, contentType: nil, redirects: 0, handsBack: handsBack,
                secretQueryItem: secretField),
            session: id)
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

/// Lets the first of several answers through (a navigation decision, a buyer script's `respond`).
private final class AnswerFlag: Sendable {
    private let claimed = Atomic(false)

    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
