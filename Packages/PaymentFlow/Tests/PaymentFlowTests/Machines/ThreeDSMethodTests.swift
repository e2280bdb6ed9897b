import EGWWire
import Foundation
import Testing

@testable import PaymentFlow

/// The 3DS Method and the browser data (EMV 3DS 2.2 browser flow, GATEWAY.md step 2), event by event.
/// Expectations come from the issue's rules: `Y` only when the method page reached the method
/// notification URL and that load ended, `N` when it failed, could not load or was cut, `U` without a
/// method; a method never fails the payment; a cancel during it is `.cancelled` (no authentication
/// sent); a malformed presenter report fails before the authentication.
@Suite struct ThreeDSMethodTests {
    typealias T = CardPaymentMachineTests
    static let methodURL = URL(string: "https://acs.example/method")!
    static let methodNotification = URL(
        string: "https://checkout.example/gw/checkout/3ds/method-notification/s_1")!
    static let report = ThreeDSBrowserData(
        userAgent: "Mozilla/5.0 (X11; Linux x86_64)", acceptHeader: "text/html", language: "fr-CH",
        timeZoneOffsetMinutes: -60, javascriptEnabled: true, javaEnabled: false, screenWidth: 1920,
        screenHeight: 1080, colorDepth: 24, challengeWindowSize: .size500x600)
    static let reportFields = ThreeDSBrowserFields(
        userAgent: "Mozilla/5.0 (X11; Linux x86_64)", acceptHeader: "text/html", language: "fr-CH",
        timeZoneOffsetMinutes: -60, screenWidth: 1920, screenHeight: 1080, colorDepth: 24, javaEnabled: false,
        javascriptEnabled: true, challengeWindowSize: "03")

    static func authenticate(_ compInd: ThreeDSCompInd, _ browser: ThreeDSBrowserFields = reportFields) -> GatewayCall {
        .authenticate(
            sessionId: "s_1", notificationURL: T.notification, idempotencyKey: T.keys.authentication,
            threeDS: ThreeDSAuthentication(compInd: compInd, browser: browser))
    }

    /// A machine whose session names a method, the browser asked.
    static func askingBrowser(method: ThreeDSMethodPlan? = ThreeDSMethodPlan(url: methodURL, data: "bWV0aG9k"))
        -> CardPaymentMachine
    {
        var m = T.reach(.creatingSession)
        let created = SessionSnapshot(
            sessionId: "s_1", status: .authenticationRequired, transStatus: nil, method: method)
        #expect(m.handle(.sessionAnswered(T.create, .session(created))).action == .reportBrowser)
        return m
    }

    /// A machine running the method page.
    static func running() -> CardPaymentMachine {
        var m = askingBrowser()
        let action = m.handle(.browserReported(report)).action
        guard case .present(let plan) = action else {
            Issue.record("expected the method page, got \(action)")
            return m
        }
        #expect(plan.threeDSMethod)
        #expect(plan.url == methodURL)
        #expect(plan.formFields == [PagePlan.Field(name: "threeDSMethodData", value: "bWV0aG9k")])
        #expect(m.stateName == "runningThreeDSMethod")
        return m
    }

    @Test func aNotifiedMethodSaysY() {
        var m = Self.running()
        #expect(m.handle(.presented(shown: true)).action == .none)
        // The ACS's own pages load; then its POST to the method notification URL is let through.
        #expect(m.handle(.navigation(Self.methodURL, method: "POST")).navigation == .allow)
        #expect(m.handle(.pageLoaded(Self.methodURL)).action == .none)
        #expect(m.handle(.navigation(Self.methodNotification, method: "POST")).navigation == .allow)
        #expect(m.handle(.pageLoaded(Self.methodNotification)).action == .dismissPage)
        #expect(m.handle(.pageDismissed).action == .call(Self.authenticate(.completed)))
    }

    @Test func theMethodPagesLateLoadDoesNotEndTheMethodBeforeTheNotificationLoads() {
        // WebKit can report the method page's own load after its script already posted on: that load
        // is not the notification page's, so the POST to the gateway is not cut (a false `Y`).
        var m = Self.running()
        #expect(m.handle(.presented(shown: true)).action == .none)
        #expect(m.handle(.navigation(Self.methodNotification, method: "POST")).navigation == .allow)
        #expect(m.handle(.pageLoaded(Self.methodURL)).action == .none)
        #expect(m.stateName == "completingThreeDSMethod")
        #expect(m.handle(.pageLoaded(Self.methodNotification)).action == .dismissPage)
        #expect(m.handle(.pageDismissed).action == .call(Self.authenticate(.completed)))
    }

