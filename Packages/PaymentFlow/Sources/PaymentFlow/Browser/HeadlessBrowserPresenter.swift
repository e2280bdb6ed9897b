import Foundation
import Synchronization

/// A `PaymentPresenter` with no screen: a small browser that really loads the
/// pages over an `HTTPTransport` (libcurl by default), follows redirects,
/// keeps cookies, submits forms, and lets a ``BuyerScript`` play the buyer.
/// Tests, the REPL and integrators' automated checks use it.
///
/// What it does for one presented page:
/// - Before every navigation (the first load, each redirect hop, each form
///   submission) it asks the handler's `page(decidePolicyFor:decisionHandler:)` and loads
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
/// - A loaded page reports `pageDidFinishLoad`; then, if it is an
///   auto-submitting page (a form with `id="cres-form"`, or `<body onload>`
///   calling `submit()`, how an ACS hands back without JavaScript), the
///   browser submits it itself; otherwise it asks the buyer script and
///   performs the answer (see ``BuyerAction``). An action the page cannot
///   satisfy (no such button, no code field) is reported as a load failure
///   whose reason names the action.
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
        /// reported as failed (guards against pages that submit forever). Default 10.
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
    ///   - transport: loads the pages; a default ``CurlTransport`` when omitted.
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

    /// Every URL the handler was asked about during the current (or last)
    /// presentation, allowed or cancelled, in order. A snapshot; thread-safe.
    public var navigations: [URL] {
        state.withLock { $0.navigations }
    }

    /// The page loaded last during the current (or last) presentation.
    public var currentPage: LoadedPage? {
        state.withLock { $0.lastPage }
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
            return state.lastID
        }
        let first: Navigation
        if let fields = page.formFields {
            let body = FormURLEncoding.encode(fields.map { (name: $0.name, value: $0.value) })
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

    private func fail(_ url: URL, reason: String, session id: UInt64) {
        guard let handler = deactivate(id) else { return }
        handler.pageDidFailLoad(url, reason: reason)
        observe(.failed(url: url, reason: reason), session: id)
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
        handler.page(decidePolicyFor: navigation.url) { [self] decision in
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
        observe(.navigation(method: navigation.method, url: navigation.url, decision: decision), session: id)
        guard proceed else { return }

        let scheme = navigation.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            fail(navigation.url, reason: "the browser loads only http and https URLs", session: id)
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
            fail(navigation.url, reason: error.description, session: id)
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
                fail(navigation.url, reason: "more than \(options.maxRedirects) redirects", session: id)
                return
            }
            let (method, body) = RedirectRule.nextMethod(
                status: response.status, method: navigation.method, body: navigation.body)
            observe(.redirect(status: response.status, from: navigation.url, to: target), session: id)
            let next = Navigation(
                method: method, url: target, body: body, contentType: body == nil ? nil : navigation.contentType,
                redirects: navigation.redirects + 1)
            navigate(next, session: id)
            return
        }
        guard response.status < 400 else {
            fail(navigation.url, reason: "HTTP \(response.status)", session: id)
            return
        }
        let page = LoadedPage(url: navigation.url, status: response.status, html: Self.text(of: response))
        state.withLock { state in
            guard state.session?.id == id else { return }
            state.lastPage = page
        }
        guard let handler = activeHandler(id) else { return }
        handler.pageDidFinishLoad(page.url)
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
                        page.url, reason: "more than \(options.maxAutomaticSubmissions) automatic form submissions",
                        session: id)
                }
                return
            }
            let form = page.forms[index]
            observe(.autoSubmitted(url: page.url, formID: form.id), session: id)
            submit(form, pressing: nil, overrides: [:], session: id)
            return
        }
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
        observe(.buyerAction(action, url: page.url), session: id)
        switch action {
        case .wait:
            return
        case .close:
            guard let handler = deactivate(id) else { return }
            handler.pageWasClosedByBuyer()
            observe(.closedByBuyer, session: id)
        case .hosted(let choice):
            guard let (form, button, overrides) = Self.hostedSubmission(choice, on: page) else {
                fail(
                    page.url,
                    reason: "buyer action hosted(\(choice.rawValue)): the page has no '\(choice.rawValue)' button",
                    session: id)
                return
            }
            submit(form, pressing: button, overrides: overrides, session: id)
        case .challenge(let code):
            guard let (form, fieldName) = Self.challengeForm(on: page) else {
                fail(page.url, reason: "buyer action challenge: the page has no form with a code field", session: id)
                return
            }
            submit(form, pressing: form.buttons.first, overrides: [fieldName: code], session: id)
        case .submit(let formIndex, let fields):
            guard page.forms.indices.contains(formIndex) else {
                fail(page.url, reason: "buyer action submit: the page has no form number \(formIndex)", session: id)
                return
            }
            let form = page.forms[formIndex]
            submit(form, pressing: form.buttons.first, overrides: fields, session: id)
        }
    }

    private func submit(
        _ form: HTMLForm, pressing button: HTMLForm.Button?, overrides: [String: String], session id: UInt64
    ) {
        let encoded = FormURLEncoding.encode(form.entries(pressing: button, overrides: overrides))
        if form.method == "POST" {
            navigate(
                Navigation(
                    method: "POST", url: form.action, body: Array(encoded.utf8),
                    contentType: "application/x-www-form-urlencoded", redirects: 0),
                session: id)
            return
        }
        var url = form.action
        if var components = URLComponents(url: form.action, resolvingAgainstBaseURL: true) {
            components.percentEncodedQuery = encoded.isEmpty ? nil : encoded
            components.fragment = nil
            url = components.url ?? form.action
        }
        navigate(Navigation(method: "GET", url: url, body: nil, contentType: nil, redirects: 0), session: id)
    }

    // MARK: - Finding what the buyer acts on

    /// The form, button and overrides for a hosted-page choice: the button
    /// `name="choice" value=<choice>`; else any button with that value; else
    /// a form with a control named `choice`, given that value.
    static func hostedSubmission(
        _ choice: HostedChoice, on page: LoadedPage
    ) -> (HTMLForm, HTMLForm.Button?, [String: String])? {
        let wanted = choice.rawValue
        func matches(_ button: HTMLForm.Button) -> Bool { button.value.caseInsensitiveCompare(wanted) == .orderedSame }
        for form in page.forms {
            if let button = form.buttons.first(where: { $0.name == "choice" && matches($0) }) {
                return (form, button, [:])
            }
        }
        for form in page.forms {
            if let button = form.buttons.first(where: matches) {
                return (form, button, [:])
            }
        }
        for form in page.forms
        where form.field("choice") != nil || form.buttons.contains(where: { $0.name == "choice" }) {
            return (form, form.buttons.first, ["choice": wanted])
        }
        return nil
    }

    /// The challenge form and its code field: a form with a field named
    /// `code`; else the first form with exactly one text-like input.
    static func challengeForm(on page: LoadedPage) -> (HTMLForm, String)? {
        if let form = page.forms.first(where: { $0.field("code") != nil }) {
            return (form, "code")
        }
        let typed: Set<String> = ["text", "password", "number", "tel", "search"]
        for form in page.forms {
            let candidates = form.fields.filter { typed.contains($0.type) }
            if candidates.count == 1 {
                return (form, candidates[0].name)
            }
        }
        return nil
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

/// Lets exactly one of several callers through (the script's first answer).
private final class AnswerFlag: Sendable {
    private let claimed = Atomic(false)

    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
