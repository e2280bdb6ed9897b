import Foundation
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// The control endpoints (faults, the log, key rotation) answer only a request carrying the sandbox's
    /// per-process token; the merchant backend and the gateway's own endpoints need none.
    @Suite struct ControlToken {
        static let control: [(String, String)] = [
            ("GET", "/sandbox/faults"), ("POST", "/sandbox/faults"), ("DELETE", "/sandbox/faults"),
            ("GET", "/sandbox/log"), ("DELETE", "/sandbox/log"), ("POST", "/sandbox/rotate-key"),
        ]

        @Test func withoutTheTokenEveryControlEndpointRefuses() throws {
            let gateway = try TestGateway()
            let kid = gateway.sandbox.currentKeyID
            let token = gateway.sandbox.controlToken
            let wrong = (token.first == "a" ? "b" : "a") + token.dropFirst()
            for (method, path) in Self.control {
                for headers in [[], [("X-Sandbox-Token", wrong)], [("X-Sandbox-Token", String(token.prefix(31)))]] {
                    let response = try RawHTTPClient.request(
                        method, gateway.url(path), headers: headers + [("Content-Type", "application/json")],
                        body: method == "POST" && path.hasSuffix("faults") ? Array(#"{"endpoint":"jwks"}"#.utf8) : nil)
                    #expect(response.status == 401, "\(method) \(path)")
                    #expect(response.errorCode == "SANDBOX_TOKEN_REQUIRED", "\(method) \(path)")
                }
            }
            // Nothing was done: no fault armed, the key not rotated.
            #expect(gateway.sandbox.currentKeyID == kid)
            #expect((try gateway.get(gateway.url("/sandbox/faults")).json()["faults"] as? [Any])?.isEmpty == true)
        }

        /// Issue 34: the payment read shows the verification key, so it needs the token too (it answered
        /// without one).
        @Test func thePaymentReadNeedsTheToken() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            let url = gateway.url("/sandbox/payments/\(payment.paymentId)")
            let token = gateway.sandbox.controlToken
            let wrong = (token.first == "a" ? "b" : "a") + token.dropFirst()
            for headers in [[], [("X-Sandbox-Token", wrong)]] {
                let response = try RawHTTPClient.request("GET", url, headers: headers)
                #expect(response.status == 401)
                #expect(response.errorCode == "SANDBOX_TOKEN_REQUIRED")
                #expect(!response.text.contains(payment.verificationKey))
            }
            let answered = try RawHTTPClient.request("GET", url, headers: [("X-Sandbox-Token", token)])
            #expect(answered.status == 200)
            #expect(answered.text.contains(payment.verificationKey))
        }

        @Test func withTheTokenTheyAnswer() throws {
            let gateway = try TestGateway()
            let token = [("X-Sandbox-Token", gateway.sandbox.controlToken)]
            #expect(try RawHTTPClient.request("GET", gateway.url("/sandbox/faults"), headers: token).status == 200)
            #expect(try RawHTTPClient.request("GET", gateway.url("/sandbox/log"), headers: token).status == 200)
            // The merchant backend and the public test-card table take no token.
            #expect(try RawHTTPClient.request("GET", gateway.url("/sandbox/cards")).status == 200)
            #expect(try gateway.api("POST", gateway.url("/sandbox/payments"), key: nil, json: "{}").status == 201)
        }

        @Test func eachSandboxHasItsOwnRandomToken() throws {
            let first = try TestGateway()
            let second = try TestGateway()
            #expect(first.sandbox.controlToken != second.sandbox.controlToken)
            for token in [first.sandbox.controlToken, second.sandbox.controlToken] {
                #expect(token.count == 32 && token.allSatisfy { "0123456789abcdef".contains($0) })
            }
            let crossed = try RawHTTPClient.request(
                "GET", first.url("/sandbox/log"), headers: [("X-Sandbox-Token", second.sandbox.controlToken)])
            #expect(crossed.status == 401)
        }
    }
}
