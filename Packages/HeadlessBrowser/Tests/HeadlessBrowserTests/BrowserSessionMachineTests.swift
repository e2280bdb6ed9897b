import Foundation
import PaymentFlow
import Testing

@testable import HeadlessBrowser

/// The browser's session fed events by hand, each transition's effects checked whole (swift-nio's
/// state-machine test shape): a table a reader can go through to learn what each (phase, event) pair
/// does, without running the walk. Each row presents a page (or starts idle), reaches a phase by a few
/// events (their effects are not the point), feeds one more, and states the effects and the phase
/// that follow. Tokens count from 1 per session value: `present` asks #1, the load is #2, and so on.
@Suite struct BrowserSessionMachineTests {
    typealias Session = BrowserSession
    static let base = "http://gw.example"
    static func url(_ path: String) -> URL { URL(string: base + path)! }
    static let settings = Session.Settings(pageTimeout: 30, maxRedirects: 1, maxAutomaticSubmissions: 1)

    static func response(
        _ status: Int, _ headers: [HTTPHeader] = [], _ html: String = "", at path: String
    )
        -> Session.Event
    {
        // Every row's load that the reached phase awaits is the latest one: its token is the counter's.
        .loaded(
            token: 0,
            .success(HTTPResponse(status: status, headers: headers, body: Array(html.utf8), url: url(path))))
    }

    /// The effects in words (paths for URLs), the way a reader would say what the browser does.
    static func describe(_ effects: [Session.Effect]) -> [String] {
        effects.map { effect in
            switch effect {
            case .answerPresent(let shown): "present answered \(shown)"
            case .askHandler(_, let token, let navigation):
                "ask handler #\(token) \(navigation.method ?? "?") \(navigation.url.path)"
            case .load(_, let token, let request):
                "load #\(token) \(request.method) \(request.url.path)"
                    + (request.headers.first { $0.name == "Cookie" }.map { " cookie \($0.value)" } ?? "")
            case .startTimer(_, let token, let after): "watchdog #\(token) \(Int(after)) s"
            case .cancelTimer(let token): "cancel watchdog #\(token)"
            case .reportFinished(_, let url): "finished \(url.path)"
            case .reportFailed(_, let url, let reason): "failed \(url.path): \(reason)"
            case .reportClosed: "closed"
            case .observe(_, let event): "event \(event)"
            case .askBuyer(_, let token, let page): "ask buyer #\(token) about \(page.url.path) (\(page.kind))"
            case .completeDismiss(let wasPresented): "dismiss completed" + (wasPresented ? ", announced" : "")
            }
        }
    }

    static func phase(_ session: Session) -> String {
        switch session.phase {
        case .idle: "idle"
        case .deciding(let navigation, _): "deciding \(navigation.method) \(navigation.url.path)"
        case .loading(let navigation, _): "loading \(navigation.method) \(navigation.url.path)"
        case .askingBuyer(let page, _): "asking the buyer about \(page.loaded.url.path)"
        case .resting(let page): "resting on \(page.loaded.url.path)"
        case .stopped(let stop): "stopped \(stop)"
        case .dismissed: "dismissed"
        }
    }

    /// The awaited token of `session` (rows answer what the phase awaits).
    static func awaited(_ session: Session) -> UInt64 {
        switch session.phase {
        case .deciding(_, let token), .loading(_, let token), .askingBuyer(_, let token): token
        case .idle, .resting, .stopped, .dismissed: 0
        }
    }

    /// `event` with the awaited token put in (rows write 0 for "the one awaited now").
    static func current(_ event: Session.Event, in session: Session) -> Session.Event {
        let token = awaited(session)
        switch event {
        case .decided(0, let decision): return .decided(token: token, decision)
        case .loaded(0, let result): return .loaded(token: token, result)
        case .loadTimedOut(0): return .loadTimedOut(token: token)
        case .buyerAnswered(0, let action): return .buyerAnswered(token: token, action)
        case .present, .dismiss, .decided, .loaded, .loadTimedOut, .buyerAnswered: return event
        }
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        /// The page presented first (nil: the row starts idle).
        var page: PageRequest? = PageRequest(url: url("/start"), purpose: .hostedCheckout)
        var reach: [Session.Event]
        var event: Session.Event
        var effects: [String]
        var then: String
        var testDescription: String { name }
    }

