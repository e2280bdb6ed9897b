import Foundation
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// The JavaScript page dialect (`pages: .js`) spoken as its scripts speak it: the served pages
    /// hold no form (a browser without JavaScript has nothing to submit), the code and the choice
    /// go out as the scripts send them (a form-encoded `fetch` with `Accept: application/json`) and
    /// come back as JSON; the recorded truth is the html dialect's.
    @Suite struct ScriptPages {
        static let challengeCard = "5555555555554444"

        func jsGateway() throws -> TestGateway {
            let gateway = try TestGateway()
            gateway.sandbox.pages = .js
            return gateway
        }

        func fetchPost(_ url: URL, _ form: String, gateway: TestGateway) throws -> RawResponse {
            try RawHTTPClient.request(
                "POST", url,
                headers: [
                    ("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8"), ("Accept", "application/json"),
                ], body: Array(form.utf8))
        }

        @Test(arguments: [("1234", "Y", "COMPLETED"), ("0000", "N", "FAILED")])
        func challengeCheckedWithFetch(code: String, transStatus: String, sessionStatus: String) throws {
            let gateway = try jsGateway()
            let flow = CardFlow(gateway)
            let sessionId = try #require(try flow.createSession(Self.challengeCard).sessionId)
            let authentication = try flow.authenticate(sessionId)
            let challenge = try #require((try authentication.json())["challenge"] as? [String: String])
            let acsURL = try #require(challenge["acsUrl"].flatMap(URL.init(string:)))
            let entry = try gateway.postForm(acsURL, Array("creq=\(try #require(challenge["creq"]))".utf8))
            #expect(entry.status == 200)
            #expect(!entry.text.contains("<form"))
            #expect(Page(entry.text).meta("egw-page") == nil, "the script adds the marker once it built the page")
            let acsTransID = try #require(
                entry.text.range(of: #""acsTransID": "[^"]+""#, options: .regularExpression).map {
                    String(entry.text[$0].dropFirst(15).dropLast())
                })

            let answer = try fetchPost(
                gateway.url("/acs/challenge/submit"), "acsTransID=\(acsTransID)&code=\(code)", gateway: gateway)
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type")?.hasPrefix("application/json") == true)
            let json = try answer.json()
            #expect(json["transStatus"] as? String == transStatus)
            let notification = try #require(json["notificationUrl"] as? String)
            #expect(notification == gateway.notificationURL(sessionId))
            let cres = try #require(json["cres"] as? String)
            let delivered = try gateway.postForm(try #require(URL(string: notification)), Array("cres=\(cres)".utf8))
            #expect(delivered.status == 200)
            #expect(try flow.challengeResult(sessionId).sessionStatus == sessionStatus)
        }

        @Test func hostedChoicePostedWithFetch() throws {
            let gateway = try jsGateway()
            let payment = gateway.sandbox.createPayment()
            let page = try gateway.get(payment.checkoutURL)
            #expect(page.status == 200)
            #expect(!page.text.contains("<form") && !page.text.contains("<button"))
            let answer = try fetchPost(payment.checkoutURL, "choice=pay&method=card", gateway: gateway)
            #expect(answer.status == 200)
            #expect(try answer.json()["redirect"] as? String == payment.shopRedirectURL.absoluteString)
            #expect(gateway.sandbox.paymentStatus(payment.paymentId) == "SETTLED")
        }

        @Test func theDialectCanChangeWhileServing() throws {
            let gateway = try jsGateway()
            #expect(gateway.sandbox.pages == .js)
            gateway.sandbox.pages = .html
            let payment = gateway.sandbox.createPayment()
            #expect(Page(try gateway.get(payment.checkoutURL).text).form(id: "checkout-form") != nil)
        }
    }
}
