import Foundation
import Testing

@testable import GatewaySandbox

#if canImport(FoundationXML)
import FoundationXML
#endif

extension HTTPTests {
    /// The hosted checkout page driven as a browser would: GET the page, submit the form,
    /// follow the 303, read the status through the status API.
    @Suite struct HostedCheckout {
        // GATEWAY.md: pay / decline / cancel / abandon / leave pending.
        static let choices = [
            ("pay", "SETTLED"), ("decline", "FAILED"), ("cancel", "CANCELLED"), ("abandon", "ABANDONED"),
            ("pending", "SENT_FOR_PROCESSING"),
        ]

        @Test(arguments: choices)
        func eachChoiceEndToEnd(_ choice: String, _ expectedStatus: String) throws {
            let gateway = try TestGateway()
            let created = try gateway.api(
                "POST", gateway.url("/sandbox/payments"), key: nil,
                json: #"{"amount": 1250, "currency": "EUR"}"#
            ).json()
            let paymentId = try #require(created["paymentId"] as? String)
            let key = try #require(created["verificationKey"] as? String)
            let href = try #require(
                ((created["_links"] as? [String: Any])?["checkoutRedirect"] as? [String: Any])?["href"] as? String)
            let shop = try #require(created["shopRedirectUrl"] as? String)

            let pageResponse = try gateway.get(try #require(URL(string: href)))
            #expect(pageResponse.status == 200)
            #expect(pageResponse.header("Content-Type")?.hasPrefix("text/html") == true)
            let page = Page(pageResponse.text)
            #expect(page.meta("egw-page") == "hosted-checkout")
            #expect(page.meta("egw-payment-id") == paymentId)
            let form = try #require(page.form(id: "checkout-form"))
            #expect(form.method == "post")
            #expect(form.buttons.map(\.name) == ["choice", "choice", "choice", "choice", "choice"])
            #expect(form.buttons.map(\.value) == ["pay", "decline", "cancel", "abandon", "pending"])

            let posted = try gateway.postForm(try #require(URL(string: form.action)), form.body([("choice", choice)]))
            #expect(posted.status == 303)
            #expect(posted.header("Location") == shop)

            let landed = try gateway.get(try #require(URL(string: shop)))
            #expect(Page(landed.text).meta("egw-page") == "shop-return")
            #expect(Page(landed.text).meta("egw-payment-status") == expectedStatus)

            let status = try gateway.api("GET", gateway.statusURL(paymentId), key: key).json()
            #expect(status["paymentStatus"] as? String == expectedStatus)
        }

        @Test func redirectGoesToTheMerchantsShopRedirectUrl() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment(shopRedirectURL: URL(string: "myapp://done?order=1")!)
            let form = try #require(Page(try gateway.get(payment.checkoutURL).text).form(id: "checkout-form"))
            let posted = try gateway.postForm(URL(string: form.action)!, form.body([("choice", "pay")]))
            #expect(posted.status == 303)
            #expect(posted.header("Location") == "myapp://done?order=1")
        }

        @Test(arguments: [
            ("card", "card"), ("bank", "bank"), ("click-to-pay", "click-to-pay"), ("paypal", ""), ("", ""),
        ])
        func methodHint(_ hint: String, _ shown: String) throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            var components = URLComponents(url: payment.checkoutURL, resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "method", value: hint)]
            let page = Page(try gateway.get(components.url!).text)
            #expect(page.meta("egw-method") == shown)
            let form = try #require(page.form(id: "checkout-form"))
            if shown.isEmpty {
                #expect(form.hidden.isEmpty)
                #expect(page.html.contains("id=\"method-picker\""))
            } else {
                #expect(form.hidden.map(\.name) == ["method"])
                #expect(form.hidden.map(\.value) == [shown])
            }
            _ = try gateway.postForm(URL(string: form.action)!, form.body([("choice", "pay")]))
            let view = try gateway.get(gateway.url("/sandbox/payments/\(payment.paymentId)")).json()
            #expect(view["method"] as? String == (shown.isEmpty ? nil : shown))
        }

        @Test func aSecondChoiceIsRefusedAndThePageSaysProcessed() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            let form = try #require(Page(try gateway.get(payment.checkoutURL).text).form(id: "checkout-form"))
            #expect(try gateway.postForm(URL(string: form.action)!, form.body([("choice", "decline")])).status == 303)
            let again = try gateway.postForm(URL(string: form.action)!, form.body([("choice", "pay")]))
            #expect(again.status == 409)
            #expect(Page(again.text).meta("egw-page") == "hosted-checkout-done")
            #expect(gateway.sandbox.paymentStatus(payment.paymentId) == "FAILED")
            let reload = Page(try gateway.get(payment.checkoutURL).text)
            #expect(reload.meta("egw-page") == "hosted-checkout-done")
            #expect(reload.meta("egw-payment-status") == "FAILED")
        }

        @Test func badFormsAndUnknownPayments() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            let noChoice = try gateway.postForm(payment.checkoutURL, Array("method=card".utf8))
            #expect(noChoice.status == 400)
            #expect(Page(noChoice.text).meta("egw-page") == "error")
            #expect(try gateway.postForm(payment.checkoutURL, Array("choice=steal".utf8)).status == 400)
            #expect(try gateway.postForm(payment.checkoutURL, Array("choice=%ZZ".utf8)).status == 400)
            let oversized = try gateway.postForm(
                payment.checkoutURL, Array(repeating: UInt8(ascii: "a"), count: 200_000))
            #expect(oversized.status == 400)
            #expect(gateway.sandbox.paymentStatus(payment.paymentId) == "INITIALIZED")
            let unknown = gateway.sandbox.checkoutBaseURL.appendingPathComponent("checkout/pay/pay_unknown")
            #expect(try gateway.get(unknown).status == 404)
            #expect(try gateway.postForm(unknown, Array("choice=pay".utf8)).status == 404)
        }

        @Test func pagesAreWellFormedEnoughForAnXMLParser() throws {
            // Foundation's XMLParser as an independent check that the markup nests and closes
            // (the pages avoid void-element shortcuts that XML would reject, except <meta>/<input>,
            // which are closed here before parsing).
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            for html in [try gateway.get(payment.checkoutURL).text, try gateway.get(gateway.url("/")).text] {
                let xml = html.replacingOccurrences(of: "<!DOCTYPE html>", with: "")
                    .replacingOccurrences(of: #"(<(meta|input)[^>]*)>"#, with: "$1/>", options: .regularExpression)
                let parser = XMLParser(data: Data(xml.utf8))
                #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
            }
        }
    }
}
