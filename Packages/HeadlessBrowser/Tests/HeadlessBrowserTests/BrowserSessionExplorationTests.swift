import Foundation
import PaymentFlow
import StateExplorer
import Testing

@testable import HeadlessBrowser

/// Walks every ordering of the browser's events up to a depth on the value machine itself
/// (`BrowserSession`, no queue, no network), breadth first from every distinct reachable state:
/// presenting (and presenting again, also while a page is shown), the handler allowing or cancelling
/// each navigation, each load answered by a model site in every way (a hosted checkout, a challenge
/// with a GET form, one with a POST form, a page whose form has no `action` (it posts to the page's own
/// URL, the typed code's query included after a GET challenge), an issuer's hand-back that submits
/// itself, a page that submits itself forever, the notification page, a 302 and a 307 that set a
/// cookie, a 302 to `#x` (the same URL again, query kept), a 500, a transport failure, the watchdog), the buyer script's answers (wait, close, pay, the typed code, a
/// button the page lacks), every answer delivered a second time or late, and `dismiss`, also between
/// two effects of one event (from another thread, while the executor performs them). The effects go
/// through the executor's own rule (`admits`), as `BrowserExecutor` performs them.
///
/// After every step:
/// - after `dismiss`, no handler call, no load, no buyer question and no `BrowserEvent` of that page;
/// - a cancelled navigation, a failure or a close ends the page: the handler hears nothing more;
/// - nothing is loaded but the navigation the handler just allowed, once, with its method;
/// - a finished report only for a load the site answered with a page, once;
/// - at most `maxRedirects` hops per navigation, `maxAutomaticSubmissions` in a row;
/// - the typed code never appears in an event (printed or dumped) or in the session's description;
/// - every `present` and every `dismiss` is answered exactly once (`.dismissed` only for a page);
/// - a session that waits has something pending that can wake it (a load has its watchdog armed).
///
/// `everyMutationIsCaught` switches on each of the session's deliberate bugs (`BrowserSession.Mutation`,
/// compiled in debug builds only) and shows the same walk finds it; the mask left behind on a URL derived
/// from the code-bearing one is found by each of the two pages that derive one, and by nothing else.
@Suite struct BrowserSessionExplorationTests {
    static let code = "735914"
    static let settings = BrowserSession.Settings(pageTimeout: 30, maxRedirects: 2, maxAutomaticSubmissions: 2)
    static let base = "http://gw.example"
    static func url(_ path: String) -> URL { URL(string: base + path)! }
    static let html = [HTTPHeader("Content-Type", "text/html; charset=utf-8")]

    /// How the model site answers one load.
    enum Reply: String, CaseIterable {
        case hosted, challengeGet, challengePost, actionless, handBack, autoLoop, notification, found, temporary
        case fragmentOnly, serverError, transportFailure

        func result(for request: HTTPRequest) -> Result<HTTPResponse, TransportError> {
            func page(
                _ text: String, _ headers: [HTTPHeader] = BrowserSessionExplorationTests.html
            )
                -> Result<HTTPResponse, TransportError>
            {
                .success(HTTPResponse(status: 200, headers: headers, body: Array(text.utf8), url: request.url))
            }
            switch self {
            case .hosted: return page(TestPages.hosted(action: "/pay"))
            case .challengeGet:
                return page(
                    "<html><body><form action=\"/verify\"><input type=\"hidden\" name=\"tx\" value=\"9\">"
                        + "<input type=\"password\" name=\"pin\"><input type=\"submit\" value=\"OK\"></form></body></html>"
                )
            case .challengePost: return page(TestPages.challenge(action: "/acs/submit"))
            case .actionless:
                return page(
                    "<html><body><form method=\"post\"><input type=\"hidden\" name=\"step\" value=\"2\">"
                        + "<button type=\"submit\" name=\"choice\" value=\"pay\">Pay</button></form></body></html>")
            case .handBack: return page(TestPages.complete(notification: "/notify", cres: "c1"))
            case .autoLoop:
                return page(
                    "<html><body><form method=\"post\" action=\"/loop\"><input type=\"hidden\" name=\"n\" value=\"1\">"
                        + "</form></body></html>")
            case .notification: return page("<meta name=egw-page content=3ds-notification>")
            case .found, .temporary:
                return .success(
                    HTTPResponse(
                        status: self == .found ? 302 : 307,
                        headers: [HTTPHeader("Location", "/hop"), HTTPHeader("Set-Cookie", "hop=1; Path=/")],
                        url: request.url))
            case .fragmentOnly:
                return .success(
                    HTTPResponse(status: 302, headers: [HTTPHeader("Location", "#x")], url: request.url))
            case .serverError:
                return .success(HTTPResponse(status: 500, headers: Self.htmlHeaders, body: [], url: request.url))
            case .transportFailure: return .failure(TransportError(.connect, "connection refused"))
            }
        }

