import Foundation
import PaymentFlow
import Synchronization
import Testing

@testable import HeadlessBrowser

/// The headless browser driven over a fake transport: every step awaits an
/// event, never the clock.
@Suite(.timeLimit(.minutes(1))) struct HeadlessBrowserPresenterTests {
    static let base = "http://gw.example"
    static func url(_ path: String) -> URL { URL(string: base + path)! }
    static let html = [HTTPHeader("Content-Type", "text/html; charset=utf-8")]

    @Test func hostedCheckoutPayPostsTheChoiceAndStopsAtTheReturnURL() async throws {
        let transport = FakeTransport { request in
            switch (request.method, request.url.path) {
            case ("GET", "/checkout/pay/p1"):
                return .response(200, Self.html, TestPages.hosted(action: "/checkout/pay/p1"))
            case ("POST", "/checkout/pay/p1"):
                return .response(303, [HTTPHeader("Location", "http://shop.example/return?order=7")], "")
            default:
                return .response(404, [], "")
            }
        }
        let events = EventLog<BrowserEvent>()
        let presenter = HeadlessBrowserPresenter(
            script: .answering(hosted: .pay), transport: transport, onEvent: { events.append($0) })
        let handler = RecordingHandler { $0.host == "shop.example" ? .cancel : .allow }
        #expect(
            await presenter.present(
                PageRequest(url: Self.url("/checkout/pay/p1"), purpose: .hostedCheckout), handler: handler))
        await handler.log.wait { $0.contains(.decide("http://shop.example/return?order=7")) }
        // The SDK's answer arrives later, from another thread: wait until the browser heard it.
        await events.wait { events in
            events.contains { event in
                if case .navigation(_, _, .cancel) = event { return true }
                return false
            }
        }
        await presenter.dismiss()

        #expect(
            handler.events == [
                .decide(Self.base + "/checkout/pay/p1"),
                .finished(Self.base + "/checkout/pay/p1"),
                .decide(Self.base + "/checkout/pay/p1"),  // the form submission
                .decide("http://shop.example/return?order=7"),
            ])
        #expect(
            presenter.navigations.map(\.absoluteString) == [
                Self.base + "/checkout/pay/p1", Self.base + "/checkout/pay/p1", "http://shop.example/return?order=7",
            ])
        let requests = transport.requests
        try #require(requests.count == 2)
        // Hidden field first, then the pressed button (HTML form submission order).
        #expect(requests[1].bodyText == "token=t-1&choice=pay")
        #expect(requests[1].header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(requests.allSatisfy { !$0.followRedirects })
        let kinds = events.items.map { event -> String in
            switch event {
            case .navigation(_, _, let decision): return "navigation(\(decision))"
            case .redirect(let status, _, _): return "redirect(\(status))"
            case .loaded(let page): return "loaded(\(page.kind))"
            case .failed: return "failed"
            case .autoSubmitted: return "autoSubmitted"
            case .buyerAction(let action, _): return action == .hosted(.pay) ? "action(pay)" : "action(other)"
            case .closedByBuyer: return "closed"
            case .dismissed: return "dismissed"
            }
        }
        #expect(
            kinds == [
                "navigation(allow)", "loaded(hosted-checkout)", "action(pay)",
                "navigation(allow)", "redirect(303)", "navigation(cancel)", "dismissed",
            ])
    }

    @Test(arguments: HostedChoice.allCases)
    func everyHostedChoicePressesItsButton(choice: HostedChoice) async throws {
        let transport = FakeTransport { request in
            request.method == "GET"
                ? .response(200, Self.html, TestPages.hosted(action: "/submit"))
                : .response(303, [HTTPHeader("Location", "/return")], "")
        }
        let presenter = HeadlessBrowserPresenter(script: .always(.hosted(choice)), transport: transport)
        let handler = RecordingHandler(cancelPathPrefix: "/return")
        _ = await presenter.present(PageRequest(url: Self.url("/page"), purpose: .hostedCheckout), handler: handler)
        await handler.log.wait { $0.contains(.decide(Self.base + "/return")) }
        await presenter.dismiss()
        #expect(transport.requests.last?.bodyText == "token=t-1&choice=\(choice.rawValue)")
    }

    @Test func everyRedirectHopIsReportedAndMethodRulesApply() async throws {
        let transport = FakeTransport { request in
            switch request.url.path {
            case "/a": return .response(307, [HTTPHeader("Location", "/b")], "")
            case "/b": return .response(302, [HTTPHeader("Location", "http://other.example/c")], "")
            case "/c": return .response(301, [HTTPHeader("Location", "/d")], "")
            default: return .response(200, Self.html, TestPages.plain)
            }
        }
        let presenter = HeadlessBrowserPresenter(script: .always(.wait), transport: transport)
        let handler = RecordingHandler()
        let page = PageRequest(url: Self.url("/a"), formFields: [("creq", "abc=")], purpose: .challenge)
        _ = await presenter.present(page, handler: handler)
        await handler.log.wait { $0.contains(.finished("http://other.example/d")) }
        await presenter.dismiss()

        #expect(
            handler.events == [
                .decide(Self.base + "/a"), .decide(Self.base + "/b"), .decide("http://other.example/c"),
                .decide("http://other.example/d"), .finished("http://other.example/d"),
            ])
        let requests = transport.requests
        #expect(requests.map(\.method) == ["POST", "POST", "GET", "GET"])
        // The first POST and the 307 hop carry the form; 302 turns it into a body-less GET.
        #expect(requests.map(\.bodyText) == ["creq=abc%3D", "creq=abc%3D", "", ""])
        #expect(requests[2].header("Content-Type") == nil)
        #expect(presenter.currentPage?.title == "Plain")
    }

    @Test func aRedirectLoopFailsTheLoad() async {
        let transport = FakeTransport { _ in .response(302, [HTTPHeader("Location", "/loop")], "") }
        let presenter = HeadlessBrowserPresenter(
            script: .always(.wait), transport: transport, options: .init(maxRedirects: 3))
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/loop"), purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        #expect(transport.requests.count == 4)
        #expect(handler.events.last == .failed(Self.base + "/loop", "more than 3 redirects"))
    }

    @Test(arguments: ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,<form>"])
    func aRedirectOutOfHTTPFailsWithoutLoadingIt(location: String) async {
        // A hostile page may send the browser anywhere; only http and https are ever fetched.
        let transport = FakeTransport { _ in .response(302, [HTTPHeader("Location", location)], "") }
        let presenter = HeadlessBrowserPresenter(script: .always(.wait), transport: transport)
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/start"), purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        #expect(transport.requests.map(\.url.absoluteString) == [Self.base + "/start"])
        guard case .failed(_, let reason) = handler.events.last else {
            Issue.record("expected a failure, got \(handler.events)")
            return
        }
        #expect(reason == "the browser loads only http and https URLs")
    }

    @Test func cancellingTheFirstNavigationLoadsNothing() async {
        let transport = FakeTransport { _ in .response(200, Self.html, TestPages.plain) }
        let asked = EventLog<String>()
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { _, respond in
                asked.append("asked")
                respond(.wait)
            }, transport: transport)
        let handler = RecordingHandler { _ in .cancel }
        #expect(await presenter.present(PageRequest(url: Self.url("/x"), purpose: .hostedCheckout), handler: handler))
        await handler.log.wait { !$0.isEmpty }
        await presenter.dismiss()
        #expect(handler.events == [.decide(Self.base + "/x")])
        #expect(transport.requests.isEmpty)
        #expect(asked.items.isEmpty)
    }

    @Test func cancellingAMidChainRedirectStopsThere() async {
        let transport = FakeTransport { request in
            request.url.path == "/a"
                ? .response(302, [HTTPHeader("Location", "/b")], "") : .response(200, Self.html, TestPages.plain)
        }
        let presenter = HeadlessBrowserPresenter(script: .always(.wait), transport: transport)
        let handler = RecordingHandler(cancelPathPrefix: "/b")
        _ = await presenter.present(PageRequest(url: Self.url("/a"), purpose: .hostedCheckout), handler: handler)
        await handler.log.wait { $0.contains(.decide(Self.base + "/b")) }
        await presenter.dismiss()
        #expect(transport.requests.map(\.url.path) == ["/a"])
        #expect(handler.events == [.decide(Self.base + "/a"), .decide(Self.base + "/b")])
    }

    @Test func cookiesAreKeptForThePageAndSentBack() async throws {
        let transport = FakeTransport { request in
            switch request.url.path {
            case "/start":
                return .response(
                    302, [HTTPHeader("Set-Cookie", "session=s1; Path=/; HttpOnly"), HTTPHeader("Location", "/form")], ""
                )
            case "/form":
                return .response(
                    200, Self.html + [HTTPHeader("Set-Cookie", "step=2; Path=/form")],
                    TestPages.hosted(action: "/form/submit"))
            default:
                return .response(303, [HTTPHeader("Location", "/return")], "")
            }
        }
        let presenter = HeadlessBrowserPresenter(script: .always(.hosted(.cancel)), transport: transport)
        let handler = RecordingHandler(cancelPathPrefix: "/return")
        _ = await presenter.present(PageRequest(url: Self.url("/start"), purpose: .hostedCheckout), handler: handler)
        await handler.log.wait { $0.contains(.decide(Self.base + "/return")) }
        await presenter.dismiss()
        let cookies = transport.requests.map { $0.header("Cookie") }
        #expect(cookies == [nil, "session=s1", "step=2; session=s1"])

        // A new presentation starts with an empty jar.
        let again = RecordingHandler(cancelPathPrefix: "/form/submit")
        _ = await presenter.present(PageRequest(url: Self.url("/form"), purpose: .hostedCheckout), handler: again)
        await again.log.wait { $0.contains(.decide(Self.base + "/form/submit")) }
        await presenter.dismiss()
        let requests = transport.requests
        try #require(requests.count == 4)
        #expect(requests[3].url.path == "/form")
        #expect(requests[3].header("Cookie") == nil)
    }

    @Test(arguments: [400, 404, 500, 503])
    func errorStatusesFailTheLoadWithoutAskingTheBuyer(status: Int) async {
        let transport = FakeTransport { _ in .response(status, Self.html, "<h1>Error</h1>") }
        let asked = EventLog<String>()
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { _, respond in
                asked.append("asked")
                respond(.close)
            }, transport: transport)
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/p"), purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        #expect(handler.events == [.decide(Self.base + "/p"), .failed(Self.base + "/p", "HTTP \(status)")])
        #expect(asked.items.isEmpty)
    }

    @Test func transportFailuresFailTheLoad() async throws {
        let transport = FakeTransport { _ in .failure(.timeout) }
        let presenter = HeadlessBrowserPresenter(script: .always(.wait), transport: transport)
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/p"), purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        guard case .failed(let url, let reason) = try #require(handler.events.last) else {
            Issue.record("expected a failure, got \(handler.events)")
            return
        }
        #expect(url == Self.base + "/p")
        #expect(reason.contains("timeout"))
    }

    @Test func challengeCodeIsSubmittedAndTheHandBackAutoSubmits() async throws {
        let transport = FakeTransport { request in
            switch request.url.path {
            case "/acs/challenge":
                return .response(200, Self.html, TestPages.challenge(action: "/acs/challenge/submit"))
            case "/acs/challenge/submit":
                return .response(
                    200, Self.html,
                    TestPages.complete(notification: "http://gw.example/3ds/notification/s1", cres: "CRES+1/="))
            default:
                return .response(200, Self.html, "<meta name=egw-page content=3ds-notification>")
            }
        }
        let asked = EventLog<String>()
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { page, respond in
                asked.append(page.kind.marker)
                respond(.challenge(code: "1234"))
            }, transport: transport)
        let handler = RecordingHandler(cancelPathPrefix: "/3ds/notification")
        let page = PageRequest(
            url: Self.url("/acs/challenge"), formFields: [("creq", "eyJtZXNzYWdlVHlwZSI6IkNSZXEifQ")],
            purpose: .challenge)
        _ = await presenter.present(page, handler: handler)
        await handler.log.wait { $0.contains(.decide(Self.base + "/3ds/notification/s1")) }
        await presenter.dismiss()

        let requests = transport.requests
        try #require(requests.count == 2)
        #expect(requests[0].bodyText == "creq=eyJtZXNzYWdlVHlwZSI6IkNSZXEifQ")
        #expect(requests[1].bodyText == "transaction=tx-9&code=1234")
        #expect(asked.items == ["acs-challenge"])
        #expect(
            handler.events == [
                .decide(Self.base + "/acs/challenge"), .finished(Self.base + "/acs/challenge"),
                .decide(Self.base + "/acs/challenge/submit"), .finished(Self.base + "/acs/challenge/submit"),
                .decide(Self.base + "/3ds/notification/s1"),
            ])
    }

    @Test func theAutoSubmittedFormCarriesItsHiddenFields() async throws {
        let transport = FakeTransport { request in
            request.url.path == "/complete"
                ? .response(
                    200, Self.html,
                    "<body onload=\"document.forms[0].submit()\"><form method=post action=/n><input type=hidden name=cres value='a b'></form>"
                )
                : .response(200, Self.html, TestPages.plain)
        }
        let presenter = HeadlessBrowserPresenter(script: .always(.wait), transport: transport)
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/complete"), purpose: .challenge), handler: handler)
        await handler.log.wait { $0.contains(.finished(Self.base + "/n")) }
        await presenter.dismiss()
        #expect(transport.requests.last?.bodyText == "cres=a+b")
        #expect(transport.requests.last?.method == "POST")
    }

    @Test func endlessAutoSubmissionIsCutOff() async {
        let transport = FakeTransport { _ in
            .response(200, Self.html, TestPages.complete(notification: "/again", cres: "x"))
        }
        let presenter = HeadlessBrowserPresenter(
            script: .always(.wait), transport: transport, options: .init(maxAutomaticSubmissions: 2))
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/again"), purpose: .challenge), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        #expect(transport.requests.count == 3)
        #expect(
            handler.events.last
                == .failed(Self.base + "/again", "too many automatic form submissions (more than 2 in a row)"))
    }

    @Test func closingReportsOnceAndLoadsNothingMore() async {
        let transport = FakeTransport { _ in .response(200, Self.html, TestPages.hosted(action: "/x")) }
        let presenter = HeadlessBrowserPresenter(script: .closeAtFirstPage, transport: transport)
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/p"), purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        #expect(handler.events == [.decide(Self.base + "/p"), .finished(Self.base + "/p"), .closed])
        #expect(transport.requests.count == 1)
    }

    @Test func anActionThePageCannotSatisfyFailsTheLoad() async {
        let transport = FakeTransport { _ in .response(200, Self.html, TestPages.plain) }
        let presenter = HeadlessBrowserPresenter(script: .always(.hosted(.pay)), transport: transport)
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/p"), purpose: .hostedCheckout), handler: handler)
        await handler.waitForEnd()
        await presenter.dismiss()
        guard case .failed(_, let reason) = handler.events.last else {
            Issue.record("expected a failure, got \(handler.events)")
            return
        }
        #expect(reason.contains("'pay'"))
        #expect(transport.requests.count == 1)
    }

    @Test func submitActionFillsAGetForm() async throws {
        let search =
            "<form action='/search?old=1#f'><input name=q value=''><input type=submit name=go value=Find></form>"
        let transport = FakeTransport { request in
            request.url.path == "/search"
                ? .response(200, Self.html, TestPages.plain) : .response(200, Self.html, search)
        }
        let presenter = HeadlessBrowserPresenter(
            script: .sequence([.submit(formIndex: 0, fields: ["q": "a&b c"])]), transport: transport)
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/home"), purpose: .hostedCheckout), handler: handler)
        await handler.log.wait { $0.contains(.finished(Self.base + "/search?q=a%26b+c&go=Find")) }
        await presenter.dismiss()
        #expect(transport.requests.last?.method == "GET")
        #expect(transport.requests.last?.url.absoluteString == Self.base + "/search?q=a%26b+c&go=Find")
    }

    @Test func onlyTheScriptsFirstAnswerCounts() async {
        let transport = FakeTransport { request in
            request.method == "GET"
                ? .response(200, Self.html, TestPages.hosted(action: "/submit"))
                : .response(303, [HTTPHeader("Location", "/return")], "")
        }
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { _, respond in
                respond(.hosted(.pay))
                respond(.hosted(.decline))
                respond(.close)
            }, transport: transport)
        let handler = RecordingHandler(cancelPathPrefix: "/return")
        _ = await presenter.present(PageRequest(url: Self.url("/page"), purpose: .hostedCheckout), handler: handler)
        await handler.log.wait { $0.contains(.decide(Self.base + "/return")) }
        await presenter.dismiss()
        #expect(transport.requests.map(\.bodyText) == ["", "token=t-1&choice=pay"])
        #expect(!handler.events.contains(.closed))
    }

    @Test func dismissAbandonsTheInFlightLoadAndSilencesEverything() async {
        let transport = FakeTransport { _ in .hold }
        let observed = EventLog<String>()
        let presenter = HeadlessBrowserPresenter(
            script: .always(.close), transport: transport, onEvent: { observed.append("\($0)") })
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/slow"), purpose: .hostedCheckout), handler: handler)
        await transport.sent.wait { $0.count == 1 }
        #expect(presenter.isPresenting)

        let completions = EventLog<String>()
        presenter.dismiss { completions.append("dismissed") }
        await completions.wait { !$0.isEmpty }
        let heardBefore = handler.events
        let observedBefore = observed.items.count

        // The held response arrives after the dismissal.
        transport.releaseHeld(
            with: .success(
                HTTPResponse(status: 200, body: Array(TestPages.hosted(action: "/x").utf8), url: Self.url("/slow"))))
        // A second dismiss completes after everything queued before it (the release hop included).
        await presenter.dismiss()

        #expect(heardBefore == [.decide(Self.base + "/slow")])
        #expect(handler.events == heardBefore)
        #expect(observed.items.count == observedBefore)
        #expect(completions.items == ["dismissed"])
        #expect(!presenter.isPresenting)
        #expect(transport.requests.count == 1)
    }

    @Test func aLateScriptAnswerAfterDismissIsDropped() async {
        let transport = FakeTransport { _ in .response(200, Self.html, TestPages.hosted(action: "/x")) }
        let pending = Mutex<(@Sendable (BuyerAction) -> Void)?>(nil)
        let asked = EventLog<String>()
        let presenter = HeadlessBrowserPresenter(
            script: BuyerScript { _, respond in
                pending.withLock { $0 = respond }
                asked.append("asked")
            }, transport: transport)
        let handler = RecordingHandler()
        _ = await presenter.present(PageRequest(url: Self.url("/p"), purpose: .hostedCheckout), handler: handler)
        await asked.wait { !$0.isEmpty }
        await presenter.dismiss()
        pending.withLock { $0 }?(.close)
        pending.withLock { $0 }?(.hosted(.pay))
        await presenter.dismiss()
        #expect(handler.events == [.decide(Self.base + "/p"), .finished(Self.base + "/p")])
        #expect(transport.requests.count == 1)
        // The kept answer closure holds the presenter, which holds the script that keeps it: let go.
        pending.withLock { $0 = nil }
    }

    @Test func onePageAtATimeAndReusableAfterDismiss() async {
        let transport = FakeTransport { _ in .hold }
        let presenter = HeadlessBrowserPresenter(script: .always(.wait), transport: transport)
        let first = RecordingHandler()
        #expect(await presenter.present(PageRequest(url: Self.url("/1"), purpose: .hostedCheckout), handler: first))
        #expect(
            !(await presenter.present(
                PageRequest(url: Self.url("/2"), purpose: .challenge), handler: RecordingHandler())))
        await presenter.dismiss()
        let second = RecordingHandler()
        #expect(await presenter.present(PageRequest(url: Self.url("/3"), purpose: .challenge), handler: second))
        await second.log.wait { !$0.isEmpty }
        #expect(presenter.navigations == [Self.url("/3")])
        await presenter.dismiss()
        // Dismissing with nothing shown still completes.
        await presenter.dismiss()
        #expect(first.events == [.decide(Self.base + "/1")])
        // A held transfer keeps its completion, and with it the presenter: end it as a real one would.
        transport.releaseHeld(with: .failure(TransportError(.timeout, "end of test")))
    }

    @Test func sequenceScriptAnswersInOrderThenCloses() async {
        let script = BuyerScript.sequence([.hosted(.pay), .wait])
        let page = LoadedPage(url: Self.url("/"))
        var answers: [BuyerAction] = []
        for _ in 0..<3 {
            let log = EventLog<BuyerAction>()
            script.decide(page) { log.append($0) }
            await log.wait { !$0.isEmpty }
            answers += log.items
        }
        #expect(answers == [.hosted(.pay), .wait, .close])
    }
}
