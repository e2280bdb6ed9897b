import Foundation
import PaymentFlow
import Testing

@testable import WebKitPresenter

/// The WebKit page's lifecycle as a table, in the shape of `PaymentLifecycleTableTests`: a state reached
/// by a few events, one more event, and the effects that must come out. No WebKit and no display: these
/// are the rules `WebPage` used to apply inside its C callbacks (TLS and trust decisions, the bootstrap,
/// buyer rounds, dismissal), now the lifecycle's.
///
/// The expected effects are written by hand from the rules as the package documents them and from
/// CONTRACT.md (a decision WebKit waits on is answered once; a page's end reported once; nothing after
/// the dismissal), not copied from the code's output. Decisions are named `d1`, `d2`… as the executor
/// would name them; questions to the SDK `q1`, `q2`… as the lifecycle numbers them.
@Suite struct PageLifecycleTableTests {
    typealias Event = PageLifecycle.Event
    static let challenge = "https://acs.example/challenge"
    static let complete = "https://acs.example/complete"

    static func d(_ id: UInt64) -> PageLifecycle.Decision { .init(id: id) }

    static func described(_ path: String, title: String = "Verify") -> Event {
        .described(
            json:
                #"{"title":"\#(title)","url":"https://acs.example\#(path)","html":"<p>","codeFields":1,"buttons":["OK"]}"#
        )
    }

    static func page(_ path: String) -> RenderedPage {
        RenderedPage(
            url: URL(string: "https://acs.example\(path)")!, title: "Verify", html: "<p>", codeFieldCount: 1,
            buttonLabels: ["OK"])
    }

    /// States, each reached from a new page of `challenge` (no form fields unless said) by its events.
    enum Given: String, CaseIterable, Sendable {
        case fresh, bootstrapping, asking, loaded, roundStarted, buyerAsked, roundGone, closedByBuyer, failed, dismissed

        var formFields: [(name: String, value: String)]? {
            self == .bootstrapping ? [(name: "creq", value: "e30")] : nil
        }

        var events: [Event] {
            switch self {
            case .fresh: return []
            case .bootstrapping: return [.start(relayMissing: false)]
            case .asking:
                return [
                    .start(relayMissing: false),
                    .navigation(d(1), uri: challenge, leavesDocument: true, method: "post"),
                ]
            case .loaded:
                return Given.asking.events + [
                    .decided(question: 1, .allow), .load(.started), .load(.committed),
                    .load(.finished(uri: challenge)),
                ]
            // Rounds: asking about a navigation, the load start and the round itself each move the count: 3.
            case .roundStarted: return Given.loaded.events + [described("/challenge")]
            case .buyerAsked: return Given.roundStarted.events + [.screenshotDone(round: 3, page("/challenge"))]
            case .roundGone: return Given.buyerAsked.events + [.load(.started)]
            case .closedByBuyer: return Given.loaded.events + [.closeRequested]
            case .failed:
                return Given.loaded.events + [.loadFailed(.other, uri: challenge, message: "gone", relayRefusal: nil)]
            case .dismissed: return Given.asking.events + [.dismiss(reporting: true)]
            }
        }

        func lifecycle() -> PageLifecycle {
            var page = PageLifecycle.fresh(formFields: formFields)
            for event in events { _ = page.handle(event) }
            return page
        }
    }

    struct Row: CustomStringConvertible, Sendable {
        var given: Given
        var event: Event
        var effects: [String]
        var description: String { "\(given.rawValue) + \(event)" }
    }