        static let htmlHeaders = BrowserSessionExplorationTests.html

        /// A page below 400 that is not a redirect: the handler hears that it finished.
        var finishes: Bool {
            switch self {
            case .hosted, .challengeGet, .challengePost, .actionless, .handBack, .autoLoop, .notification: true
            case .found, .temporary, .fragmentOnly, .serverError, .transportFailure: false
            }
        }
    }

    static let actions: [BuyerAction] = [
        .wait, .close, .hosted(.pay), .challenge(code: code), .press(label: "Nope"),
    ]

    /// The session and the world around it: what is pending, what the handler and observer heard.
    struct World {
        var machine: BrowserSession
        var trail: [String] = []
        var violations: [String] = []
        /// The presentation the world presented last, and those it dismissed.
        var current: UInt64 = 0
        var dismissed: Set<UInt64> = []
        var presents = 0
        var triedPresentingTwice = false
        var presentAnswersOwed = 0
        var dismissCalls = 0
        /// For each `dismiss` not yet completed: whether a page was presented when it was called.
        var dismissesOwed: [Bool] = []
        /// The page stopped (cancel, failure, close): its handler hears nothing more.
        var ended = false
        var question: (token: UInt64, navigation: PageNavigation)?
        /// The navigation the world just allowed, not yet loaded.
        var allowed: PageNavigation?
        var load: (token: UInt64, request: HTTPRequest)?
        var timers: Set<UInt64> = []
        /// The URL of a load the site answered with a page: one finished report owed.
        var finishOwed: URL?
        var asked: (token: UInt64, page: LoadedPage)?
        var hops = 0
        var redirected = false
        var automaticInARow = 0
        /// The last answer of each kind, delivered again (a second answer, a late one).
        var lastDecision: BrowserSession.Event?
        var lastLoad: BrowserSession.Event?
        var lastBuyer: BrowserSession.Event?

        /// The ways the model site answers a load.
        var replies = Reply.allCases

        init(mutation: BrowserSession.Mutation) {
            machine = BrowserSession(settings: BrowserSessionExplorationTests.settings)
            #if DEBUG
            machine.mutation = mutation
            #endif
        }

        mutating func violation(_ text: String) {
            violations.append(text + " after " + trail.suffix(14).joined(separator: " > "))
        }

        // MARK: Feeding

        mutating func present() {
            let page =
                presents == 0
                ? PageRequest(url: url("/start"), purpose: .hostedCheckout)
                : PageRequest(url: url("/acs"), formFields: [("creq", "x")], purpose: .challenge)
            let wasPresenting = machine.isPresenting
            if wasPresenting { triedPresentingTwice = true } else { presents += 1 }
            presentAnswersOwed += 1
            let before = machine.session
            let effects = machine.handle(.present(page))
            if machine.session != before {
                if wasPresenting { violation("a second page presented over the first") }
                current = machine.session
                // What the last page still awaits comes late now, for a page that is gone.
                if let question { lastDecision = .decided(token: question.token, .allow) }
                if let load {
                    lastLoad = .loaded(token: load.token, Reply.hosted.result(for: load.request))
                }
                if let asked { lastBuyer = .buyerAnswered(token: asked.token, .hosted(.pay)) }
                question = nil
                load = nil
                asked = nil
                allowed = nil
                ended = false
                hops = 0
                redirected = false
                automaticInARow = 0
            }
            perform(effects)
        }

        /// `dismiss` from another thread; returns its effects (the executor performs them on its queue,
        /// after what was queued before).
        mutating func dismiss() -> [BrowserSession.Effect] {
            dismissCalls += 1
            dismissesOwed.append(machine.isPresenting)
            if machine.isPresenting { dismissed.insert(current) }
            return machine.handle(.dismiss)
        }