    static let allow = Session.Event.decided(token: 0, .allow)
    static let hosted = TestPages.hosted(action: "/pay")
    static let html = [HTTPHeader("Content-Type", "text/html")]

    static let rows: [Row] = [
        Row(
            name: "present: answered, then the handler is asked about the first load", page: nil, reach: [],
            event: .present(PageRequest(url: url("/start"), purpose: .hostedCheckout)),
            effects: ["present answered true", "ask handler #1 GET /start"], then: "deciding GET /start"),
        Row(
            name: "a second present while a page is shown is refused and changes nothing", reach: [],
            event: .present(PageRequest(url: url("/other"), purpose: .challenge)),
            effects: ["present answered false"], then: "deciding GET /start"),
        Row(
            name: "allowed: the observer hears it, the load goes out with its watchdog already running", reach: [],
            event: allow,
            effects: [
                "event navigation GET http://gw.example/start: allowed", "watchdog #2 35 s", "load #2 GET /start",
            ], then: "loading GET /start"),
        Row(
            name: "cancelled: nothing is loaded and the page stops", reach: [], event: .decided(token: 0, .cancel),
            effects: ["event navigation GET http://gw.example/start: cancelled"], then: "stopped cancelled"),
        Row(
            name: "an answer to an earlier question does nothing", reach: [], event: .decided(token: 7, .allow),
            effects: [], then: "deciding GET /start"),
        Row(
            name: "a 303 after a POST: the hop is reported and asked about as a GET",
            page: PageRequest(url: url("/acs"), formFields: [("creq", "x")], purpose: .challenge), reach: [allow],
            event: response(303, [HTTPHeader("Location", "/next")], at: "/acs"),
            effects: [
                "cancel watchdog #2", "event redirect 303 from http://gw.example/acs to http://gw.example/next",
                "ask handler #3 GET /next",
            ], then: "deciding GET /next"),
        Row(
            name: "a 307 keeps the POST",
            page: PageRequest(url: url("/acs"), formFields: [("creq", "x")], purpose: .challenge),
            reach: [allow], event: response(307, [HTTPHeader("Location", "/next")], at: "/acs"),
            effects: [
                "cancel watchdog #2", "event redirect 307 from http://gw.example/acs to http://gw.example/next",
                "ask handler #3 POST /next",
            ], then: "deciding POST /next"),
        Row(
            name: "a cookie set on a hop goes back with the next load",
            reach: [
                allow, response(302, [HTTPHeader("Location", "/next"), HTTPHeader("Set-Cookie", "s=1")], at: "/start"),
            ],
            event: allow,
            effects: [
                "event navigation GET http://gw.example/next: allowed", "watchdog #4 35 s",
                "load #4 GET /next cookie s=1",
            ], then: "loading GET /next"),
        Row(
            name: "one hop past maxRedirects fails the load",
            reach: [allow, response(302, [HTTPHeader("Location", "/next")], at: "/start"), allow],
            event: response(302, [HTTPHeader("Location", "/again")], at: "/next"),
            effects: [
                "cancel watchdog #4", "failed /next: more than 1 redirects",
                "event failed http://gw.example/next: more than 1 redirects",
            ], then: "stopped failed"),
        Row(
            name: "an error status fails the load without asking the buyer", reach: [allow],
            event: response(500, at: "/start"),
            effects: [
                "cancel watchdog #2", "failed /start: HTTP 500", "event failed http://gw.example/start: HTTP 500",
            ],
            then: "stopped failed"),
        Row(
            name: "the watchdog fires first: a timed-out load", reach: [allow], event: .loadTimedOut(token: 0),
            effects: [
                "failed /start: timeout: no answer within 30 s",
                "event failed http://gw.example/start: timeout: no answer within 30 s",
            ], then: "stopped failed"),
        Row(
            name: "a page: finished, observed, then the buyer is asked", reach: [allow],
            event: response(200, html, hosted, at: "/start"),
            effects: [
                "cancel watchdog #2", "finished /start",
                "event loaded hosted-checkout “Checkout” (200) http://gw.example/start",
                "ask buyer #3 about /start (hosted-checkout)",
            ], then: "asking the buyer about /start"),
        Row(
            name: "the notification page is left alone", reach: [allow],
            event: response(200, html, "<meta name=egw-page content=3ds-notification>", at: "/start"),
            effects: [
                "cancel watchdog #2", "finished /start", "event loaded 3ds-notification (200) http://gw.example/start",
            ], then: "resting on /start"),
        Row(
            name: "a page that submits itself is submitted without asking the buyer", reach: [allow],
            event: response(200, html, TestPages.complete(notification: "/n", cres: "c"), at: "/start"),
            effects: [
                "cancel watchdog #2", "finished /start", "event loaded acs-complete (200) http://gw.example/start",
                "event auto-submitted form cres-form of http://gw.example/start", "ask handler #3 POST /n",
            ], then: "deciding POST /n"),
        Row(
            name: "one automatic submission past the limit fails the page after it loaded",
            reach: [
                allow, response(200, html, TestPages.complete(notification: "/n", cres: "c"), at: "/start"), allow,
            ],
            event: response(200, html, TestPages.complete(notification: "/n", cres: "c"), at: "/n"),
            effects: [
                "cancel watchdog #4", "finished /n", "event loaded acs-complete (200) http://gw.example/n",
                "failed /n: too many automatic form submissions (more than 1 in a row)",
                "event failed http://gw.example/n: too many automatic form submissions (more than 1 in a row)",
            ], then: "stopped failed"),
        Row(
            name: "the buyer pays: the button's form is asked about",
            reach: [allow, response(200, html, hosted, at: "/start")],
            event: .buyerAnswered(token: 0, .hosted(.pay)),
            effects: ["event buyer hosted(pay) on http://gw.example/start", "ask handler #4 POST /pay"],
            then: "deciding POST /pay"),
        Row(
            name: "the buyer closes: reported once, the page stops",
            reach: [allow, response(200, html, hosted, at: "/start")],
            event: .buyerAnswered(token: 0, .close),
            effects: ["event buyer close on http://gw.example/start", "closed", "event closed by the buyer"],
            then: "stopped closed"),
        Row(
            name: "an action the page cannot do fails it, naming the action",
            reach: [allow, response(200, html, hosted, at: "/start")],
            event: .buyerAnswered(token: 0, .press(label: "Nope")),
            effects: [
                "event buyer press(label: \"Nope\") on http://gw.example/start",
                "failed /start: buyer action press: the page has no button labelled 'Nope'",
                "event failed http://gw.example/start: buyer action press: the page has no button labelled 'Nope'",
            ], then: "stopped failed"),
        Row(
            name: "dismiss while loading: the watchdog goes, the completion announces the dismissal",
            reach: [allow], event: .dismiss, effects: ["cancel watchdog #2", "dismiss completed, announced"],
            then: "dismissed"),
        Row(
            name: "the transport's answer after dismiss does nothing", reach: [allow, .dismiss],
            event: .loaded(token: 2, .success(HTTPResponse(status: 200, body: Array(hosted.utf8), url: url("/start")))),
            effects: [], then: "dismissed"),
        Row(
            name: "a second dismiss completes without announcing anything", reach: [.dismiss], event: .dismiss,
            effects: ["dismiss completed"], then: "dismissed"),
        Row(
            name: "present again after dismiss: a new page", reach: [.dismiss],
            event: .present(PageRequest(url: url("/again"), purpose: .challenge)),
            effects: ["present answered true", "ask handler #2 GET /again"], then: "deciding GET /again"),
    ]

