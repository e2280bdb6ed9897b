internal import CWebKitShim
internal import EGWWire
import Foundation
@_spi(GTK) internal import GLibMainQueue
import PaymentFlow
import Synchronization

/// One presented page: its web view, window, session and lifecycle. Lives on
/// the GTK thread, which is the main actor (GTKRuntime's rule); the C callbacks
/// reach it through an unretained pointer that stays valid until ``tearDown()``
/// disconnects them, and the handler's decisions and the buyer's answers hop
/// back there (onGTKThread) before touching anything.
@MainActor
final class WebPage {
    private let request: PageRequest
    private let handler: PageEventHandler
    private unowned let presenter: WebKitPagePresenter
    private var lifecycle = PageLifecycle()
    private var session: UnsafeMutableRawPointer?
    private var view: UnsafeMutableRawPointer?
    private var window: UnsafeMutableRawPointer?
    private var container: UnsafeMutableRawPointer?
    /// Decisions WebKit waits for, by the lifecycle's id.
    private var decisions: [UInt64: (decision: UnsafeMutableRawPointer, url: URL)] = [:]
    // MARK: pagetrust: the TLS relay every https connection of the page goes through (PageRelay.swift)
    private var relay: PageRelayLink?
    private var relayMissing = false
    /// The 3DS Method's page: in no window, never focusable, never shown, no buyer, no screenshots.
    private let invisible: Bool