    @Test(arguments: [
        FlowEvent.pageTimedOut, .pageFailed(methodURL, reason: "reset"), .presented(shown: false),
        .presentationTimedOut, .pageTerminated(reason: "crashed"), .pageClosedByBuyer,
    ])
    func aMethodThatDoesNotCompleteSaysNAndStillPays(ending: FlowEvent) {
        var m = Self.running()
        #expect(m.handle(ending).action == .dismissPage)
        #expect(m.handle(.pageDismissed).action == .call(Self.authenticate(.notCompleted)))
        // The payment goes on as any other: a frictionless answer is a success.
        let done = m.handle(.sessionAnswered(Self.authenticate(.notCompleted), T.session(.completed, trans: "Y")))
        #expect(T.terminal(done.action)?.outcome == .succeeded)
    }

    @Test func theCutComesEvenAfterTheNotificationWasAllowed() {
        // The notification's load never ends within the 10 s: the page deadline cuts it, `N`.
        var m = Self.running()
        _ = m.handle(.navigation(Self.methodNotification, method: "POST"))
        #expect(m.handle(.pageTimedOut).action == .dismissPage)
        #expect(m.handle(.pageDismissed).action == .call(Self.authenticate(.notCompleted)))
    }

    @Test func noMethodSaysU() {
        var m = Self.askingBrowser(method: nil)
        #expect(m.handle(.browserReported(Self.report)).action == .call(Self.authenticate(.unavailable)))
    }

    @Test func aMethodThatCannotBeLoadedSaysNWithoutAPage() {
        var m = Self.askingBrowser(method: ThreeDSMethodPlan(url: nil, data: "x"))
        #expect(m.handle(.browserReported(Self.report)).action == .call(Self.authenticate(.notCompleted)))
    }

    @Test func aPresenterThatDoesNotSaySendsTheFourFieldsItAlwaysSent() {
        var m = Self.askingBrowser(method: nil)
        let expected = ThreeDSBrowserFields(
            userAgent: PaymentKit.userAgent, acceptHeader: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            language: "en-GB", timeZoneOffsetMinutes: 0)
        #expect(m.handle(.browserReported(nil)).action == .call(Self.authenticate(.unavailable, expected)))
    }

    @Test func aCancelDuringTheMethodRemovesItAndSendsNothing() {
        var m = Self.running()
        _ = m.handle(.presented(shown: true))
        #expect(m.handle(.cancel).action == .dismissPage)
        // Events of the page meanwhile change nothing.
        #expect(m.handle(.navigation(Self.methodNotification, method: "POST")).navigation == .cancel)
        let end = T.terminal(m.handle(.pageDismissed).action)
        #expect(end?.outcome == .cancelled)
        #expect(end?.sessionId == "s_1")
        var asking = Self.askingBrowser()
        let early = T.terminal(asking.handle(.cancel).action)
        #expect(early?.outcome == .cancelled)
        #expect(early?.sessionId == "s_1")
    }

    @Test(arguments: ["language", "colorDepth", "screenWidth", "timeZoneOffsetMinutes", "javaEnabled"])
    func aMalformedReportFailsBeforeTheAuthentication(field: String) {
        var report = Self.report
        switch field {
        case "language": report.language = "english-GB"
        case "colorDepth": report.colorDepth = 12
        case "screenWidth": report.screenWidth = 0
        case "timeZoneOffsetMinutes": report.timeZoneOffsetMinutes = 5000
        default: report.javaEnabled = nil
        }
        var m = Self.askingBrowser()
        let end = T.terminal(m.handle(.browserReported(report)).action)
        #expect(end?.outcome == .failed)
        #expect(end?.error?.code == .invalidRequest)
        #expect(end?.error?.reason.contains(field) == true)
        #expect(end?.sessionId == "s_1")
    }