    @Test(arguments: rows)
    func eachTransitionDoesWhatTheContractSays(row: Row) {
        var session = Session(settings: Self.settings)
        if let page = row.page { _ = session.handle(.present(page)) }
        for event in row.reach { _ = session.handle(Self.current(event, in: session)) }
        let effects = session.handle(Self.current(row.event, in: session))
        #expect(Self.describe(effects) == row.effects)
        #expect(Self.phase(session) == row.then)
    }

    /// The executor's rule: once dismissed, the page's effects are dropped; completions never are.
    @Test func afterDismissOnlyCompletionsAreAdmitted() {
        var session = Session(settings: Self.settings)
        let effects = session.handle(.present(PageRequest(url: Self.url("/start"), purpose: .hostedCheckout)))
        #expect(effects.allSatisfy(session.admits))
        _ = session.handle(.dismiss)
        #expect(effects.map(session.admits) == [true, false], "present's answer yes, the question no")
        #expect(session.admits(.completeDismiss(wasPresented: true)))
        #expect(!session.admits(.observe(session: session.session, .closedByBuyer)))
        _ = session.handle(.present(PageRequest(url: Self.url("/next"), purpose: .challenge)))
        #expect(!session.admits(effects[1]), "an earlier page's effect stays dropped")
    }
}