    init(request: PageRequest, handler: PageEventHandler, presenter: WebKitPagePresenter, invisible: Bool = false) {
        self.request = request
        self.handler = handler
        self.presenter = presenter
        self.invisible = invisible
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: Showing

    func show(in host: WebKitPagePresenter.Host, size: (width: Int, height: Int)) {
        // pagetrust: the relay first (it initialises libcurl, which reads SSLKEYLOGFILE then, for the
        // SDK's opt-in), then the session (which removes SSLKEYLOGFILE before WebKit's network process).
        let relay = PageRelayLink.start(trust: presenter.trustRules)
        let session = egwwk_session_new_ephemeral()
        let proxy = PageProxy(presenter.trustRules.proxy, environment: ProcessInfo.processInfo.environment)
        relay?.attach(to: session, proxy: proxy)
        relay?.onAdmitted = { [unowned self] host in presenter.emit(.certificateAdmitted(host: host)) }
        relay?.onTrustFailure = { [unowned self] host, port, reason in
            relayRefused(host: host, port: port, reason: reason)
        }
        (self.relay, relayMissing) = (relay, relay == nil)
        var callbacks = egwwk_callbacks(
            context: context,
            policy: { context, decision, type, uri, status, mainFrame in
                guard let context else { return }
                let uri = uri.map { String(cString: $0) } ?? ""
                MainActor.assumeIsolated {
                    WebPage.from(context).policy(
                        decision, type: type, uri: uri, status: Int(status), mainFrame: mainFrame)
                }
            },
            load: { context, event, uri in
                guard let context else { return }
                let uri = uri.map { String(cString: $0) } ?? ""
                MainActor.assumeIsolated { WebPage.from(context).load(event: event, uri: uri) }
            },
            fail: { context, kind, uri, message, certificate, flags in
                guard let context else { return }
                let uri = uri.map { String(cString: $0) } ?? ""
                let message = message.map { String(cString: $0) } ?? ""
                MainActor.assumeIsolated {
                    WebPage.from(context).fail(
                        kind: kind, uri: uri, message: message, certificate: certificate, flags: flags)
                }
            },
            event: { context, event in
                guard let context else { return }
                MainActor.assumeIsolated { WebPage.from(context).event(event) }
            },
            message: { context, text in
                guard let context, let text else { return }
                let json = String(cString: text)
                MainActor.assumeIsolated { WebPage.from(context).rendered(json) }
            },
            request: { context, method, uri in
                guard let context, let method, let uri else { return }
                let (verb, target) = (String(cString: method), String(cString: uri))
                MainActor.assumeIsolated { WebPage.from(context).sent(method: verb, uri: target) }
            },
            terminated: { context, reason in
                guard let context else { return }
                let how = reason.map { String(cString: $0) } ?? "ended"
                MainActor.assumeIsolated { WebPage.from(context).webProcessEnded(how) }
            })
        let watching = !invisible && (presenter.scriptedBuyer != nil || presenter.wantsScreenshots)
        let watch = BuyerJavaScript.watch(patience: presenter.scriptedBuyer?.patience ?? .seconds(2))
        let view = egwwk_view_new(
            session, &callbacks, watching ? watch : nil, BuyerJavaScript.world, PageRequestWatch.script)
        self.session = session
        self.view = view
        // Downloads and JavaScript dialogs never leave the page's window (PageActs): refused, reported.
        egwwk_view_guard(
            view, session,
            { context, act, uri, length in
                guard let context,
                    let refusal = PageActs.refusal(
                        act: act, uri: uri.map { String(cString: $0) } ?? "", length: Int(length))
                else { return }
                MainActor.assumeIsolated { WebPage.from(context).refused(refusal) }
            }, context)
        if invisible {  // the 3DS Method (ThreeDSMethodPage.swift): never in a window the buyer sees
            egwwk_view_make_invisible(view)
            return
        }
        switch host.storage {
        case .window(let parent):
            let window = egwwk_window_new(parent?.pointer, Int32(size.width), Int32(size.height))
            egwwk_window_set_child(window, view)
            egwwk_window_wire_close(window, view)
            egwwk_window_set_title(window, Self.origin(of: request.url))
            egwwk_window_present(window)
            self.window = window
        case .container(let host):
            let container = host.pointer
            if egwwk_container_add(container, view) {
                self.container = container
            } else {
                // Not a box nor a window: fall back to a window of our own rather than show nothing.
                let window = egwwk_window_new(nil, Int32(size.width), Int32(size.height))
                egwwk_window_set_child(window, view)
                egwwk_window_wire_close(window, view)
                egwwk_window_present(window)
                self.window = window
            }
        }
    }

    /// The first navigation: a GET of the URL, or our own document posting the form fields.
    func start() {
        guard let view else { return }
        if relayMissing {  // pagetrust: never a page without the kit's trust
            report(lifecycle.loadFailed(reason: "the pages' TLS relay could not start"), url: request.url)
            return
        }
        guard let fields = request.formFields else {
            egwwk_view_load_uri(view, request.url.absoluteString)
            return
        }
        lifecycle.bootstrapStarted()
        egwwk_view_load_html(view, Self.autoPostDocument(to: request.url, fields: fields), "about:blank")
    }

    /// `reporting: false` when the presenter itself is going (its deinit): nothing is emitted.
    func tearDown(reporting: Bool = true) {
        _ = lifecycle.dismiss()
        for (_, pending) in decisions.sorted(by: { $0.key < $1.key }) {
            egwwk_decision_ignore(pending.decision)
            guard reporting else { continue }
            presenter.emit(.refused(pending.url, reason: "the page was dismissed before the SDK answered"))
        }
        decisions = [:]
        if let session { egwwk_view_unguard(session) }
        if let view {
            egwwk_view_disconnect(view, window)
            egwwk_view_stop(view)
        }
        if let window {
            egwwk_window_destroy(window)
        } else if let container, let view {
            egwwk_container_remove(container, view)
        }
        if let view { egwwk_object_unref(view) }
        relay?.close()  // pagetrust
        relay = nil
        if let session { egwwk_object_unref(session) }
        view = nil
        window = nil
        container = nil
        session = nil
    }

    nonisolated private static func from(_ context: UnsafeMutableRawPointer) -> WebPage {
        Unmanaged<WebPage>.fromOpaque(context).takeUnretainedValue()
    }

    // MARK: WebKit's events

    private func policy(
        _ decision: UnsafeMutableRawPointer?, type: egwwk_policy_kind, uri: String, status: Int, mainFrame: Bool
    ) {
        guard let decision else {
            if type == .newWindow { openInPlace(uri) }
            return
        }
        switch type {
        case .response:
            // An attachment or what WebKit cannot show: a download, which the guard cancels and reports
            // (an error status still fails the page below).
            let download = egwwk_response_is_download(decision)
            if download {
                egwwk_decision_download(decision)
            } else {
                egwwk_decision_use(decision)
            }
            if download || !mainFrame { documentStayed() }
            if mainFrame, status >= 400, !lifecycle.bootstrapping {
                // pagetrust: WebKit shows the relay's 502 for a refused host as the page's answer.
                let refusal = status == 502 ? URL(string: uri)?.host.flatMap { relay?.refusal(forHost: $0) } : nil
                report(lifecycle.loadFailed(reason: refusal ?? "HTTP status \(status)"), url: URL(string: uri))
            }
        case .newWindow:
            // A pop-up: never a window of its own; the same view loads it, through the same decision.
            egwwk_decision_ignore(decision)
            openInPlace(uri)
        case .navigation:
            navigate(decision, uri: uri)
        }
    }

    /// A navigation asked about left the shown document in place: it may be asked about again.
    private func documentStayed() {
        lifecycle.navigationStayed()
        askBuyerIfReady()
    }

    private func openInPlace(_ uri: String) {
        guard lifecycle.isOpen, let view, let url = URL(string: uri), url.scheme != nil else { return }
        refused(.newWindow(url))
        egwwk_view_load_uri(view, url.absoluteString)
    }

    /// The page tried to reach past its window and was refused (a download, a dialog answered, a
    /// new window kept in this view): the SDK hears of it, until the page is dismissed.
    private func refused(_ refusal: PageRefusal) {
        guard let view else { return }
        let page = egwwk_view_uri(view).flatMap { URL(string: String(cString: $0)) } ?? request.url
        // The reason names the URL without its query: emit cuts the event's URL, not the text.
        let reason = refusal.withoutQueries.description
        switch refusal {
        case .download(let url), .newWindow(let url): presenter.emit(.refused(url, reason: reason))
        case .dialog: presenter.emit(.refused(page, reason: reason))
        }
        handler.page(didRefuse: refusal)
    }

    private func navigate(_ decision: UnsafeMutableRawPointer, uri: String) {
        if lifecycle.isBootstrapNavigation(uri) {
            egwwk_decision_use(decision)
            return
        }
        guard let url = URL(string: uri) else {
            egwwk_decision_ignore(decision)
            return
        }
        let problem = presenter.trustRules.navigationProblem(url)
        switch lifecycle.navigationRequested(problem: problem, leavesDocument: egwwk_decision_leaves_document(decision))
        {
        case .refuse:
            egwwk_decision_ignore(decision)
            presenter.emit(.refused(url, reason: "the page has stopped"))
        case .refuseAndFail(let reason):
            egwwk_decision_ignore(decision)
            presenter.emit(.refused(url, reason: reason))
            handler.pageDidFailLoad(url, reason: reason)
        case .ask(let id):
            // The page is leaving (a hand-back form its script submitted, the buyer's own click): the
            // buyer is not asked about it any more, while the SDK decides nor after (a late report of its
            // load finishing starts no round until a new document commits: PageLifecycle.leavingDocument).
            decisions[id] = (decision, url)
            // The method lets the SDK tell the buyer's form POST from a link, recorded at the decision.
            // One WebKit does not report stays unknown (`nil`), which the SDK counts as a request that
            // may carry the buyer's action: never guessed as a GET.
            let method = egwwk_decision_method(decision).map { String(cString: $0).uppercased() }
            handler.page(decidePolicyFor: PageNavigation(url: url, method: method)) { [self] answer in
                onGTKThread { self.decided(id, answer, url: url) }
            }
        }
    }

    private func decided(_ id: UInt64, _ answer: NavigationDecision, url: URL) {
        let action = lifecycle.decided(id: id, answer)
        guard let decision = decisions.removeValue(forKey: id)?.decision else { return }
        switch action {
        case .load:
            presenter.emit(.decided(url, answer))
            egwwk_decision_use(decision)
        case .ignore:
            presenter.emit(.decided(url, answer))
            egwwk_decision_ignore(decision)
        case .drop:
            egwwk_decision_ignore(decision)
        }
    }

    private func load(event: egwwk_load_event, uri: String) {
        guard let view else { return }
        switch event {
        case .started:
            lifecycle.loadStarted()
        case .redirected:
            // pagetrust: pins, CA and TLS version were held by the relay before the request left.
            break
        case .committed:
            lifecycle.documentCommitted()
        case .finished:
            guard let url = URL(string: uri), url.scheme != "about" else { return }
            let report = lifecycle.loadFinished()
            self.report(report, url: url)
            if report == .finished {
                reportFirstPaint(of: url, view: view)
                askBuyerIfReady()
            }
        }
    }

    private func fail(
        kind: egwwk_fail_kind, uri: String, message: String, certificate: UnsafeMutableRawPointer?, flags: UInt32
    ) {
        guard kind != .interrupted else { return }
        let url = URL(string: uri) ?? request.url
        // pagetrust: a connection the relay refused fails with the relay's reason, not WebKit's words.
        if let refusal = url.host.flatMap({ relay?.refusal(forHost: $0) }) {
            report(lifecycle.loadFailed(reason: refusal), url: url)
            return
        }
        guard kind == .tls else {
            report(lifecycle.loadFailed(reason: message), url: url)
            return
        }
        // Only the relay's certificate reaches WebKit, allowed per host once the relay vouched for it:
        // anything else WebKit refuses is not the kit's server, and is never admitted.
        report(lifecycle.loadFailed(reason: "the server's certificate is not trusted (TLS flags \(flags))"), url: url)
    }

    /// pagetrust: the relay refused a host the page asked for (pin, chain, TLS version): the page fails
    /// now, whichever request (navigation, form, script, subresource, subframe) met the refusal.
    private func relayRefused(host: String, port: Int, reason: String) {
        guard let url = URL(string: "https://\(host.contains(":") ? "[\(host)]" : host):\(port)/") else { return }
        presenter.emit(.refused(url, reason: reason))
        if let view { egwwk_view_stop(view) }
        report(lifecycle.loadFailed(reason: reason), url: url)
    }

    private func event(_ event: egwwk_view_event) {
        switch event {
        case .close:
            report(lifecycle.buyerClosed(), url: nil)
        case .title, .uri:
            guard let window, let view else { return }
            let title = egwwk_view_title(view).map { String(cString: $0) } ?? ""
            let url = egwwk_view_uri(view).flatMap { URL(string: String(cString: $0)) } ?? request.url
            let origin = Self.origin(of: url)
            egwwk_window_set_title(window, title.isEmpty ? origin : "\(title) — \(origin)")
        }
    }

    /// The page's script is about to send a request (PageRequestWatch): the SDK hears of it before it
    /// leaves, also after the buyer closed the page (the request may still go), until the page is dismissed.
    private func sent(method: String, uri: String) {
        guard view != nil, !lifecycle.bootstrapping, let url = URL(string: uri), url.scheme != "about" else { return }
        presenter.emit(.sentRequest(url, method: method))
        handler.page(didSend: PageSentRequest(url: url, method: method))
    }

    /// The view's web process ended (crashed, killed, out of memory): the page cannot go on, and the
    /// buyer did not close it. Reported at once, so the SDK does not wait for the page's deadline.
    private func webProcessEnded(_ how: String) {
        report(lifecycle.webProcessEnded(reason: "the page's web process \(how)"), url: nil)
    }

    private func report(_ report: PageLifecycle.Report, url: URL?) {
        switch report {
        case .none: break
        case .terminated(let reason): handler.pageDidTerminate(reason: reason)
        case .finished: handler.pageDidFinishLoad(url ?? request.url)
        case .failed(let reason): handler.pageDidFailLoad(url ?? request.url, reason: reason)
        case .closedByBuyer:
            if let window { egwwk_widget_set_visible(window, false) }
            handler.pageWasClosedByBuyer()
        }
    }

    private func reportFirstPaint(of url: URL, view: UnsafeMutableRawPointer) {
        // Not after the page is gone (a frame painted while the window closes).
        let callback = GTKCallback<Void>.retained { [weak self] in
            guard let self, self.view != nil else { return }
            self.presenter.emit(.painted(url))
        }
        let waiting = egwwk_after_next_paint(view, { data in GTKCallback<Void>.call(data, with: ()) }, callback)
        if !waiting { GTKCallback<Void>.release(callback) }
    }

    // MARK: The scripted buyer

    /// The watch script described the page: the buyer is asked once the load also finished.
    private func rendered(_ json: String) {
        guard let page = Self.renderedPage(from: json), page.url.scheme != "about" else { return }
        lifecycle.described(page)
        askBuyerIfReady()
    }

    /// Asks the buyer about the shown document once it finished loading and was described (the rules
    /// are PageLifecycle's).
    private func askBuyerIfReady() {
        guard let (round, page) = lifecycle.nextBuyerRound() else { return }
        screenshot(page) { [self] in
            guard let buyer = presenter.scriptedBuyer, lifecycle.isCurrent(round: round) else { return }
            presenter.emit(.buyerAsked(page.url))
            let once = Once()
            DispatchQueue.global().async {
                buyer.decide(page) { action in
                    guard once.claim() else { return }
                    onGTKThread { self.perform(action, round: round, url: page.url) }
                }
            }
        }
    }

    private func perform(_ action: PageAction, round: UInt64, url: URL) {
        guard lifecycle.isCurrent(round: round), let view else { return }
        presenter.emit(.buyerActed(action.description))
        let script: String
        switch action {
        case .wait: return
        case .close:
            report(lifecycle.buyerClosed(), url: url)
            return
        case .enterCode(let code): script = BuyerJavaScript.enterCode(code)
        case .press(let labels): script = BuyerJavaScript.press(labels)
        case .fill(let formIndex, let fields): script = BuyerJavaScript.fill(formIndex: formIndex, fields: fields)
        }
        runScript(script, in: view) { [self] value, error in
            // A script that navigated may end with its context destroyed: only a plain answer is a refusal.
            guard let value, value != "ok", error == nil, lifecycle.isCurrent(round: round) else { return }
            report(lifecycle.loadFailed(reason: "buyer action \(action): \(value)"), url: url)
        }
    }

    private func screenshot(_ page: RenderedPage, then next: @escaping @MainActor () -> Void) {
        guard let view, let file = presenter.nextScreenshotFile(title: page.title) else {
            next()
            return
        }
        let callback = GTKCallback<Bool>.retained { [presenter] saved in
            if saved { presenter.emit(.screenshot(file)) }
            next()
        }
        egwwk_view_snapshot_png(view, file.path, { data, saved in GTKCallback<Bool>.call(data, with: saved) }, callback)
    }

    private func runScript(
        _ body: String, in view: UnsafeMutableRawPointer, done: @escaping @MainActor (String?, String?) -> Void
    ) {
        egwwk_view_evaluate(
            view, body, BuyerJavaScript.world,
            { data, value, error in
                let answer = (value.map { String(cString: $0) }, error.map { String(cString: $0) })
                GTKCallback<(String?, String?)>.call(data, with: answer)
            }, GTKCallback<(String?, String?)>.retained(done))
    }

    nonisolated private static func renderedPage(from json: String) -> RenderedPage? {
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

    // MARK: Helpers

    nonisolated private static func spki(_ certificate: UnsafeMutableRawPointer) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        return egwwk_certificate_spki_sha256(certificate, &digest) ? digest : nil
    }

    /// `scheme://host[:port]`: whose page it is.
    nonisolated static func origin(of url: URL) -> String {
        var origin = "\(url.scheme ?? "")://\(url.host ?? "")"
        if let port = url.port { origin += ":\(port)" }
        return origin
    }

    /// A document that posts `fields` to `url` as soon as it loads (how a browser starts a challenge).
    /// Names, values and the URL go through EGWWire's one HTML escaper.
    nonisolated static func autoPostDocument(to url: URL, fields: [(name: String, value: String)]) -> String {
        let escape = HTMLEscaping.escape
        let inputs = fields.map { "<input type=\"hidden\" name=\"\(escape($0.name))\" value=\"\(escape($0.value))\">" }
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title></title></head><body>
            <form id="egw-start" method="post" action="\(escape(url.absoluteString))">\(inputs.joined())</form>
            <script>document.getElementById("egw-start").submit();</script>
            </body></html>
            """
    }
}

/// Lets the first answer through.
private final class Once: Sendable {
    private let claimed = Atomic(false)
    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
