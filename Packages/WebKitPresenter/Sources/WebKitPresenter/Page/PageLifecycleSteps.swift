import Foundation
@_spi(LifecycleRuntime) import PaymentFlow

/// The page's lifecycle as the one runtime runs it (PaymentFlow's `Lifecycle`, on a `LifecycleRunner` on
/// the main queue, which is the GTK thread): what WebKit, the relay, the SDK and the scripted buyer say
/// comes in as an ``Event``; what to do comes out as ``Effect``s, in order. The rules live here, tested
/// by a table with no display (`PageLifecycleTableTests`); `WebPage` is left with the switch that calls
/// the shim.
///
/// Guarantees the table holds it to:
/// - every decision WebKit waits on (a ``Decision``) is answered exactly once (`use`, `ignore` or
///   `download`), at the latest when the page is dismissed;
/// - the handler hears of the page's end (failed, closed by the buyer, terminated) at most once, and
///   after it no finished load and no question; after the dismissal nothing happens but the answer
///   (`ignore`) to a decision WebKit still asks, and the view is torn down once;
/// - a buyer's answer, a screenshot or a script's answer for a round that is no longer current acts on
///   nothing.
///
/// The page owns no timer (`TimerID` is `Never`): its deadlines are the SDK's, which dismisses the page.
extension PageLifecycle: Lifecycle {
    typealias TimerID = Never

    /// A policy decision WebKit waits on, named by the executor (which keeps the C handle).
    struct Decision: Hashable, Sendable, CustomStringConvertible {
        var id: UInt64
        var description: String { "d\(id)" }
    }

    /// A step of a main-frame load, as WebKit reports it.
    enum LoadStep: Sendable {
        case started, redirected, committed
        case finished(uri: String)
    }

    /// Why WebKit says a load failed.
    enum FailKind: Sendable {
        /// By our own decision or a newer load: not a failure of the page.
        case interrupted
        case tls(flags: UInt32)
        case other
    }

    enum Event: Sendable {
        /// The view is shown: start the first navigation. `relayMissing`: the TLS relay could not start.
        case start(relayMissing: Bool)
        /// WebKit asks whether to follow a navigation. `leavesDocument`: it replaces the shown document.
        case navigation(Decision, uri: String, leavesDocument: Bool, method: String?)
        /// The page asked for a new window (`decision` nil: WebKit asked nothing, only told).
        case newWindow(Decision?, uri: String)
        /// WebKit asks what to do with a response. `relayRefusal`: what the relay last refused for its host.
        case response(Decision, uri: String, status: Int, mainFrame: Bool, download: Bool, relayRefusal: String?)
        /// The SDK's answer to a question (``Effect/tell(_:)`` with `.decide`).
        case decided(question: UInt64, NavigationDecision)
        case load(LoadStep)
        /// `relayRefusal`: what the relay last refused for the failed URL's host.
        case loadFailed(FailKind, uri: String, message: String, relayRefusal: String?)
        /// The relay refused a host the page asked for (pin, chain, TLS version).
        case relayRefused(host: String, port: Int, reason: String)
        /// The relay vouched for a host's certificate.
        case certificateAdmitted(host: String)
        /// The buyer closed the page's window.
        case closeRequested
        /// The view's title or address changed; `uri` nil when it has none.
        case titleChanged(title: String, uri: String?)
        /// The page tried to reach past its window (a download, a dialog); `shownURI`: the view's address.
        case actRefused(PageRefusal, shownURI: String?)
        /// The page's script is about to send a request.
        case sent(method: String, uri: String)
        /// The view's web process ended, `how` in words.
        case webProcessEnded(how: String)
        /// A frame of `url`'s document was painted.
        case painted(URL)
        /// The watch script's description of the shown document, as it sent it (JSON).
        case described(json: String)
        /// The screenshot of `round`'s page was taken (or none was wanted).
        case screenshotDone(round: UInt64, RenderedPage)
        /// The scripted buyer's answer for `round`.
        case buyerAnswered(round: UInt64, PageAction, url: URL)
        /// The buyer's script finished: `value` is the script's answer, `error` WebKit's.
        case scriptAnswered(round: UInt64, PageAction, url: URL, value: String?, error: String?)
        /// The page is going. `reporting: false`: the presenter itself is going, nothing is emitted.
        case dismiss(reporting: Bool)
    }