        /// Feeds `event`; with `dismissAfter` k, a `dismiss` comes after the executor performed k of its effects.
        mutating func feed(_ event: BrowserSession.Event, dismissAfter: Int? = nil) {
            switch event {
            case .decided(let token, let decision):
                if question?.token == token, let navigation = question?.navigation {
                    question = nil
                    if decision == .allow { allowed = navigation } else { ended = true }
                }
                lastDecision = event
            case .loaded(let token, let result):
                if load?.token == token, let request = load?.request {
                    load = nil
                    if case .success(let response) = result, response.status < 300 { finishOwed = request.url }
                }
                lastLoad = event
            case .loadTimedOut(let token):
                timers.remove(token)
                if load?.token == token, let request = load?.request {
                    load = nil
                    // The transport may still answer, late.
                    lastLoad = .loaded(token: token, Reply.hosted.result(for: request))
                }
            case .buyerAnswered(let token, _):
                if asked?.token == token { asked = nil }
                lastBuyer = event
            case .present, .dismiss:
                break
            }
            let effects = machine.handle(event)
            var queuedAfter: [BrowserSession.Effect] = []
            for (index, effect) in effects.enumerated() {
                if index == dismissAfter { queuedAfter = dismiss() }
                perform([effect])
            }
            perform(queuedAfter)
            if finishOwed != nil, case .loaded = event, machine.isPresenting {
                violation("a page loaded but the handler was not told")
            }
            finishOwed = nil
        }

        // MARK: The executor's rule, and what the handler and observer hear

        mutating func reach(_ session: UInt64, _ what: String, handler: Bool = true) {
            if dismissed.contains(session) { violation("\(what) after dismiss") }
            if session != current { violation("\(what) of another presentation") }
            if handler && ended { violation("\(what) after the page ended") }
        }

        mutating func perform(_ effects: [BrowserSession.Effect]) {
            for effect in effects where machine.admits(effect) {
                switch effect {
                case .answerPresent:
                    presentAnswersOwed -= 1
                    if presentAnswersOwed < 0 { violation("present answered twice") }
                case .askHandler(let session, let token, let navigation):
                    reach(session, "asked the handler")
                    if question != nil { violation("asked the handler while a question is open") }
                    question = (token, navigation)
                    if !redirected { hops = 0 }
                    redirected = false
                case .load(let session, let token, let request):
                    reach(session, "a load")
                    if allowed?.url != request.url || allowed?.method != request.method {
                        violation("loaded \(request.method) \(request.url.path) without an allowing decision")
                    }
                    allowed = nil
                    load = (token, request)
                    // The watchdog runs before the load leaves: a transfer answering at once finds it.
                    if !timers.contains(token) { violation("load #\(token) went out before its watchdog") }
                case .startTimer(let session, let token, _):
                    reach(session, "a watchdog", handler: false)
                    timers.insert(token)
                case .cancelTimer(let token):
                    timers.remove(token)
                case .reportFinished(let session, let url):
                    reach(session, "a finished report")
                    if finishOwed != url { violation("finished reported for \(url.path) that did not load a page") }
                    finishOwed = nil
                case .reportFailed(let session, _, let reason):
                    reach(session, "a failure report")
                    if reason.contains(BrowserSessionExplorationTests.code) { violation("the code in a failure") }
                    ended = true
                case .reportClosed(let session):
                    reach(session, "a close report")
                    ended = true
                case .observe(let session, let event):
                    reach(session, "the event \(event)", handler: false)
                    observe(event)
                case .askBuyer(let session, let token, let page):
                    reach(session, "a buyer question")
                    asked = (token, page)
                    automaticInARow = 0
                case .completeDismiss(let wasPresented):
                    guard !dismissesOwed.isEmpty else {
                        violation("dismiss completed twice")
                        continue
                    }
                    if dismissesOwed.removeFirst() != wasPresented { violation("dismissed announced wrongly") }
                }
            }
            if machine.description.contains(BrowserSessionExplorationTests.code) {
                violation("the code in the session's description")
            }
        }

        mutating func observe(_ event: BrowserEvent) {
            var dumped = ""
            dump(event, to: &dumped)
            if "\(event) \(dumped)".contains(BrowserSessionExplorationTests.code) {
                violation("the typed code in the event \(event)")
            }
            switch event {
            case .redirect:
                hops += 1
                redirected = true
                if hops > BrowserSessionExplorationTests.settings.maxRedirects { violation("\(hops) redirects") }
            case .autoSubmitted:
                automaticInARow += 1
                if automaticInARow > BrowserSessionExplorationTests.settings.maxAutomaticSubmissions {
                    violation("\(automaticInARow) automatic submissions in a row")
                }
            case .navigation, .loaded, .failed, .buyerAction, .closedByBuyer, .dismissed:
                break
            }
        }