    static let rows: [Row] = [
        // Starting: a GET of the URL, our own form-posting document, or a failure without the kit's trust.
        Row(given: .fresh, event: .start(relayMissing: false), effects: ["load \(challenge)"]),
        Row(
            given: .fresh, event: .start(relayMissing: true),
            effects: ["tell failed \(challenge): the pages' TLS relay could not start"]),
        // The bootstrap document's own navigation is used unasked; its load and its errors are not the page's.
        Row(
            given: .bootstrapping, event: .navigation(d(1), uri: "about:blank", leavesDocument: true, method: nil),
            effects: ["use d1"]),
        Row(given: .bootstrapping, event: .load(.finished(uri: "about:blank")), effects: []),
        Row(
            given: .bootstrapping,
            event: .response(
                d(2), uri: "about:blank", status: 404, mainFrame: true, download: false, relayRefusal: nil),
            effects: ["use d2"]),
        Row(given: .bootstrapping, event: .sent(method: "POST", uri: challenge), effects: []),
        // The form's POST is the first navigation the SDK hears of, with its method in capitals.
        Row(
            given: .bootstrapping, event: .navigation(d(1), uri: challenge, leavesDocument: true, method: "post"),
            effects: ["tell decide q1 POST \(challenge)"]),
        // Navigations the kit's trust refuses fail the page without asking; a string that is no URL is ignored.
        Row(
            given: .fresh, event: .navigation(d(1), uri: "http://acs.example/x", leavesDocument: true, method: "GET"),
            effects: [
                "ignore d1", "emit refused http://acs.example/x: plain http is refused outside the sandbox environment",
                "tell failed http://acs.example/x: plain http is refused outside the sandbox environment",
            ]),
        Row(
            given: .fresh, event: .navigation(d(1), uri: "javascript:alert(1)", leavesDocument: false, method: nil),
            effects: [
                "ignore d1", "emit refused javascript:alert(1): the 'javascript' scheme is refused",
                "tell failed javascript:alert(1): the 'javascript' scheme is refused",
            ]),
        Row(
            given: .fresh, event: .navigation(d(1), uri: "not a url", leavesDocument: false, method: nil),
            effects: [
                "ignore d1", "emit refused not%20a%20url: the missing scheme is refused",
                "tell failed not%20a%20url: the missing scheme is refused",
            ]),
        Row(
            given: .fresh, event: .navigation(d(1), uri: "http://[", leavesDocument: true, method: nil),
            effects: ["ignore d1"]),
        // A method WebKit does not report stays unknown.
        Row(
            given: .fresh, event: .navigation(d(4), uri: challenge, leavesDocument: false, method: nil),
            effects: ["tell decide q1 - \(challenge)"]),
        // The SDK's answers: used once; a stale or unknown question touches nothing.
        Row(
            given: .asking, event: .decided(question: 1, .allow),
            effects: ["emit decided \(challenge) allow", "use d1"]),
        Row(
            given: .asking, event: .decided(question: 1, .cancel),
            effects: ["emit decided \(challenge) cancel", "ignore d1"]),
        Row(given: .asking, event: .decided(question: 9, .allow), effects: []),
        Row(given: .loaded, event: .decided(question: 1, .allow), effects: []),
        Row(given: .dismissed, event: .decided(question: 1, .allow), effects: []),
        // After a cancel, a navigation is refused quietly (reported as refused, the page does not fail again).
        // The dismissal answers what the SDK has not, reports it unless the presenter itself is going, and
        // lets the view go.
        Row(
            given: .asking, event: .dismiss(reporting: true),
            effects: [
                "ignore d1", "emit refused \(challenge): the page was dismissed before the SDK answered", "tearDown",
            ]),
        Row(given: .asking, event: .dismiss(reporting: false), effects: ["ignore d1", "tearDown"]),
        Row(given: .loaded, event: .dismiss(reporting: true), effects: ["tearDown"]),
        // After the dismissal a decision WebKit still asks is ignored, and nothing else happens.
        Row(given: .dismissed, event: .dismiss(reporting: true), effects: []),
        Row(
            given: .dismissed, event: .navigation(d(9), uri: complete, leavesDocument: true, method: "GET"),
            effects: ["ignore d9"]),
        Row(
            given: .dismissed,
            event: .response(d(9), uri: complete, status: 500, mainFrame: true, download: false, relayRefusal: nil),
            effects: ["ignore d9"]),
        Row(given: .dismissed, event: .relayRefused(host: "acs.example", port: 443, reason: "pin"), effects: []),
        Row(given: .dismissed, event: .closeRequested, effects: []),
        // Responses: used or downloaded; an error status of the main frame fails the page, with the relay's
        // reason when the relay refused the host behind a 502.
        Row(
            given: .loaded,
            event: .response(d(5), uri: complete, status: 500, mainFrame: true, download: false, relayRefusal: nil),
            effects: ["use d5", "tell failed \(complete): HTTP status 500"]),
        Row(
            given: .loaded,
            event: .response(
                d(5), uri: complete, status: 502, mainFrame: true, download: false, relayRefusal: "pinned"),
            effects: ["use d5", "tell failed \(complete): pinned"]),
        Row(
            given: .loaded,
            event: .response(
                d(5), uri: complete, status: 503, mainFrame: true, download: false, relayRefusal: "pinned"),
            effects: ["use d5", "tell failed \(complete): HTTP status 503"]),
        Row(
            given: .loaded,
            event: .response(d(5), uri: complete, status: 404, mainFrame: false, download: false, relayRefusal: nil),
            effects: ["use d5"]),
        Row(
            given: .loaded,
            event: .response(d(5), uri: complete, status: 200, mainFrame: true, download: true, relayRefusal: nil),
            effects: ["download d5"]),
        // Failures: an interruption is ours; the relay's reason before WebKit's words; a TLS refusal never admitted.
        Row(
            given: .loaded, event: .loadFailed(.interrupted, uri: complete, message: "stopped", relayRefusal: nil),
            effects: []),
        Row(
            given: .loaded, event: .loadFailed(.tls(flags: 4), uri: complete, message: "bad", relayRefusal: nil),
            effects: ["tell failed \(complete): the server's certificate is not trusted (TLS flags 4)"]),
        Row(
            given: .loaded, event: .loadFailed(.other, uri: complete, message: "boom", relayRefusal: "TLS 1.1 refused"),
            effects: ["tell failed \(complete): TLS 1.1 refused"]),
        Row(
            given: .loaded, event: .loadFailed(.other, uri: "", message: "boom", relayRefusal: nil),
            effects: ["tell failed \(challenge): boom"]),
        Row(
            given: .failed, event: .loadFailed(.other, uri: complete, message: "again", relayRefusal: nil), effects: []),
        // The relay refused a host: the page stops and fails at once.
        Row(
            given: .loaded, event: .relayRefused(host: "acs.example", port: 443, reason: "pin mismatch"),
            effects: [
                "emit refused https://acs.example:443/: pin mismatch", "stopLoading",
                "tell failed https://acs.example:443/: pin mismatch",
            ]),
        Row(
            given: .loaded, event: .relayRefused(host: "::1", port: 8443, reason: "pin mismatch"),
            effects: [
                "emit refused https://[::1]:8443/: pin mismatch", "stopLoading",
                "tell failed https://[::1]:8443/: pin mismatch",
            ]),
        Row(
            given: .loaded, event: .certificateAdmitted(host: "acs.example"),
            effects: ["emit certificateAdmitted acs.example"]),
        // The buyer's close: the window hides and the SDK hears it once; a closed page refuses what follows.
        Row(given: .loaded, event: .closeRequested, effects: ["hideWindow", "tell closedByBuyer"]),
        Row(given: .closedByBuyer, event: .closeRequested, effects: []),
        Row(given: .failed, event: .closeRequested, effects: []),
        Row(
            given: .closedByBuyer, event: .navigation(d(9), uri: complete, leavesDocument: true, method: "GET"),
            effects: ["ignore d9", "emit refused \(complete): the page has stopped"]),
        Row(given: .closedByBuyer, event: .load(.finished(uri: complete)), effects: []),
        // Requests the page's script sends are heard until the dismissal, also after the buyer closed it.
        Row(
            given: .closedByBuyer, event: .sent(method: "POST", uri: complete),
            effects: ["emit sentRequest POST \(complete)", "tell sent POST \(complete)"]),
        Row(given: .dismissed, event: .sent(method: "POST", uri: complete), effects: []),
        Row(given: .loaded, event: .sent(method: "GET", uri: "about:blank"), effects: []),
        // The web process: reported once, while the page is open.
        Row(
            given: .loaded, event: .webProcessEnded(how: "crashed"),
            effects: ["tell terminated: the page's web process crashed"]),
        Row(given: .failed, event: .webProcessEnded(how: "crashed"), effects: []),
        // A finished load is reported, and its first frame watched for.
        Row(
            given: .asking, event: .load(.finished(uri: complete)),
            effects: ["tell finished \(complete)", "watchFirstPaint \(complete)"]),
        Row(given: .loaded, event: .painted(URL(string: complete)!), effects: ["emit painted \(complete)"]),
        Row(given: .dismissed, event: .painted(URL(string: complete)!), effects: []),
        // Buyer rounds: described and finished starts one (its screenshot first); the buyer is asked once the
        // screenshot is done, only for the current round; its answer acts only while the round stands.
        Row(given: .loaded, event: described("/challenge"), effects: ["screenshot r3 /challenge"]),
        Row(given: .loaded, event: .described(json: "{\"title\":"), effects: []),
        Row(given: .loaded, event: described("/challenge").aboutBlank, effects: []),
        Row(given: .roundStarted, event: described("/challenge"), effects: []),
        Row(
            given: .roundStarted, event: .screenshotDone(round: 3, page("/challenge")),
            effects: ["emit buyerAsked https://acs.example/challenge", "askBuyer r3"]),
        Row(given: .roundStarted, event: .screenshotDone(round: 2, page("/challenge")), effects: []),
        Row(given: .buyerAsked, event: .screenshotDone(round: 3, page("/challenge")), effects: []),
        Row(
            given: .roundStarted, event: .buyerAnswered(round: 3, .wait, url: URL(string: challenge)!),
            effects: []),
        Row(given: .roundGone, event: .screenshotDone(round: 3, page("/challenge")), effects: []),
        Row(
            given: .buyerAsked, event: .buyerAnswered(round: 3, .enterCode("123456"), url: URL(string: challenge)!),
            effects: ["emit buyerActed enterCode(••••)", "runScript r3 enterCode(••••)"]),
        Row(
            given: .buyerAsked, event: .buyerAnswered(round: 3, .wait, url: URL(string: challenge)!),
            effects: ["emit buyerActed wait"]),
        Row(
            given: .buyerAsked, event: .buyerAnswered(round: 3, .close, url: URL(string: challenge)!),
            effects: ["emit buyerActed close", "hideWindow", "tell closedByBuyer"]),
        Row(
            given: .roundGone, event: .buyerAnswered(round: 3, .enterCode("123456"), url: URL(string: challenge)!),
            effects: []),
        Row(
            given: .buyerAsked,
            event: .scriptAnswered(
                round: 3, .press(labels: ["Pay"]), url: URL(string: challenge)!, value: "no such button", error: nil),
            effects: [#"tell failed \#(challenge): buyer action press("Pay"): no such button"#]),
        Row(
            given: .buyerAsked,
            event: .scriptAnswered(
                round: 3, .press(labels: ["OK"]), url: URL(string: challenge)!, value: "ok", error: nil),
            effects: []),
        Row(
            given: .buyerAsked,
            event: .scriptAnswered(
                round: 3, .press(labels: ["OK"]), url: URL(string: challenge)!, value: "x", error: "context destroyed"),
            effects: []),
        Row(
            given: .roundGone,
            event: .scriptAnswered(
                round: 3, .press(labels: ["OK"]), url: URL(string: challenge)!, value: "x", error: nil),
            effects: []),
        // A new window is kept in the same view, reported; a closed page opens nothing.
        Row(
            given: .loaded, event: .newWindow(d(7), uri: "https://acs.example/help?id=1"),
            effects: [
                "ignore d7",
                "emit refused https://acs.example/help?id=1: new window for https://acs.example/help kept in the same view",
                "tell refused newWindow https://acs.example/help?id=1", "load https://acs.example/help?id=1",
            ]),
        Row(given: .closedByBuyer, event: .newWindow(d(7), uri: complete), effects: ["ignore d7"]),
        Row(given: .closedByBuyer, event: .newWindow(nil, uri: complete), effects: []),
        // A dialog is reported against the shown page (the request's URL when the view names none).
        Row(
            given: .loaded, event: .actRefused(.dialog(.alert, messageLength: 5), shownURI: complete),
            effects: [
                "emit refused \(complete): alert answered dismissed (message of 5 characters)",
                "tell refused dialog alert",
            ]),
        Row(
            given: .loaded, event: .actRefused(.dialog(.alert, messageLength: 5), shownURI: nil),
            effects: [
                "emit refused \(challenge): alert answered dismissed (message of 5 characters)",
                "tell refused dialog alert",
            ]),
        Row(given: .dismissed, event: .actRefused(.dialog(.alert, messageLength: 5), shownURI: nil), effects: []),
        // The window's title names the page's origin.
        Row(
            given: .loaded, event: .titleChanged(title: "Verify", uri: "https://acs.example:8443/c?x=1"),
            effects: ["setTitle Verify — https://acs.example:8443"]),
        Row(given: .loaded, event: .titleChanged(title: "", uri: nil), effects: ["setTitle https://acs.example"]),
    ]

    @Test(arguments: rows)
    func row(_ row: Row) {
        var page = row.given.lifecycle()
        let effects = page.handle(row.event).map(Self.describe)
        #expect(effects == row.effects)
    }

    /// The bootstrap document posts the request's fields to its URL, escaped.
    @Test func theBootstrapDocumentPostsTheFormFields() throws {
        var page = PageLifecycle.fresh(formFields: [(name: "creq", value: "a\"b")])
        let effects = page.handle(.start(relayMissing: false))
        guard case .loadBootstrap(let html) = try #require(effects.first), effects.count == 1 else {
            Issue.record("expected one bootstrap load, got \(effects.map(Self.describe))")
            return
        }
        #expect(html.contains(#"action="https://acs.example/challenge""#))
        #expect(html.contains(#"name="creq" value="a&quot;b""#))
    }

    // MARK: Rendering effects for the table (the test's own words, not the code's descriptions)

    static func describe(_ effect: PageLifecycle.Effect) -> String {
        switch effect {
        case .use(let decision): "use \(decision)"
        case .ignore(let decision): "ignore \(decision)"
        case .download(let decision): "download \(decision)"
        case .load(let url): "load \(url.absoluteString)"
        case .loadBootstrap: "loadBootstrap"
        case .stopLoading: "stopLoading"
        case .hideWindow: "hideWindow"
        case .setTitle(let title): "setTitle \(title)"
        case .watchFirstPaint(let url): "watchFirstPaint \(url.absoluteString)"
        case .screenshot(let round, let page): "screenshot r\(round) \(page.url.path)"
        case .askBuyer(let round, _): "askBuyer r\(round)"
        case .runScript(let round, _, let action, _): "runScript r\(round) \(action)"
        case .tearDown: "tearDown"
        case .emit(let event): "emit " + describe(event)
        case .tell(let call): "tell " + describe(call)
        }
    }

    static func describe(_ event: WebKitPagePresenter.Event) -> String {
        switch event {
        case .presented(let url): "presented \(url.absoluteString)"
        case .decided(let url, let decision): "decided \(url.absoluteString) \(decision == .allow ? "allow" : "cancel")"
        case .sentRequest(let url, let method): "sentRequest \(method) \(url.absoluteString)"
        case .refused(let url, let reason): "refused \(url.absoluteString): \(reason)"
        case .certificateAdmitted(let host): "certificateAdmitted \(host)"
        case .painted(let url): "painted \(url.absoluteString)"
        case .buyerAsked(let url): "buyerAsked \(url.absoluteString)"
        case .buyerActed(let action): "buyerActed \(action)"
        case .screenshot(let file): "screenshot \(file.path)"
        case .dismissed: "dismissed"
        }
    }

    static func describe(_ call: PageLifecycle.HandlerCall) -> String {
        switch call {
        case .decide(let question, let navigation):
            "decide q\(question) \(navigation.method ?? "-") \(navigation.url.absoluteString)"
        case .refused(.newWindow(let url)): "refused newWindow \(url.absoluteString)"
        case .refused(.download(let url)): "refused download \(url.absoluteString)"
        case .refused(.dialog(let dialog, _)): "refused dialog \(dialog)"
        case .finished(let url): "finished \(url.absoluteString)"
        case .failed(let url, let reason): "failed \(url.absoluteString): \(reason)"
        case .closedByBuyer: "closedByBuyer"
        case .terminated(let reason): "terminated: \(reason)"
        case .sent(let request): "sent \(request.method ?? "-") \(request.url.absoluteString)"
        }
    }
}

extension PageLifecycle.Event {
    /// The same description, of `about:blank` (the bootstrap's or an empty frame's).
    fileprivate var aboutBlank: Self {
        .described(json: #"{"title":"","url":"about:blank","html":"","codeFields":0,"buttons":[]}"#)
    }
}
