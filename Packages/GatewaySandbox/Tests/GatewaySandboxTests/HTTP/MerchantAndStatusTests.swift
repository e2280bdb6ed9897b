import Foundation
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// The merchant backend (`POST /sandbox/payments`) and the seeds' status lookup.
    @Suite struct MerchantAndStatus {
        @Test func createPaymentOverHTTPThenLookItUp() throws {
            let gateway = try TestGateway()
            let created = try gateway.api(
                "POST", gateway.url("/sandbox/payments"), key: nil,
                json:
                    #"{"amount": 4999, "currency": "USD", "orderNumber": "A-17", "shopRedirectUrl": "https://shop.example/back?x=1"}"#
            )
            #expect(created.status == 201)
            #expect(created.header("Content-Type")?.hasPrefix("application/json") == true)
            let body = try created.json()
            let paymentId = try #require(body["paymentId"] as? String)
            let key = try #require(body["verificationKey"] as? String)
            #expect(body["paymentStatus"] as? String == "INITIALIZED")
            let href = ((body["_links"] as? [String: Any])?["checkoutRedirect"] as? [String: Any])?["href"] as? String
            #expect(href == "http://127.0.0.1:\(gateway.port)/gateway-checkout/checkout/pay/\(paymentId)")

            let status = try gateway.api("GET", gateway.statusURL(paymentId), key: key)
            #expect(status.status == 200)
            let lookup = try status.json()
            #expect(lookup["paymentId"] as? String == paymentId)
            #expect(lookup["paymentStatus"] as? String == "INITIALIZED")
            #expect(lookup["orderNumber"] as? String == "A-17")
            #expect(lookup["amount"] as? Int == 4999)
            #expect(lookup["currency"] as? String == "USD")
            #expect(gateway.sandbox.paymentStatus(paymentId) == "INITIALIZED")
        }

        @Test func emptyBodyTakesTheDefaults() throws {
            let gateway = try TestGateway()
            let body = try gateway.api("POST", gateway.url("/sandbox/payments"), key: nil).json()
            #expect(body["amount"] as? Int == 1250)
            #expect(body["currency"] as? String == "EUR")
            #expect(body["orderNumber"] as? String == "ORDER-000001")
            let id = try #require(body["paymentId"] as? String)
            #expect(body["shopRedirectUrl"] as? String == "http://127.0.0.1:\(gateway.port)/sandbox/return/\(id)")
        }

        @Test(arguments: [
            "{", "[]", #"{"amount": "12"}"#, #"{"amount": 12.5}"#, #"{"amount": 0}"#, #"{"currency": "eur"}"#,
            #"{"currency": 978}"#, #"{"shopRedirectUrl": "ftp://x"}"#, #"{"shopRedirectUrl": "/relative"}"#,
            #"{"orderNumber": ""}"#, #"{"amount": 1, "amount": 2}"#,
            // RFC 3986 allows neither whitespace nor controls in a URI; here they would split the Location header.
            #"{"shopRedirectUrl": "https://shop.example/a\r\nSet-Cookie: x=1"}"#,
            #"{"shopRedirectUrl": "https://shop.example/a b"}"#,
        ])
        func createPaymentRefusesBadBodies(_ json: String) throws {
            let gateway = try TestGateway()
            let response = try gateway.api("POST", gateway.url("/sandbox/payments"), key: nil, json: json)
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_REQUEST")
            #expect(((try response.json())["error"] as? [String: Any])?["message"] is String)
        }

        @Test func statusLookupChecksHeadersInOrder() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            let url = gateway.statusURL(payment.paymentId)

            let noRequestId = try gateway.api("GET", url, key: payment.verificationKey, requestId: nil)
            #expect(noRequestId.status == 400)
            #expect(noRequestId.errorCode == "INVALID_REQUEST")

            let noKey = try gateway.api("GET", url, key: nil)
            #expect(noKey.status == 401)
            #expect(noKey.errorCode == "INVALID_VERIFICATION_KEY")

            let wrongKey = try gateway.api("GET", url, key: payment.verificationKey + "x")
            #expect(wrongKey.status == 401)
            #expect(wrongKey.errorCode == "INVALID_VERIFICATION_KEY")

            let otherPaymentsKey = try gateway.api("GET", url, key: gateway.sandbox.createPayment().verificationKey)
            #expect(otherPaymentsKey.status == 401)

            let unknown = try gateway.api("GET", gateway.statusURL("pay_nope"), key: payment.verificationKey)
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "PAYMENT_NOT_FOUND")

            // Repeated calls keep answering the same.
            for _ in 0..<3 {
                #expect(try gateway.api("GET", url, key: payment.verificationKey).status == 200)
            }
        }

        @Test func mixedUpBaseURLsFailVisibly() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            // The status path on the checkout-API base URL and on the checkout base URL.
            for base in [
                gateway.sandbox.checkoutAPIBaseURL, gateway.sandbox.checkoutBaseURL, gateway.sandbox.merchantBaseURL,
            ] {
                let url = base.appendingPathComponent("checkout/api/egw/v1/payments/\(payment.paymentId)")
                let response = try gateway.api("GET", url, key: payment.verificationKey)
                #expect(response.status == 404)
                #expect(response.errorCode == "NOT_FOUND")
            }
            let wrongMethod = try gateway.api(
                "DELETE", gateway.statusURL(payment.paymentId), key: payment.verificationKey)
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "GET")
        }

        @Test func baseURLsHaveTheirPrefixes() throws {
            let gateway = try TestGateway()
            let origin = "http://127.0.0.1:\(gateway.port)"
            #expect(gateway.sandbox.apiBaseURL.absoluteString == origin + "/merchant-api")
            #expect(gateway.sandbox.checkoutAPIBaseURL.absoluteString == origin + "/gateway-api")
            #expect(gateway.sandbox.checkoutBaseURL.absoluteString == origin + "/gateway-checkout")
            #expect(gateway.sandbox.merchantBaseURL.absoluteString == origin)
            let index = Page(try gateway.get(gateway.url("/")).text)
            #expect(index.meta("egw-api-base-url") == origin + "/merchant-api")
            #expect(index.meta("egw-checkout-base-url") == origin + "/gateway-checkout")
        }

        @Test func sandboxPaymentViewListsStatusWithoutCardData() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment(amount: 300, currency: "GBP", orderNumber: "O-1")
            let view = try gateway.get(gateway.url("/sandbox/payments/\(payment.paymentId)")).json()
            #expect(view["paymentStatus"] as? String == "INITIALIZED")
            #expect(view["amount"] as? Int == 300)
            #expect((view["cardSessions"] as? [Any])?.isEmpty == true)
            #expect(try gateway.get(gateway.url("/sandbox/payments/nope")).status == 404)
        }

        @Test func testCardsEndpointListsTheTable() throws {
            let gateway = try TestGateway()
            let body = try gateway.get(gateway.url("/sandbox/cards")).json()
            let numbers = (body["cards"] as? [[String: Any]])?.compactMap { $0["number"] as? String } ?? []
            // GATEWAY.md's table, digits only.
            for number in [
                "4111111111111111", "5555555555554444", "6759649826438453", "4000000000003063", "5200828282828210",
                "4000000000000002", "6011111111111117", "378282246310005",
            ] {
                #expect(numbers.contains(number))
            }
            #expect(body["challengeCode"] as? String == "1234")
        }
    }
}
