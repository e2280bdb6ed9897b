import Foundation
import LoopbackTestServer
import PaymentFlow
import Synchronization
import Testing

@testable import HeadlessBrowser

/// The headless browser over libcurl on pages shaped like other gateways'
/// and issuers' plain HTML: no `egw-page` markers, their own field names and
/// button labels. Served by `LoopbackServer`; every expected request body is
/// written out by hand from the page's form (HTML form submission: controls
/// in document order, then the pressed button's name and value;
/// `application/x-www-form-urlencoded` per the WHATWG URL standard).
@Suite(.timeLimit(.minutes(1))) struct PlainHTMLBrowserTests {
    static let html = [("Content-Type", "text/html; charset=utf-8")]

    /// An issuer's challenge page: hidden 3-D Secure fields, an `otp` input
    /// with a `for` label, "Resend code" first among its buttons, a script.
    static let otpChallenge = """
        <!DOCTYPE html>
        <html><head><title>Verify your payment</title><script src="/static/acs.js"></script></head>
        <body><h1>Enter the code we sent to your phone</h1>
        <form method="post" action="/acs/verify" id="otpForm">
        <input type="hidden" name="threeDSSessionData" value="c2Vzc2lvbg==">
        <input type="hidden" name="acsTransID" value="8a880dc0">
        <label for="otp-input">Verification code</label>
        <input type="text" id="otp-input" name="otp" inputmode="numeric" maxlength="6">
        <button type="submit" name="resend" value="1">Resend code</button>
        <button type="submit">Submit</button>
        <button type="button" onclick="window.close()">Cancel</button>
        </form></body></html>
        """

    /// An issuer's hand-back without script: hidden `cres`, a visible "Continue".
    static func handBack(cres: String) -> String {
        """
        <html><head><title>Returning to the merchant</title></head><body>
        <p>Authentication complete.</p>
        <form method="post" action="/gateway/3ds/notification">
        <input type="hidden" name="cres" value="\(cres)">
        <input type="hidden" name="threeDSSessionData" value="c2Vzc2lvbg==">
        <input type="submit" value="Continue">
        </form></body></html>
        """
    }

    static let done = "<html><head><title>Done</title></head><body><p>You may close this window.</p></body></html>"

    /// Wraps `script`, recording the kind of every page it is asked about.
    static func recording(_ script: BuyerScript, into log: EventLog<PageKind>) -> BuyerScript {
        BuyerScript { page, respond in
            log.append(page.kind)
            script.decide(page, respond)
        }
    }

    /// Waits until every step the browser queued so far has run: a second
    /// `present` is refused on the browser's serial queue, after them.
    static func settle(_ presenter: HeadlessBrowserPresenter, _ url: URL) async {
        let refused = await presenter.present(PageRequest(url: url, purpose: .challenge), handler: RecordingHandler())
        #expect(!refused)
    }

    static func body(_ request: LoopbackServer.Request) -> String {
        String(decoding: request.body, as: UTF8.self)
    }

    @Test func anOTPChallengeIsTypedAndTheHandBackReachesTheNotificationPageUnasked() async throws {
        let server = try LoopbackServer { request in
            switch (request.method, request.path) {
            case ("POST", "/acs/challenge"): .html(200, Self.html, Self.otpChallenge)
            case ("POST", "/acs/verify"): .html(200, Self.html, Self.handBack(cres: "eyJ0cmFuc1N0YXR1cyI6IlkifQ"))
            case ("POST", "/gateway/3ds/notification"): .html(200, Self.html, Self.done)
            default: .html(404, Self.html, "<h1>Not found</h1>")
            }
        }
        defer { server.stop() }
        let kinds = EventLog<PageKind>()
        let presenter = HeadlessBrowserPresenter(
            script: Self.recording(.answering(challengeCode: "482913"), into: kinds))
        let handler = RecordingHandler()
        let notification = server.url("/gateway/3ds/notification")
        let request = PageRequest(
            url: server.url("/acs/challenge"), formFields: [("creq", "Q1JlcQ")], purpose: .challenge)
        #expect(await presenter.present(request, handler: handler))
        await handler.log.wait { $0.contains(.finished(notification.absoluteString)) }
        await Self.settle(presenter, notification)

        let requests = server.requests
        try #require(requests.count == 3)
        #expect(requests.map(\.path) == ["/acs/challenge", "/acs/verify", "/gateway/3ds/notification"])
        // Hidden fields unchanged, the code in `otp`, and "Submit" (unnamed) pressed, not "Resend code".
        #expect(Self.body(requests[1]) == "threeDSSessionData=c2Vzc2lvbg%3D%3D&acsTransID=8a880dc0&otp=482913")
        // The hand-back went out by itself, without the visible button's value.
        #expect(Self.body(requests[2]) == "cres=eyJ0cmFuc1N0YXR1cyI6IlkifQ&threeDSSessionData=c2Vzc2lvbg%3D%3D")
        #expect(kinds.items == [.challenge])
        #expect(presenter.askedAbout == [server.url("/acs/challenge")])
        #expect(presenter.currentPage?.kind == .notification)
        // `answering` closes pages it cannot act on, but it never heard of this one.
        #expect(!handler.events.contains(.closed))
        await presenter.dismiss()
    }

    @Test(arguments: ["password", "number", "tel"])
    func theCodeGoesIntoTheOnlyVisibleEntryWhateverItsType(type: String) async throws {
        let challenge = """
            <html><body><form method="post" action="/verify">
            <input type="hidden" name="MD" value="m-7">
            <p>Your static password</p><input type="\(type)" name="answer">
            <input type="submit" value="Confirm">
            </form></body></html>
            """
        let server = try LoopbackServer { request in
            request.path == "/challenge" ? .html(200, Self.html, challenge) : .html(200, Self.html, Self.done)
        }
        defer { server.stop() }
        let kinds = EventLog<PageKind>()
        let presenter = HeadlessBrowserPresenter(
            script: Self.recording(.sequence([.challenge(code: "1234")]), into: kinds))
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: server.url("/challenge"), purpose: .challenge), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()

        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[1].method == "POST")
        #expect(Self.body(requests[1]) == "MD=m-7&answer=1234")
        // The challenge, then the result page, which the exhausted sequence closes at once.
        #expect(kinds.items == [.challenge, .other])
        #expect(handler.events.last == .closed)
    }

    @Test func ofTwoTextEntriesTheOneLabelledOneTimeCodeGetsTheCode() async throws {
        let challenge = """
            <html><body><form method="post" action="/verify">
            <label>Cardholder name <input type="text" name="holder" value="A. Buyer"></label>
            <label for="f2">One-time code</label> <input type="text" id="f2" name="field2">
            <button>Continue</button>
            </form></body></html>
            """
        let server = try LoopbackServer { request in
            request.path == "/challenge" ? .html(200, Self.html, challenge) : .html(200, Self.html, Self.done)
        }
        defer { server.stop() }
        let kinds = EventLog<PageKind>()
        let presenter = HeadlessBrowserPresenter(
            script: Self.recording(.answering(challengeCode: "4321"), into: kinds))
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: server.url("/challenge"), purpose: .challenge), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()

        let requests = server.requests
        try #require(requests.count == 2)
        #expect(Self.body(requests[1]) == "holder=A.+Buyer&field2=4321")
        #expect(kinds.items == [.challenge, .other])
    }

    /// A gateway's own checkout: its button values are not the choice names, its labels are.
    static let plainCheckout = """
        <html><head><title>Checkout · Example Shop</title></head><body>
        <h1>Pay 12.50 EUR to Example Shop</h1>
        <form method="post" action="/hpp/submit">
        <input type="hidden" name="sessionToken" value="tok_81">
        <input type="hidden" name="amount" value="1250">
        <button type="submit" name="action" value="authorise-1">Pay now</button>
        <button type="submit" name="action" value="void">Cancel payment</button>
        </form></body></html>
        """

    @Test(arguments: [
        (HostedChoice.pay, "sessionToken=tok_81&amount=1250&action=authorise-1"),
        (HostedChoice.cancel, "sessionToken=tok_81&amount=1250&action=void"),
    ])
    func aPlainCheckoutPressesTheButtonLabelledForTheChoice(choice: HostedChoice, expected: String) async throws {
        let server = try LoopbackServer { request in
            switch (request.method, request.path) {
            case ("GET", "/hpp"): .html(200, Self.html, Self.plainCheckout)
            case ("POST", "/hpp/submit"): .http(303, [("Location", "/shop/return?order=7")])
            default: .html(404, Self.html, "<h1>Not found</h1>")
            }
        }
        defer { server.stop() }
        let pages = EventLog<LoadedPage>()
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { page, respond in
                pages.append(page)
                BuyerScript.answering(hosted: choice).decide(page, respond)
            })
        let handler = RecordingHandler(cancelPathPrefix: "/shop/return")
        _ = await presenter.present(PageRequest(url: server.url("/hpp"), purpose: .hostedCheckout), handler: handler)
        await handler.log.wait { $0.contains(.decide(server.url("/shop/return?order=7").absoluteString)) }
        await presenter.dismiss()

        let page = try #require(pages.items.first)
        #expect(page.kind == .hostedCheckout)
        #expect(page.title == "Checkout · Example Shop")
        #expect(page.buttonLabels == ["Pay now", "Cancel payment"])
        #expect(!page.needsJavaScript)
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[1].method == "POST")
        #expect(Self.body(requests[1]) == expected)
    }

    @Test func pressFindsAButtonByItsLabelAndAMissingLabelFailsTheLoad() async throws {
        let interstitial = """
            <html><head><title>One more step</title></head><body><form method="post" action="/step">
            <input type="hidden" name="s" value="2">
            <button type="submit" name="skip" value="yes">Skip</button>
            <button type="submit" name="go" value="next">  Continue   » </button>
            </form></body></html>
            """
        let server = try LoopbackServer { request in
            request.path == "/start" ? .html(200, Self.html, interstitial) : .html(200, Self.html, Self.done)
        }
        defer { server.stop() }

        let presenter = HeadlessBrowserPresenter(script: .sequence([.press(label: "CONTINUE")]))
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: server.url("/start"), purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        try #require(server.requests.count == 2)
        #expect(Self.body(server.requests[1]) == "s=2&go=next")
        #expect(handler.events.last == .closed)

        let missing = RecordingHandler()
        let again = HeadlessBrowserPresenter(script: .always(.press(label: "Nope")))
        _ = await again.present(PageRequest(url: server.url("/start"), purpose: .hostedCheckout), handler: missing)
        await missing.waitForEnd()
        await again.dismiss()
        #expect(
            missing.events.last
                == .failed(
                    server.url("/start").absoluteString, "buyer action press: the page has no button labelled 'Nope'"))
        #expect(server.requests.count == 3)
    }

    /// Pages that submit themselves, each by another means; all post the same hidden field.
    static let selfSubmitting: [String: String] = [
        "hidden-only form with a noscript button": """
        <html><body><form method="post" action="/landing">
        <input type="hidden" name="threeDSMethodData" value="eyJ9">
        <noscript><input type="submit" value="Continue"></noscript>
        </form></body></html>
        """,
        "body onload": """
        <html><body onload="document.getElementById('f').submit()">
        <form id="f" method="post" action="/landing">
        <input type="hidden" name="threeDSMethodData" value="eyJ9">
        <input type="submit" value="Continue">
        </form></body></html>
        """,
        "inline script": """
        <html><body><form method="post" action="/landing">
        <input type="hidden" name="threeDSMethodData" value="eyJ9">
        <button type="submit">Continue</button>
        </form>
        <script>document.forms[0].submit();</script>
        </body></html>
        """,
    ]

    @Test(arguments: selfSubmitting.keys.sorted())
    func aPageThatSubmitsItselfIsSubmittedWithoutAskingTheBuyer(variant: String) async throws {
        let page = try #require(Self.selfSubmitting[variant])
        let server = try LoopbackServer { request in
            request.path == "/method" ? .html(200, Self.html, page) : .html(200, Self.html, Self.done)
        }
        defer { server.stop() }
        let kinds = EventLog<PageKind>()
        let events = EventLog<BrowserEvent>()
        let presenter = HeadlessBrowserPresenter(
            script: Self.recording(.answering(), into: kinds), onEvent: { events.append($0) })
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: server.url("/method"), purpose: .challenge), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()

        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[1].method == "POST")
        #expect(requests[1].path == "/landing")
        #expect(Self.body(requests[1]) == "threeDSMethodData=eyJ9")
        // Only the landing page reached the buyer, and `answering` closed it (nothing to do there).
        #expect(presenter.askedAbout == [server.url("/landing")])
        #expect(kinds.items == [.other])
        #expect(handler.events.last == .closed)
        let autoSubmitted = events.items.filter {
            if case .autoSubmitted = $0 { return true }
            return false
        }
        #expect(autoSubmitted.count == 1)
    }

    @Test func automaticSubmissionsAreBoundedPerPresentation() async throws {
        let loop = """
            <html><body><form method="post" action="/loop">
            <input type="hidden" name="n" value="1">
            </form></body></html>
            """
        let server = try LoopbackServer { _ in .html(200, Self.html, loop) }
        defer { server.stop() }
        let presenter = HeadlessBrowserPresenter(
            script: .answering(), options: .init(maxAutomaticSubmissions: 3))
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: server.url("/loop"), purpose: .challenge), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()

        // The first load and three submissions; the fourth page would be the fourth submission.
        #expect(server.requests.count == 4)
        #expect(
            handler.events.last
                == .failed(
                    server.url("/loop").absoluteString, "too many automatic form submissions (more than 3 in a row)"))
        #expect(presenter.askedAbout.isEmpty)
    }

    /// Pages with nothing a browser without JavaScript can submit.
    static let scriptOnly: [String: String] = [
        "single-page app shell": """
        <!DOCTYPE html><html><head><title>Pay</title>
        <script type="module" src="/assets/index-4f1c.js"></script></head>
        <body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>
        """,
        "button with onclick only": """
        <html><head><title>Confirm</title></head><body>
        <form method="post" action="/pay"><input type="hidden" name="t" value="1">
        <button type="button" onclick="startPayment()">Pay</button>
        </form></body></html>
        """,
    ]

    @Test(arguments: scriptOnly.keys.sorted())
    func aPageThatNeedsJavaScriptIsReportedAndTheBuyerCanCloseIt(variant: String) async throws {
        let page = try #require(Self.scriptOnly[variant])
        let server = try LoopbackServer { _ in .html(200, Self.html, page) }
        defer { server.stop() }
        let pages = EventLog<LoadedPage>()
        let loaded = EventLog<String>()
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { page, respond in
                pages.append(page)
                BuyerScript.answering().decide(page, respond)
            },
            onEvent: { event in
                if case .loaded = event { loaded.append(event.description) }
            })
        let handler = RecordingHandler()
        let url = server.url("/app")
        _ = await presenter.present(PageRequest(url: url, purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()

        let asked = try #require(pages.items.first)
        #expect(pages.items.count == 1)
        #expect(asked.needsJavaScript)
        #expect(asked.kind == .needsJavaScript)
        #expect(asked.autoSubmitFormIndex == nil)
        #expect(handler.events == [.decide(url.absoluteString), .finished(url.absoluteString), .closed])
        // Nothing was submitted: the hidden form waits for a click only script can handle.
        #expect(server.requests.count == 1)
        #expect(loaded.items.first?.hasSuffix(LoadedPage.javaScriptNotice) == true)
    }

    @Test func aCodeSentInAGetQueryIsMaskedInEveryEvent() async throws {
        let challenge = """
            <html><body><form action="/verify"><input type="hidden" name="tx" value="9">
            <input type="password" name="pin"><input type="submit" value="OK"></form></body></html>
            """
        let server = try LoopbackServer { request in
            request.path == "/challenge" ? .html(200, Self.html, challenge) : .html(200, Self.html, Self.done)
        }
        defer { server.stop() }
        let events = EventLog<BrowserEvent>()
        let presenter = HeadlessBrowserPresenter(
            script: .sequence([.challenge(code: "918273")]), onEvent: { events.append($0) })
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: server.url("/challenge"), purpose: .challenge), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()

        // The issuer got the code; the handler (the SDK) saw the real URL.
        try #require(server.requests.count == 2)
        #expect(server.requests[1].target == "/verify?tx=9&pin=918273")
        #expect(handler.events.contains(.decide(server.url("/verify?tx=9&pin=918273").absoluteString)))
        // No observer ever sees it, in the payloads or in the printed events.
        let printed = events.items.map { event in
            var dumped = ""
            dump(event, to: &dumped)
            return "\(event) \(dumped)"
        }
        #expect(!printed.isEmpty)
        #expect(printed.allSatisfy { !$0.contains("918273") })
        #expect(presenter.currentPage?.url.absoluteString.contains("918273") == false)
        #expect(printed.contains { $0.contains("pin=%E2%80%A2%E2%80%A2%E2%80%A2%E2%80%A2") })
        #expect(printed.contains { $0.contains("challenge(code: ••••)") })
    }

    /// What an observer could print of `event`: its description, every URL it carries (its own, a loaded
    /// page's and each of its forms' actions) and a dump of the whole payload.
    static func printed(_ event: BrowserEvent) -> [String] {
        var urls: [URL] = []
        switch event {
        case .navigation(_, let url, _), .failed(let url, _), .autoSubmitted(let url, _), .buyerAction(_, let url):
            urls = [url]
        case .redirect(_, let from, let to): urls = [from, to]
        case .loaded(let page): urls = [page.url] + page.forms.map(\.action)
        case .closedByBuyer, .dismissed: break
        }
        var dumped = ""
        dump(event, to: &dumped)
        return ["\(event)"] + urls.map(\.absoluteString) + [dumped]
    }

    /// Each place in `events` that shows `code`, with the code replaced by `<code>` (a dump that shows it
    /// is named by its event).
    static func leaks(of code: String, in events: [BrowserEvent]) -> [String] {
        func hidden(_ text: String) -> String { text.replacingOccurrences(of: code, with: "<code>") }
        return events.flatMap { event in
            var lines = printed(event)
            let dumped = lines.removeLast()
            return lines.filter { $0.contains(code) }.map(hidden)
                + (dumped.contains(code) ? ["the dump of: " + hidden("\(event)")] : [])
        }
    }

    /// The code `getChallenge` is answered with, `pin` masked as events show it.
    static let code = "918273"
    static let maskedPin = "pin=%E2%80%A2%E2%80%A2%E2%80%A2%E2%80%A2"

    /// A challenge whose GET form sends the code in its query: `/verify?tx=9&pin=<code>`.
    static let getChallenge = """
        <html><body><form action="/verify"><input type="hidden" name="tx" value="9">
        <input type="password" name="pin"><input type="submit" value="OK"></form></body></html>
        """

    /// The page a GET challenge leads to has a form without `action`: it submits to the document's URL,
    /// which holds the code. A POST goes to that URL, query and all (what a browser sends); a GET
    /// replaces the query with the form's. Either way no event, no URL an event carries (the page's,
    /// its forms' actions, the submission's) and no `currentPage` shows the code: the mask follows the
    /// code from the URL to the form resolved against it.
    @Test(arguments: ["post", "get"])
    func anActionlessFormAfterAGetChallengeNeverShowsTheCode(method: String) async throws {
        let continuePage = """
            <html><head><title>Almost there</title></head><body><form method="\(method)">
            <input type="hidden" name="step" value="2"><input type="submit" value="Continue"></form></body></html>
            """
        let server = try LoopbackServer { request in
            switch (request.method, request.path) {
            case ("GET", "/challenge"): .html(200, Self.html, Self.getChallenge)
            case ("GET", "/verify") where request.target.contains("pin="): .html(200, Self.html, continuePage)
            case (_, "/verify"): .html(200, Self.html, Self.done)
            default: .html(404, Self.html, "<h1>Not found</h1>")
            }
        }
        defer { server.stop() }
        let events = EventLog<BrowserEvent>()
        let presenter = HeadlessBrowserPresenter(
            script: .sequence([.challenge(code: Self.code), .press(label: "Continue")]),
            onEvent: { events.append($0) })
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: server.url("/challenge"), purpose: .challenge), handler: handler)
        await handler.waitForEnd()
        let lastPage = presenter.currentPage
        await presenter.dismiss()

        // On the wire, what a browser sends: the document URL for a POST (its query kept), the form's
        // own query for a GET.
        let submitted = method == "post" ? "/verify?tx=9&pin=\(Self.code)" : "/verify?step=2"
        #expect(server.requests.map(\.target) == ["/challenge", "/verify?tx=9&pin=\(Self.code)", submitted])
        #expect(server.requests.map(\.method) == ["GET", "GET", method.uppercased()])
        #expect(server.requests.last.map(Self.body) == (method == "post" ? "step=2" : ""))
        // The handler (the SDK) hears the real URLs.
        #expect(handler.events.contains(.decide(server.url(submitted).absoluteString)))
        #expect(handler.events.contains(.closed), "the buyer got to the last page and closed it")
        // No observer ever sees the code.
        Self.expectNoCodeShown(in: events.items, lastPage: lastPage)
        let shown = events.items.map(\.description)
        if method == "post" {
            #expect(
                shown.contains { $0.hasPrefix("navigation POST") && $0.contains("/verify?tx=9&\(Self.maskedPin):") })
        }
    }

    /// Neither an event nor the page the presenter shows last holds the typed code.
    static func expectNoCodeShown(
        in events: [BrowserEvent], lastPage: LoadedPage?, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let leaks = leaks(of: code, in: events)
        #expect(leaks.isEmpty, "\(leaks)", sourceLocation: sourceLocation)
        let lastPageLeaks = lastPage.map { Self.leaks(of: code, in: [.loaded($0)]) }
        #expect(lastPageLeaks == [], "currentPage: \(lastPageLeaks ?? [])", sourceLocation: sourceLocation)
    }

    /// A redirect whose `Location` is only a fragment (`#done`) keeps the URL's query, code and all: the
    /// browser asks for the same URL again (the server sees the code, as it would from any browser),
    /// and the hop's events and the page it ends on show it masked.
    @Test func aFragmentOnlyRedirectAfterAGetChallengeNeverShowsTheCode() async throws {
        let hits = Mutex(0)
        let server = try LoopbackServer { request in
            switch (request.method, request.path) {
            case ("GET", "/challenge"): return .html(200, Self.html, Self.getChallenge)
            case ("GET", "/verify"):
                let first = hits.withLock { hits in
                    hits += 1
                    return hits == 1
                }
                return first ? .http(302, [("Location", "#done")]) : .html(200, Self.html, Self.done)
            default: return .html(404, Self.html, "<h1>Not found</h1>")
            }
        }
        defer { server.stop() }
        let events = EventLog<BrowserEvent>()
        let presenter = HeadlessBrowserPresenter(
            script: .sequence([.challenge(code: Self.code)]), onEvent: { events.append($0) })
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: server.url("/challenge"), purpose: .challenge), handler: handler)
        await handler.waitForEnd()
        let lastPage = presenter.currentPage
        await presenter.dismiss()

        // The hop asks for the same resource again: the fragment never goes on the wire.
        let verify = "/verify?tx=9&pin=\(Self.code)"
        #expect(server.requests.map(\.target) == ["/challenge", verify, verify])
        #expect(handler.events.contains(.decide(server.url(verify + "#done").absoluteString)))
        #expect(handler.events.contains(.closed), "the buyer got to the last page and closed it")
        Self.expectNoCodeShown(in: events.items, lastPage: lastPage)
        let shown = events.items.map(\.description)
        #expect(shown.contains { $0.hasPrefix("redirect 302") && $0.hasSuffix("/verify?tx=9&\(Self.maskedPin)#done") })
        #expect(lastPage?.url.absoluteString.hasSuffix("/verify?tx=9&\(Self.maskedPin)#done") == true)
    }

    /// Issue 23: a browser made with the kit's configuration loads pages as the kit sends requests. In
    /// `.live` an `http:` page is refused before any connection (the server hears nothing) and reported
    /// as a failed load; the bare default transport would have loaded it.
    @Test func aLiveConfigurationRefusesPlainHTTPPages() async throws {
        let server = try LoopbackServer { _ in .html(200, [], Self.done) }
        defer { server.stop() }
        let presenter = HeadlessBrowserPresenter(
            script: .answering(), configuration: Configuration(environment: .live))
        let handler = RecordingHandler()
        #expect(
            await presenter.present(PageRequest(url: server.url("/pay"), purpose: .hostedCheckout), handler: handler))
        await handler.waitForEnd()
        #expect(handler.events.contains { if case .failed = $0 { true } else { false } })
        #expect(server.requests.isEmpty, "the page was fetched over http in live")
        await presenter.dismiss()
        // The same page in the sandbox environment loads (the test could fail).
        let sandboxed = HeadlessBrowserPresenter(
            script: .answering(), configuration: Configuration(environment: .sandbox))
        let loaded = RecordingHandler()
        #expect(
            await sandboxed.present(PageRequest(url: server.url("/pay"), purpose: .hostedCheckout), handler: loaded))
        await loaded.log.wait { $0.contains { if case .finished = $0 { true } else { false } } }
        #expect(server.requests.count == 1)
        await sandboxed.dismiss()
    }
}