        /// A session that waits has what can wake it pending in the world.
        mutating func checkNotStuck() {
            switch machine.phase {
            case .deciding(_, let token):
                if question?.token != token { violation("deciding with no question open") }
            case .loading(_, let token):
                if load?.token != token { violation("loading with no request out") }
                if !timers.contains(token) { violation("loading with no watchdog") }
            case .askingBuyer(_, let token):
                if asked?.token != token { violation("asking the buyer with no question out") }
            case .idle, .resting, .stopped, .dismissed:
                break
            }
        }

        // MARK: What can happen next

        enum Step {
            case present
            case dismiss
            case feed(BrowserSession.Event)
        }

        var enabled: [(String, Step)] {
            var steps: [(String, Step)] = []
            if let question {
                for decision in [NavigationDecision.allow, .cancel] {
                    steps.append(
                        (
                            "\(decision) \(question.navigation.url.path)",
                            .feed(.decided(token: question.token, decision))
                        ))
                }
            }
            if let load {
                for reply in replies {
                    steps.append(
                        (
                            "\(reply) for \(load.request.url.path)",
                            .feed(.loaded(token: load.token, reply.result(for: load.request)))
                        ))
                }
            }
            for token in timers.sorted() { steps.append(("watchdog \(token)", .feed(.loadTimedOut(token: token)))) }
            if let asked {
                for action in BrowserSessionExplorationTests.actions {
                    steps.append(("buyer \(action)", .feed(.buyerAnswered(token: asked.token, action))))
                }
            }
            for (name, event) in [("decision", lastDecision), ("load answer", lastLoad), ("buyer answer", lastBuyer)] {
                if let event { steps.append(("\(name) again", .feed(event))) }
            }
            if dismissCalls <= presents { steps.append(("dismiss", .dismiss)) }
            if !machine.isPresenting && presents < 2 { steps.append(("present", .present)) }
            if machine.isPresenting && !triedPresentingTwice { steps.append(("present again", .present)) }
            return steps
        }

        /// Everything that changes what can happen next (tokens left out: only whether they match).
        var fingerprint: String {
            func awaited() -> UInt64? {
                switch machine.phase {
                case .deciding(_, let token), .loading(_, let token), .askingBuyer(_, let token): token
                case .idle, .resting, .stopped, .dismissed: nil
                }
            }
            func navigation(_ navigation: BrowserSession.Navigation) -> String {
                "\(navigation.method) \(navigation.url.absoluteString) \(navigation.redirects) \(navigation.handsBack) "
                    + "\(navigation.secretQueryItem ?? "-") \(navigation.body?.count ?? -1)"
            }
            let phase: String
            switch machine.phase {
            case .idle: phase = "idle"
            case .deciding(let nav, _): phase = "deciding \(navigation(nav))"
            case .loading(let nav, _): phase = "loading \(navigation(nav))"
            case .askingBuyer(let page, _):
                phase = "asking \(page.loaded.url.absoluteString) \(page.loaded.kind) \(page.secretQueryItem ?? "-")"
            case .resting(let page): phase = "resting \(page.loaded.url.absoluteString) \(page.secretQueryItem ?? "-")"
            case .stopped(let stop): phase = "stopped \(stop)"
            case .dismissed: phase = "dismissed"
            }
            let token = awaited()
            func tag(_ event: BrowserSession.Event?) -> String {
                switch event {
                case .decided(let t, let d)?: "d\(t == token) \(d)"
                case .loaded(let t, let r)?: "l\(t == token) \((try? r.get())?.status ?? -1)"
                case .buyerAnswered(let t, let a)?: "b\(t == token) \(a)"
                case .present?, .dismiss?, .loadTimedOut?, nil: "-"
                }
            }
            return [
                phase, "\(machine.automaticSubmissions) \(machine.jar.cookies.count) \(machine.session)",
                "\(current) \(dismissed.sorted()) \(presents) \(triedPresentingTwice) \(presentAnswersOwed)",
                "\(dismissCalls) \(dismissesOwed) \(ended) \(hops) \(redirected) \(automaticInARow)",
                "q \(question.map { "\($0.token == token) \($0.navigation.url)" } ?? "-")",
                "a \(allowed?.url.absoluteString ?? "-")",
                "l \(load.map { "\($0.token == token) \($0.request.url)" } ?? "-") t \(timers.map { $0 == token })",
                "b \(asked.map { "\($0.token == token) \($0.page.url)" } ?? "-")",
                tag(lastDecision), tag(lastLoad), tag(lastBuyer),
            ].joined(separator: " | ")
        }

