internal import CWebKitShim
internal import EGWWire
import Foundation
@_spi(GTK) internal import GLibMainQueue
@_spi(LifecycleRuntime) import PaymentFlow
import Synchronization

/// One presented page: the executor of its ``PageLifecycle``, and the web view, window, session and
/// relay it acts on. The lifecycle decides (PageLifecycleSteps.swift); this class turns WebKit's C
/// callbacks into the lifecycle's events and performs its effects with the shim, and nothing else.
///
/// Lives on the GTK thread, which is the main thread, the main queue and the main actor (GTKRuntime's
/// rule): the lifecycle's runner runs on the main queue; the C callbacks reach this object through an
/// unretained pointer that stays valid until the teardown disconnects them; the handler's decisions
/// and the buyer's answers hop back (onGTKThread) before they are fed.
@MainActor
final class WebPage {
    private let request: PageRequest
    private let handler: PageEventHandler
    private unowned let presenter: WebKitPagePresenter
    private let runner: LifecycleRunner<PageLifecycle>
    private var session: UnsafeMutableRawPointer?
    private var view: UnsafeMutableRawPointer?
    private var window: UnsafeMutableRawPointer?
    private var container: UnsafeMutableRawPointer?
    /// The C decisions WebKit waits on, by the name the lifecycle knows them by.
    private var decisions: [UInt64: UnsafeMutableRawPointer] = [:]
    private var lastDecision: UInt64 = 0
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
        let lifecycle = PageLifecycle(
            request: request, trust: presenter.trustRules, hasBuyer: !invisible && presenter.scriptedBuyer != nil)
        // The page owns no timer; the schedule is there because every runner has one.
        runner = LifecycleRunner(lifecycle, queue: .main, schedule: liveLifecycleSchedule)
        runner.setPerformer { [weak self] effect in
            MainActor.assumeIsolated { self?.perform(effect) }
        }
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
        relay?.onAdmitted = { [unowned self] host in feed(.certificateAdmitted(host: host)) }
        relay?.onTrustFailure = { [unowned self] host, port, reason in
            feed(.relayRefused(host: host, port: port, reason: reason))
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
            fail: { context, kind, uri, message, flags in
                guard let context else { return }
                let uri = uri.map { String(cString: $0) } ?? ""
                let message = message.map { String(cString: $0) } ?? ""
                MainActor.assumeIsolated {
                    WebPage.from(context).fail(kind: kind, uri: uri, message: message, flags: flags)
                }
            },
            event: { context, event in
                guard let context else { return }
                MainActor.assumeIsolated { WebPage.from(context).event(event) }
            },
            message: { context, text in
                guard let context, let text else { return }
                let json = String(cString: text)
                MainActor.assumeIsolated { WebPage.from(context).feed(.described(json: json)) }
            },
            request: { context, method, uri in
                guard let context, let method, let uri else { return }
                let (verb, target) = (String(cString: method), String(cString: uri))
                MainActor.assumeIsolated { WebPage.from(context).feed(.sent(method: verb, uri: target)) }
            },
            terminated: { context, reason in
                guard let context else { return }
                let how = reason.map { String(cString: $0) } ?? "ended"
                MainActor.assumeIsolated { WebPage.from(context).feed(.webProcessEnded(how: how)) }
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
            egwwk_window_set_title(window, PageLifecycle.origin(of: request.url))
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
        guard view != nil else { return }
        feed(.start(relayMissing: relayMissing))
    }

    /// The page is going: the decisions the SDK has not answered are ignored (and reported, unless
    /// `reporting` is false because the presenter itself is going), then the view is let go.
    func tearDown(reporting: Bool = true) {
        feed(.dismiss(reporting: reporting))
    }

    /// The lifecycle's `tearDown`: disconnect from WebKit, then let the view, window, relay and session go.
    private func tearDownView() {
        // The lifecycle answered every decision it named; one left here would keep WebKit waiting.
        for (_, decision) in decisions.sorted(by: { $0.key < $1.key }) { egwwk_decision_ignore(decision) }
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

    // MARK: WebKit's callbacks, as the lifecycle's events

    private func policy(
        _ decision: UnsafeMutableRawPointer?, type: egwwk_policy_kind, uri: String, status: Int, mainFrame: Bool
    ) {
        guard let decision else {
            if type == .newWindow { feed(.newWindow(nil, uri: uri)) }
            return
        }
        switch type {
        case .response:
            let download = egwwk_response_is_download(decision)
            feed(
                .response(
                    waiting(decision), uri: uri, status: status, mainFrame: mainFrame, download: download,
                    relayRefusal: relayRefusal(for: uri)))
        case .newWindow:
            feed(.newWindow(waiting(decision), uri: uri))
        case .navigation:
            let leaves = egwwk_decision_leaves_document(decision)
            let method = egwwk_decision_method(decision).map { String(cString: $0) }
            feed(.navigation(waiting(decision), uri: uri, leavesDocument: leaves, method: method))
        }
    }

    private func load(event: egwwk_load_event, uri: String) {
        switch event {
        case .started: feed(.load(.started))
        case .redirected: feed(.load(.redirected))
        case .committed: feed(.load(.committed))
        case .finished: feed(.load(.finished(uri: uri)))
        }
    }

    private func fail(kind: egwwk_fail_kind, uri: String, message: String, flags: UInt32) {
        let why: PageLifecycle.FailKind =
            switch kind {
            case .interrupted: .interrupted
            case .tls: .tls(flags: flags)
            case .other: .other
            }
        let refusal = relayRefusal(for: uri, fallback: request.url)
        feed(.loadFailed(why, uri: uri, message: message, relayRefusal: refusal))
    }

    private func event(_ event: egwwk_view_event) {
        switch event {
        case .close:
            feed(.closeRequested)
        case .title, .uri:
            guard window != nil, let view else { return }
            let title = egwwk_view_title(view).map { String(cString: $0) } ?? ""
            feed(.titleChanged(title: title, uri: egwwk_view_uri(view).map { String(cString: $0) }))
        }
    }

    private func refused(_ refusal: PageRefusal) {
        feed(.actRefused(refusal, shownURI: view.flatMap { egwwk_view_uri($0) }.map { String(cString: $0) }))
    }

    // MARK: The executor: the lifecycle's effects, performed

    /// Hands `event` to the lifecycle (on the GTK thread); an event fed while another is handled waits
    /// behind it (the runtime's local event queue), so a C call that answers at once never re-enters.
    private func feed(_ event: PageLifecycle.Event) { runner.feed(event) }

    private func perform(_ effect: PageLifecycle.Effect) {
        switch effect {
        case .use(let decision): take(decision).map { egwwk_decision_use($0) }
        case .ignore(let decision): take(decision).map { egwwk_decision_ignore($0) }
        case .download(let decision): take(decision).map { egwwk_decision_download($0) }
        case .load(let url): view.map { egwwk_view_load_uri($0, url.absoluteString) }
        case .loadBootstrap(let html): view.map { egwwk_view_load_html($0, html, "about:blank") }
        case .stopLoading: view.map { egwwk_view_stop($0) }
        case .hideWindow: window.map { egwwk_widget_set_visible($0, false) }
        case .setTitle(let title): window.map { egwwk_window_set_title($0, title) }
        case .watchFirstPaint(let url): watchFirstPaint(of: url)
        case .screenshot(let round, let page):
            screenshot(page) { [weak self] in self?.feed(.screenshotDone(round: round, page)) }
        case .askBuyer(let round, let page): ask(round: round, page)
        case .runScript(let round, let script, let action, let url):
            runScript(script) { [weak self] value, error in
                self?.feed(.scriptAnswered(round: round, action, url: url, value: value, error: error))
            }
        case .tearDown: tearDownView()
        case .emit(let event): presenter.emit(event)
        case .tell(let call): tell(call)
        }
    }

    private func tell(_ call: PageLifecycle.HandlerCall) {
        switch call {
        case .decide(let question, let navigation):
            handler.page(decidePolicyFor: navigation) { [weak self] answer in
                onGTKThread { self?.feed(.decided(question: question, answer)) }
            }
        case .refused(let refusal): handler.page(didRefuse: refusal)
        case .finished(let url): handler.pageDidFinishLoad(url)
        case .failed(let url, let reason): handler.pageDidFailLoad(url, reason: reason)
        case .closedByBuyer: handler.pageWasClosedByBuyer()
        case .terminated(let reason): handler.pageDidTerminate(reason: reason)
        case .sent(let request): handler.page(didSend: request)
        }
    }

    /// A C decision WebKit waits on, named for the lifecycle; ``take(_:)`` hands it back exactly once.
    private func waiting(_ decision: UnsafeMutableRawPointer) -> PageLifecycle.Decision {
        lastDecision += 1
        decisions[lastDecision] = decision
        return PageLifecycle.Decision(id: lastDecision)
    }

    private func take(_ decision: PageLifecycle.Decision) -> UnsafeMutableRawPointer? {
        decisions.removeValue(forKey: decision.id)
    }

    /// What the relay last refused for the host of `uri` (or of `fallback` when `uri` is no URL).
    private func relayRefusal(for uri: String, fallback: URL? = nil) -> String? {
        (URL(string: uri) ?? fallback)?.host.flatMap { relay?.refusal(forHost: $0) }
    }

    private func watchFirstPaint(of url: URL) {
        guard let view else { return }
        let callback = GTKCallback<Void>.retained { [weak self] in self?.feed(.painted(url)) }
        let waiting = egwwk_after_next_paint(view, { data in GTKCallback<Void>.call(data, with: ()) }, callback)
        if !waiting { GTKCallback<Void>.release(callback) }
    }

    /// Asks the scripted buyer off the GTK thread; its first answer comes back as an event.
    private func ask(round: UInt64, _ page: RenderedPage) {
        guard let buyer = presenter.scriptedBuyer else { return }
        let once = Once()
        DispatchQueue.global().async { [weak self] in
            buyer.decide(page) { action in
                guard once.claim() else { return }
                onGTKThread { self?.feed(.buyerAnswered(round: round, action, url: page.url)) }
            }
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

    private func runScript(_ body: String, done: @escaping @MainActor (String?, String?) -> Void) {
        guard let view else { return }
        egwwk_view_evaluate(
            view, body, BuyerJavaScript.world,
            { data, value, error in
                let answer = (value.map { String(cString: $0) }, error.map { String(cString: $0) })
                GTKCallback<(String?, String?)>.call(data, with: answer)
            }, GTKCallback<(String?, String?)>.retained(done))
    }
}

/// Lets the first answer through.
private final class Once: Sendable {
    private let claimed = Atomic(false)
    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