    /// What the page tells its ``PageEventHandler`` (the SDK).
    enum HandlerCall {
        case decide(question: UInt64, PageNavigation)
        case refused(PageRefusal)
        case finished(URL)
        case failed(URL, reason: String)
        case closedByBuyer
        case terminated(reason: String)
        case sent(PageSentRequest)
    }

    enum Effect {
        // WebKit's waiting decisions.
        case use(Decision)
        case ignore(Decision)
        case download(Decision)
        // The view.
        case load(URL)
        /// Our own `about:blank` document that posts the request's form.
        case loadBootstrap(html: String)
        case stopLoading
        case hideWindow
        case setTitle(String)
        /// Feed ``Event/painted(_:)`` after the view's next frame.
        case watchFirstPaint(URL)
        /// Feed ``Event/screenshotDone(round:_:)`` once the page's screenshot is saved (at once if none).
        case screenshot(round: UInt64, RenderedPage)
        /// Ask the scripted buyer; feed ``Event/buyerAnswered(round:_:url:)`` with its first answer.
        case askBuyer(round: UInt64, RenderedPage)
        /// Run `script` in the page; feed ``Event/scriptAnswered(round:_:url:value:error:)``.
        case runScript(round: UInt64, String, PageAction, url: URL)
        /// Disconnect from WebKit and let the view, window, relay and session go.
        case tearDown
        // Outward.
        case emit(WebKitPagePresenter.Event)
        case tell(HandlerCall)
    }

    mutating func handle(_ event: Event) -> [Effect] {
        var effects: [Effect] = []
        step(event, into: &effects)
        return effects
    }