        /// The successors of this world: each enabled step, and each feed with a `dismiss` between
        /// two of its effects.
        func successors() -> [World] {
            var next: [World] = []
            for (label, step) in enabled {
                var world = self
                world.trail.append(label)
                switch step {
                case .present:
                    world.present()
                case .dismiss:
                    let effects = world.dismiss()
                    world.perform(effects)
                case .feed(let event):
                    var probe = self.machine
                    let count = probe.handle(event).count
                    for cut in 1..<max(count, 1) {
                        var midway = self
                        midway.trail.append(label + " (dismiss after \(cut) effects)")
                        midway.feed(event, dismissAfter: cut)
                        midway.checkNotStuck()
                        next.append(midway)
                    }
                    world.feed(event)
                }
                world.checkNotStuck()
                next.append(world)
            }
            return next
        }
    }

    static func explore(
        depth: Int, mutation: BrowserSession.Mutation, replies: [Reply] = Reply.allCases
    ) -> ExplorationTotals {
        var start = World(mutation: mutation)
        start.replies = replies
        start.trail = ["present"]
        start.present()
        return StateExplorer.breadthFirst(
            from: start, depth: depth, fingerprint: \.fingerprint, successors: { $0.successors() },
            violations: \.violations, stopsAtViolation: true, maximumViolations: 50)
    }

    /// 9 in a plain run (a few seconds); `EGW_BROWSER_DEPTH` goes deeper.
    static var depth: Int { ProcessInfo.processInfo.environment["EGW_BROWSER_DEPTH"].flatMap(Int.init) ?? 9 }
    /// Every mutation is found well within 8 steps (the longest: three redirects or submissions in a row).
    static var mutationDepth: Int { min(depth, 8) }

    @Test func everyOrderingUpToTheDepthKeepsTheContract() {
        let totals = Self.explore(depth: Self.depth, mutation: .none)
        print(
            "BrowserSessionExploration: depth \(Self.depth), \(totals.states) distinct states, "
                + "\(totals.transitions) transitions")
        #expect(totals.violations.isEmpty, "\(totals.violations.prefix(5).joined(separator: "\n"))")
        #expect(totals.states > 1000, "the walk reached the interesting states")
    }

    #if DEBUG
    /// The invariants bite: each deliberate bug of the session, switched on, is found by the same walk.
    @Test(arguments: BrowserSession.Mutation.allCases.filter { $0 != .none })
    func everyMutationIsCaught(mutation: BrowserSession.Mutation) {
        let totals = Self.explore(depth: Self.depth, mutation: mutation)
        print(
            "BrowserSessionExploration mutation \(mutation): \(totals.violations.count) violations, first: "
                + (totals.violations.first ?? "none"))
        #expect(!totals.violations.isEmpty, "the mutation \(mutation) went unnoticed")
    }

    /// Each of the two pages that carry a typed code on to a URL derived from the code-bearing one (an
    /// action-less form, a redirect to `#x`) finds, on its own, a session that leaves the mask behind;
    /// without them the walk does not (the invariant needs them to cover those URLs).
    @Test(arguments: [Reply.actionless, .fragmentOnly])
    func eachPageThatDerivesFromTheCodeBearingURLFindsTheMaskLeftBehind(page: Reply) {
        let others = Reply.allCases.filter { $0 != .actionless && $0 != .fragmentOnly }
        // present, allow, the GET challenge, the code, allow, the page: 6 steps.
        let depth = 6
        let found = Self.explore(depth: depth, mutation: .leavesTheMaskBehind, replies: others + [page])
        #expect(!found.violations.isEmpty, "\(page) did not show the code")
        #expect(found.violations.allSatisfy { $0.contains("\(page) for /verify") }, "\(found.violations.prefix(3))")
        let without = Self.explore(depth: depth, mutation: .leavesTheMaskBehind, replies: others)
        #expect(without.violations.isEmpty, "\(without.violations.prefix(3))")
    }
    #endif
}