    @Test func aResentAuthenticationCarriesTheSameBody() {
        var m = Self.running()
        _ = m.handle(.navigation(Self.methodNotification, method: "POST"))
        _ = m.handle(.pageLoaded(Self.methodNotification))
        let first = m.handle(.pageDismissed).action
        #expect(first == .call(Self.authenticate(.completed)))
        #expect(m.handle(.sessionAnswered(Self.authenticate(.completed), T.lost)).action == .call(T.read))
        #expect(
            m.handle(.sessionAnswered(T.read, T.session(.authenticationRequired))).action == first)
    }

    // MARK: The wire

    @Test func theAuthenticationBodyCarriesCompIndAndEveryBrowserField() throws {
        let endpoints = GatewayAPI.Endpoints(
            checkoutAPIBaseURL: URL(string: "https://api.example")!, paymentId: "p", verificationKey: "k",
            timeout: 30)
        let request = try GatewayAPI.request(Self.authenticate(.completed), endpoints: endpoints, requestId: UUID()).get()
        let body = String(decoding: request.body ?? [], as: UTF8.self)
        #expect(
            body == #"{"notificationUrl":"https://checkout.example/gw/checkout/3ds/notification/s_1","#
                + #""threeDSCompInd":"Y","browser":{"userAgent":"Mozilla/5.0 (X11; Linux x86_64)","#
                + #""acceptHeader":"text/html","language":"fr-CH","timeZoneOffsetMinutes":-60,"screenWidth":1920,"#
                + #""screenHeight":1080,"colorDepth":24,"javaEnabled":false,"javascriptEnabled":true,"#
                + #""challengeWindowSize":"03"}}"#)
    }

    static func created(_ json: String, allowsPlainHTTP: Bool = false) -> SessionSnapshot? {
        let response = HTTPResponse(status: 201, body: Array(json.utf8), url: URL(string: "https://api.example")!)
        guard case .session(let snapshot) = GatewayAPI.decodeSession(
            T.create, .success(response), allowsPlainHTTP: allowsPlainHTTP)
        else { return nil }
        return snapshot
    }

    @Test func theCreationAnswerMayNameAMethod() throws {
        let named = try #require(
            Self.created(
                #"{"sessionId":"s_1","status":"AUTHENTICATION_REQUIRED","threeDSMethod":{"url":"https://acs.example/method","data":"bWV0aG9k"}}"#
            ))
        #expect(named.method == ThreeDSMethodPlan(url: Self.methodURL, data: "bWV0aG9k"))
        let absent = try #require(Self.created(#"{"sessionId":"s_1","status":"AUTHENTICATION_REQUIRED"}"#))
        #expect(absent.method == nil)
        // A method that cannot be used is never an unreadable answer: it is one that cannot run (N).
        for bad in [
            #"{"url":"http://acs.example/m","data":"x"}"#, #"{"url":"ftp://acs/m","data":"x"}"#, #"{"url":3}"#, "[]",
        ] {
            let snapshot = try #require(
                Self.created(#"{"sessionId":"s_1","status":"AUTHENTICATION_REQUIRED","threeDSMethod":\#(bad)}"#))
            #expect(snapshot.method != nil && snapshot.method?.url == nil, "\(bad)")
        }
        // Plain http only where the environment allows it (the sandbox).
        let sandbox = try #require(
            Self.created(
                #"{"sessionId":"s_1","status":"AUTHENTICATION_REQUIRED","threeDSMethod":{"url":"http://127.0.0.1:9/m","data":"x"}}"#,
                allowsPlainHTTP: true))
        #expect(sandbox.method?.url?.absoluteString == "http://127.0.0.1:9/m")
    }

    // MARK: The lifecycle

    /// The method's wait is a timer the run owns: the page deadline of a method page is 10 s, started
    /// before the presenter is asked to load it; the browser question has the presenter's timer.
    @Test func theMethodPageHasATenSecondDeadline() {
        var run = PaymentLifecycle(
            settings: .init(kind: .card, paymentId: "p", gated: false, presenterTimeout: 60),
            flow: .card(T.machine()))
        _ = run.handle(.start(cachedKey: nil))  // key fetch: operation 1
        _ = run.handle(.answered(token: 1, .keyFetched(.success(.init(key: T.key, maxAge: 0)))))  // encryption 2
        _ = run.handle(.answered(token: 2, .encrypted(.success(T.jwe))))  // creation 3
        let created = SessionSnapshot(
            sessionId: "s_1", status: .authenticationRequired, transStatus: nil,
            method: ThreeDSMethodPlan(url: Self.methodURL, data: "bWV0aG9k"))
        let asked = run.handle(.answered(token: 3, .sessionAnswered(T.create, .session(created))))
            .compactMap(PaymentLifecycleTableTests.brief)
        #expect(asked == ["cancel operation(3)", "start operation(4) 60s", "ask browser #4"])
        let effects = run.handle(.answered(token: 4, .browserReported(Self.report))).compactMap(
            PaymentLifecycleTableTests.brief)
        #expect(
            effects == [
                "cancel operation(4)", "start presentAnswer(5) 60s", "start pageDeadline(5) 10s", "present page 5",
            ])
        // The deadline passing ends the method: the page is removed, then the authentication says N.
        _ = run.handle(.presented(pageId: 5, shown: true))
        let cut = run.handle(.timerFired(.pageDeadline(5))).compactMap(PaymentLifecycleTableTests.brief)
        #expect(cut == ["cancel pageDeadline(5)", "start dismissAnswer(5) 60s", "dismiss page 5"])
        let sent = run.handle(.dismissed(pageId: 5)).compactMap(PaymentLifecycleTableTests.brief)
        #expect(sent == ["cancel dismissAnswer(5)", "start operation(6) 35s", "send #6 POST authentication"])
    }
}