    private mutating func step(_ event: Event, into effects: inout [Effect]) {
        guard phase != .dismissed else {
            // The page is gone: a decision WebKit still waits on is ignored; nothing else happens.
            switch event {
            case .navigation(let decision, _, _, _), .response(let decision, _, _, _, _, _),
                .newWindow(.some(let decision), _):
                effects.append(.ignore(decision))
            default: break
            }
            return
        }
        switch event {
        case .start(let relayMissing):
            if relayMissing {  // pagetrust: never a page without the kit's trust
                report(loadFailed(reason: "the pages' TLS relay could not start"), url: nil, into: &effects)
            } else if let fields = request.formFields {
                bootstrapStarted()
                effects.append(.loadBootstrap(html: Self.autoPostDocument(to: request.url, fields: fields)))
            } else {
                effects.append(.load(request.url))
            }
        case .navigation(let decision, let uri, let leavesDocument, let method):
            navigate(decision, uri: uri, leavesDocument: leavesDocument, method: method, into: &effects)
        case .newWindow(let decision, let uri):
            // A pop-up: never a window of its own; the same view loads it, through the same decision.
            if let decision { effects.append(.ignore(decision)) }
            guard isOpen, let url = URL(string: uri), url.scheme != nil else { return }
            refused(.newWindow(url), shownURI: nil, into: &effects)
            effects.append(.load(url))
        case .response(let decision, let uri, let status, let mainFrame, let download, let relayRefusal):
            // An attachment or what WebKit cannot show: a download, which the guard cancels and reports
            // (an error status still fails the page below).
            effects.append(download ? .download(decision) : .use(decision))
            if download || !mainFrame { documentStayed(into: &effects) }
            guard mainFrame, status >= 400, !bootstrapping else { return }
            // pagetrust: WebKit shows the relay's 502 for a refused host as the page's answer.
            let reason = (status == 502 ? relayRefusal : nil) ?? "HTTP status \(status)"
            report(loadFailed(reason: reason), url: URL(string: uri), into: &effects)
        case .decided(let question, let answer):
            // Not pending: answered before (or by the dismissal), or never asked.
            guard let asked = pending[question] else { return }
            switch decided(id: question, answer) {
            case .load: effects += [.emit(.decided(asked.url, answer)), .use(asked.decision)]
            case .ignore: effects += [.emit(.decided(asked.url, answer)), .ignore(asked.decision)]
            case .drop: break  // only for a question not pending, which the guard above returned for
            }
        case .load(let step):
            loaded(step, into: &effects)
        case .loadFailed(let kind, let uri, let message, let relayRefusal):
            let url = URL(string: uri) ?? request.url
            // pagetrust: a connection the relay refused fails with the relay's reason, not WebKit's words.
            // Only the relay's certificate reaches WebKit, allowed per host once the relay vouched for it:
            // anything else WebKit refuses is not the kit's server, and is never admitted.
            let reason: String
            switch (kind, relayRefusal) {
            case (.interrupted, _): return
            case (_, .some(let refusal)): reason = refusal
            case (.tls(let flags), nil): reason = "the server's certificate is not trusted (TLS flags \(flags))"
            case (.other, nil): reason = message
            }
            report(loadFailed(reason: reason), url: url, into: &effects)
        case .relayRefused(let host, let port, let reason):
            // pagetrust: the page fails now, whichever request (navigation, form, script, subresource,
            // subframe) met the refusal.
            guard let url = URL(string: "https://\(host.contains(":") ? "[\(host)]" : host):\(port)/") else { return }
            effects += [.emit(.refused(url, reason: reason)), .stopLoading]
            report(loadFailed(reason: reason), url: url, into: &effects)
        case .certificateAdmitted(let host):
            effects.append(.emit(.certificateAdmitted(host: host)))
        case .closeRequested:
            report(buyerClosed(), url: nil, into: &effects)
        case .titleChanged(let title, let uri):
            let origin = Self.origin(of: uri.flatMap { URL(string: $0) } ?? request.url)
            effects.append(.setTitle(title.isEmpty ? origin : "\(title) — \(origin)"))
        case .actRefused(let refusal, let shownURI):
            refused(refusal, shownURI: shownURI, into: &effects)
        case .sent(let method, let uri):
            // Heard also after the buyer closed the page (the request may still go), until the dismissal.
            guard !bootstrapping, let url = URL(string: uri), url.scheme != "about" else {
                return
            }
            effects += [
                .emit(.sentRequest(url, method: method)), .tell(.sent(PageSentRequest(url: url, method: method))),
            ]
        case .webProcessEnded(let how):
            report(webProcessEnded(reason: "the page's web process \(how)"), url: nil, into: &effects)
        case .painted(let url):
            effects.append(.emit(.painted(url)))
        case .described(let json):
            guard let page = Self.renderedPage(from: json), page.url.scheme != "about" else { return }
            described(page)
            askBuyerIfReady(into: &effects)
        case .screenshotDone(let round, let page):
            guard hasBuyer, asksBuyer(round: round) else { return }
            effects += [.emit(.buyerAsked(page.url)), .askBuyer(round: round, page)]
        case .buyerAnswered(let round, let action, let url):
            buyerActed(action, round: round, url: url, into: &effects)
        case .scriptAnswered(let round, let action, let url, let value, let error):
            // A script that navigated may end with its context destroyed: only a plain answer is a refusal.
            guard let value, value != "ok", error == nil, isCurrent(round: round) else { return }
            report(loadFailed(reason: "buyer action \(action): \(value)"), url: url, into: &effects)
        case .dismiss(let reporting):
            for (_, question) in dismiss() {
                effects.append(.ignore(question.decision))
                if reporting {
                    effects.append(
                        .emit(.refused(question.url, reason: "the page was dismissed before the SDK answered")))
                }
            }
            effects.append(.tearDown)
        }
    }

    private mutating func navigate(
        _ decision: Decision, uri: String, leavesDocument: Bool, method: String?, into effects: inout [Effect]
    ) {
        if isBootstrapNavigation(uri) {
            effects.append(.use(decision))
            return
        }
        guard let url = URL(string: uri) else {
            effects.append(.ignore(decision))
            return
        }
        let question = Question(decision: decision, url: url)
        switch navigationRequested(question, problem: trust.navigationProblem(url), leavesDocument: leavesDocument) {
        case .refuse:
            effects += [.ignore(decision), .emit(.refused(url, reason: "the page has stopped"))]
        case .refuseAndFail(let reason):
            effects += [.ignore(decision), .emit(.refused(url, reason: reason)), .tell(.failed(url, reason: reason))]
        case .ask(let id):
            // The page is leaving (a hand-back form its script submitted, the buyer's own click): the
            // buyer is not asked about it any more, while the SDK decides nor after (a late report of its
            // load finishing starts no round until a new document commits: `leavingDocument`).
            // The method lets the SDK tell the buyer's form POST from a link, recorded at the decision.
            // One WebKit does not report stays unknown (`nil`), which the SDK counts as a request that
            // may carry the buyer's action: never guessed as a GET.
            effects.append(.tell(.decide(question: id, PageNavigation(url: url, method: method?.uppercased()))))
        }
    }

