import Foundation
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// The 3DS Method cards and EMV's browser data (README "3-D Secure's browser flow"), driven over
    /// HTTP as a browser and a 3DS requestor would. Expected decisions come from the README's table:
    /// frictionless `Y` only when the method completed, the request says `Y` and the browser data is
    /// complete; a challenge otherwise; `400` for malformed browser data.
    @Suite struct ThreeDSMethod {
        static let fast = "4000000000002107"
        static let slow = "4000000000002206"
        static let never = "4000000000002305"
        static let completeBrowser =
            #"{"userAgent": "Mozilla/5.0", "acceptHeader": "text/html", "language": "en-GB", "timeZoneOffsetMinutes": -60, "screenWidth": 1920, "screenHeight": 1080, "colorDepth": 24, "javaEnabled": false, "javascriptEnabled": true, "challengeWindowSize": "03"}"#

        func authenticate(
            _ flow: CardFlow, _ sessionId: String, compInd: String?, browser: String = completeBrowser
        ) throws -> RawResponse {
            let compIndJSON = compInd.map { #", "threeDSCompInd": "\#($0)""# } ?? ""
            return try flow.gateway.api(
                "POST", flow.gateway.sessionsURL(flow.payment.paymentId, "/\(sessionId)/authentication"),
                key: flow.payment.verificationKey,
                json: #"{"notificationUrl": "\#(flow.gateway.notificationURL(sessionId))"\#(compIndJSON), "browser": \#(browser)}"#)
        }

        /// Creates a method card's session; returns its id and the method it names.
        func created(_ flow: CardFlow, _ number: String) throws -> (String, url: URL, data: String) {
            let created = try flow.createSession(number)
            #expect(created.status == 201)
            #expect(created.sessionStatus == "AUTHENTICATION_REQUIRED")
            let method = try #require((try created.json())["threeDSMethod"] as? [String: String])
            return (
                try #require(created.sessionId), try #require(method["url"].flatMap(URL.init(string:))),
                try #require(method["data"])
            )
        }

        /// The browser's part: POST `threeDSMethodData` to the method URL, then (if the page has one)
        /// submit its auto-posting form. Returns the notification's answer.
        func runMethod(_ gateway: TestGateway, url: URL, data: String) throws -> RawResponse? {
            let page = try gateway.postForm(url, Array("threeDSMethodData=\(data)".utf8))
            #expect(page.status == 200)
            guard let form = Page(page.text).form(id: "method-form") else { return nil }
            return try gateway.postForm(try #require(URL(string: form.action)), form.body([]))
        }

        @Test func aCompletedMethodWithCompleteBrowserDataIsFrictionless() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let (sessionId, url, data) = try created(flow, Self.fast)
            let notified = try #require(try runMethod(gateway, url: url, data: data))
            #expect(notified.status == 200)
            let answer = try authenticate(flow, sessionId, compInd: "Y")
            #expect(answer.sessionStatus == "COMPLETED")
            #expect(answer.transStatus == "Y")
            // The log shows the method's load, its notification and the compInd; no method data.
            let log = gateway.sandbox.requestLog
            #expect(log.map(\.endpoint).contains(.acsMethod))
            #expect(log.map(\.endpoint).contains(.methodNotification))
            #expect(log.first { $0.endpoint == .authentication }?.threeDSCompInd == "Y")
            let text = log.map { "\($0) \($0.json.jsonText)" }.joined(separator: "\n")
            #expect(!text.contains(data))
            #expect(!text.contains(Self.fast) && !text.contains("2107 "))
        }

        @Test(arguments: [
            ("Y", false, "the method never notified"), ("N", true, "the requestor says N"),
            ("U", true, "the requestor says U"), (nil, true, "an old requestor says nothing"),
        ] as [(String?, Bool, String)])
        func otherwiseTheIssuerChallenges(compInd: String?, notify: Bool, why: String) throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let (sessionId, url, data) = try created(flow, Self.fast)
            if notify { _ = try runMethod(gateway, url: url, data: data) }
            #expect(try authenticate(flow, sessionId, compInd: compInd).sessionStatus == "CHALLENGE_REQUIRED", "\(why)")
        }

        @Test func incompleteBrowserDataIsChallenged() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let (sessionId, url, data) = try created(flow, Self.fast)
            _ = try runMethod(gateway, url: url, data: data)
            let legacy = #"{"userAgent": "X", "acceptHeader": "text/html", "language": "en-GB", "timeZoneOffsetMinutes": 0}"#
            #expect(try authenticate(flow, sessionId, compInd: "Y", browser: legacy).sessionStatus == "CHALLENGE_REQUIRED")
        }

        @Test func theSlowMethodPostsBackAfterTwelveSecondsAndTheNeverMethodDoesNot() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let (_, url, data) = try created(flow, Self.slow)
            #expect(try runMethod(gateway, url: url, data: data) != nil)
            #expect(gateway.sleeps.total == .seconds(12))
            let other = CardFlow(gateway)
            let (_, neverURL, neverData) = try created(other, Self.never)
            #expect(try runMethod(gateway, url: neverURL, data: neverData) == nil)
        }

        @Test(arguments: [
            (#""language": "english-GB""#, "browser.language"), (#""colorDepth": 12"#, "browser.colorDepth"),
            (#""screenWidth": 0"#, "browser.screenWidth"), (#""challengeWindowSize": "06""#, "browser.challengeWindowSize"),
            (#""timeZoneOffsetMinutes": 2000"#, "browser.timeZoneOffsetMinutes"),
            (#""javascriptEnabled": "yes""#, "browser.javascriptEnabled"),
        ])
        func malformedBrowserDataIsA400NamingTheField(member: String, named: String) throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let created = try flow.createSession("4111111111111111")
            let sessionId = try #require(created.sessionId)
            let name = String(member.split(separator: ":")[0])
            let others = [#""userAgent": "X""#, #""acceptHeader": "text/html""#, #""language": "en-GB""#, #""timeZoneOffsetMinutes": 0"#]
                .filter { !$0.hasPrefix(name) }
            let browser = "{" + (others + [member]).joined(separator: ", ") + "}"
            let refused = try authenticate(flow, sessionId, compInd: "U", browser: browser)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "INVALID_REQUEST")
            #expect(refused.text.contains(named))
            // Nothing happened: the session still waits, and a good request still pays.
            #expect(try flow.session(sessionId).sessionStatus == "AUTHENTICATION_REQUIRED")
            #expect(try authenticate(flow, sessionId, compInd: "U").sessionStatus == "COMPLETED")
        }

        @Test func aCompIndOtherThanYNUIsA400() throws {
            let gateway = try TestGateway()
            let flow = CardFlow(gateway)
            let sessionId = try #require(try flow.createSession("4111111111111111").sessionId)
            #expect(try authenticate(flow, sessionId, compInd: "X").status == 400)
        }

        @Test func cardsWithoutAMethodNameNone() throws {
            let gateway = try TestGateway()
            let created = try CardFlow(gateway).createSession("4111111111111111")
            #expect((try created.json())["threeDSMethod"] == nil)
        }
    }
}