    private mutating func loaded(_ step: LoadStep, into effects: inout [Effect]) {
        switch step {
        case .started: loadStarted()
        // pagetrust: pins, CA and TLS version were held by the relay before the request left.
        case .redirected: break
        case .committed: documentCommitted()
        case .finished(let uri):
            guard let url = URL(string: uri), url.scheme != "about" else { return }
            let finished = loadFinished()
            report(finished, url: url, into: &effects)
            guard finished == .finished else { return }
            effects.append(.watchFirstPaint(url))
            askBuyerIfReady(into: &effects)
        }
    }

    /// A navigation asked about left the shown document in place: it may be asked about again.
    private mutating func documentStayed(into effects: inout [Effect]) {
        navigationStayed()
        askBuyerIfReady(into: &effects)
    }

    /// The page tried to reach past its window and was refused: the SDK hears of it, until the dismissal.
    private func refused(_ refusal: PageRefusal, shownURI: String?, into effects: inout [Effect]) {
        // The reason names the URL without its query: emit cuts the event's URL, not the text.
        let reason = refusal.withoutQueries.description
        switch refusal {
        case .download(let url), .newWindow(let url): effects.append(.emit(.refused(url, reason: reason)))
        case .dialog:
            let page = shownURI.flatMap { URL(string: $0) } ?? request.url
            effects.append(.emit(.refused(page, reason: reason)))
        }
        effects.append(.tell(.refused(refusal)))
    }

    /// Asks the buyer about the shown document once it finished loading and was described (after its
    /// screenshot, when screenshots are wanted).
    private mutating func askBuyerIfReady(into effects: inout [Effect]) {
        guard let (round, page) = nextBuyerRound() else { return }
        effects.append(.screenshot(round: round, page))
    }

    private mutating func buyerActed(_ action: PageAction, round: UInt64, url: URL, into effects: inout [Effect]) {
        guard awaitsBuyer(round: round) else { return }
        effects.append(.emit(.buyerActed(action.description)))
        let script: String
        switch action {
        case .wait: return
        case .close:
            report(buyerClosed(), url: url, into: &effects)
            return
        case .enterCode(let code): script = BuyerJavaScript.enterCode(code)
        case .press(let labels): script = BuyerJavaScript.press(labels)
        case .fill(let formIndex, let fields): script = BuyerJavaScript.fill(formIndex: formIndex, fields: fields)
        }
        effects.append(.runScript(round: round, script, action, url: url))
    }

    private func report(_ report: Report, url: URL?, into effects: inout [Effect]) {
        switch report {
        case .none: break
        case .terminated(let reason): effects.append(.tell(.terminated(reason: reason)))
        case .finished: effects.append(.tell(.finished(url ?? request.url)))
        case .failed(let reason): effects.append(.tell(.failed(url ?? request.url, reason: reason)))
        case .closedByBuyer: effects += [.hideWindow, .tell(.closedByBuyer)]
        }
    }

    /// The watch script's JSON, or nil when it is not a description.
    static func renderedPage(from json: String) -> RenderedPage? {
        struct Shape: Decodable {
            var title: String
            var url: String
            var html: String
            var codeFields: Int
            var buttons: [String]
        }
        guard let shape = try? JSONDecoder().decode(Shape.self, from: Data(json.utf8)), let url = URL(string: shape.url)
        else { return nil }
        return RenderedPage(
            url: url, title: shape.title, html: shape.html, codeFieldCount: shape.codeFields,
            buttonLabels: shape.buttons)
    }
}
