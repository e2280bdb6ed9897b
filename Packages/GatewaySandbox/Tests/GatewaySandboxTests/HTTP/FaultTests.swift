import Foundation
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// Each fault kind over real HTTP, through the Swift API and the `/sandbox/faults` JSON API.
    @Suite struct Faults {
        func paymentAndStatusURL(_ gateway: TestGateway) -> (SandboxPayment, URL) {
            let payment = gateway.sandbox.createPayment()
            return (payment, gateway.statusURL(payment.paymentId))
        }

        @Test func latencyWaitsThroughTheInjectedSleeperThenAnswers() throws {
            let gateway = try TestGateway()
            let (payment, url) = paymentAndStatusURL(gateway)
            gateway.sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .latency(.milliseconds(250))))
            let response = try gateway.api("GET", url, key: payment.verificationKey)
            #expect(response.status == 200)
            #expect(gateway.sleeps.total == .milliseconds(250))
            #expect(gateway.sandbox.requestLog.last?.faults == ["latency"])
        }

        @Test func forcedStatusWithTheGatewayErrorBody() throws {
            let gateway = try TestGateway()
            let (payment, url) = paymentAndStatusURL(gateway)
            gateway.sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .status(503)))
            gateway.sandbox.inject(
                SandboxFault(
                    endpoint: .statusLookup, kind: .status(409, errorCode: "PAYMENT_ALREADY_PROCESSED", message: "m")))
            let first = try gateway.api("GET", url, key: payment.verificationKey)
            #expect(first.status == 503)
            #expect(first.errorCode == "INTERNAL_ERROR")
            let second = try gateway.api("GET", url, key: payment.verificationKey)
            #expect(second.status == 409)
            #expect(second.errorCode == "PAYMENT_ALREADY_PROCESSED")
            #expect(try gateway.api("GET", url, key: payment.verificationKey).status == 200)
        }

        @Test func forcedStatusWithoutABody() throws {
            let gateway = try TestGateway()
            let (payment, url) = paymentAndStatusURL(gateway)
            gateway.sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .statusWithoutBody(502)))
            let response = try gateway.api("GET", url, key: payment.verificationKey)
            #expect(response.status == 502)
            #expect(response.body.isEmpty)
            #expect(response.header("Content-Type") == nil)
        }

        @Test func malformedBodyIsCompleteButNotJSON() throws {
            let gateway = try TestGateway()
            let (payment, url) = paymentAndStatusURL(gateway)
            gateway.sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .malformedBody))
            let response = try gateway.api("GET", url, key: payment.verificationKey)
            #expect(response.status == 200)
            #expect(response.isComplete)
            #expect(!response.body.isEmpty)
            #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(response.body)) }
        }

        @Test func truncatedBodyStopsShortOfContentLength() throws {
            let gateway = try TestGateway()
            let (payment, url) = paymentAndStatusURL(gateway)
            gateway.sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .truncatedBody))
            let response = try gateway.api("GET", url, key: payment.verificationKey)
            #expect(response.status == 200)
            let declared = try #require(response.declaredLength)
            #expect(response.body.count < declared)
            #expect(!response.isComplete)
            #expect(try gateway.api("GET", url, key: payment.verificationKey).isComplete)
        }

        @Test func dropClosesTheConnectionWithoutAResponse() throws {
            let gateway = try TestGateway()
            let (payment, url) = paymentAndStatusURL(gateway)
            gateway.sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .dropConnection, schedule: .next(2)))
            for _ in 0..<2 {
                #expect(throws: RawHTTPError.noResponse) { try gateway.api("GET", url, key: payment.verificationKey) }
            }
            #expect(try gateway.api("GET", url, key: payment.verificationKey).status == 200)
            let statuses = gateway.sandbox.requestLog.suffix(3).map(\.status)
            #expect(statuses == [nil, nil, 200])
        }

        @Test func aStatusHTTPCannotCarryClosesTheConnectionAndTheServerKeepsServing() throws {
            // The Swift API takes any Int; a status that does not fit an HTTP status line
            // (RFC 9110 section 15: three digits) must not bring the serving thread down.
            let gateway = try TestGateway()
            let (payment, url) = paymentAndStatusURL(gateway)
            gateway.sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .statusWithoutBody(-1)))
            gateway.sandbox.inject(SandboxFault(endpoint: .statusLookup, kind: .status(Int.max)))
            for _ in 0..<2 {
                #expect(throws: RawHTTPError.noResponse) { try gateway.api("GET", url, key: payment.verificationKey) }
            }
            #expect(try gateway.api("GET", url, key: payment.verificationKey).status == 200)
        }

        @Test func aDroppedResponseAfterProcessingStillChangesState() throws {
            let gateway = try TestGateway()
            let payment = gateway.sandbox.createPayment()
            gateway.sandbox.inject(SandboxFault(endpoint: .hostedChoice, kind: .dropConnection, processesRequest: true))
            #expect(throws: RawHTTPError.noResponse) {
                try gateway.postForm(payment.checkoutURL, Array("choice=pay".utf8))
            }
            #expect(gateway.sandbox.paymentStatus(payment.paymentId) == "SETTLED")
            // Without processing (the default for drop), the choice is lost.
            let other = gateway.sandbox.createPayment()
            gateway.sandbox.inject(SandboxFault(endpoint: .hostedChoice, kind: .dropConnection))
            #expect(throws: RawHTTPError.noResponse) {
                try gateway.postForm(other.checkoutURL, Array("choice=pay".utf8))
            }
            #expect(gateway.sandbox.paymentStatus(other.paymentId) == "INITIALIZED")
        }

        @Test func rotateKeyFaultChangesTheServedKid() throws {
            let gateway = try TestGateway()
            let before = gateway.sandbox.currentKeyID
            gateway.sandbox.inject(SandboxFault(endpoint: .jwks, kind: .rotateKey))
            let jwks = try gateway.get(gateway.jwksURL).json()
            let kid = ((jwks["keys"] as? [[String: Any]])?.first)?["kid"] as? String
            #expect(kid != nil)
            #expect(kid != before)
            #expect(kid == gateway.sandbox.currentKeyID)
        }

        @Test func jsonAPIAddsListsAndClears() throws {
            let gateway = try TestGateway()
            let (payment, url) = paymentAndStatusURL(gateway)
            let added = try gateway.api(
                "POST", gateway.url("/sandbox/faults"), key: nil,
                json:
                    #"{"faults": [{"endpoint": "status", "kind": "status", "status": 500, "next": 2}, {"endpoint": "any", "kind": "latency", "milliseconds": 40, "probability": 1}]}"#
            )
            #expect(added.status == 201)
            #expect((try added.json()["faults"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [1, 2])

            #expect(try gateway.api("GET", url, key: payment.verificationKey).status == 500)
            let listed = try gateway.get(gateway.url("/sandbox/faults")).json()
            let faults = try #require(listed["faults"] as? [[String: Any]])
            #expect(faults.count == 2)
            #expect(faults[0]["remaining"] as? Int == 1)
            #expect(faults[1]["kind"] as? String == "latency")
            #expect(listed["seed"] as? Int == 1)

            // Control endpoints are never faulted, so clearing always works.
            #expect(try gateway.api("DELETE", gateway.url("/sandbox/faults"), key: nil).status == 200)
            #expect(gateway.sandbox.activeFaults.isEmpty)
            #expect(try gateway.api("GET", url, key: payment.verificationKey).status == 200)
            #expect(gateway.sleeps.total == .milliseconds(40))
        }

        @Test(arguments: [
            #"{"endpoint": "status"}"#, "not json", #"{"faults": [1]}"#, #"{"endpoint": "x", "kind": "drop"}"#,
        ])
        func jsonAPIRefusesBadFaults(_ json: String) throws {
            let gateway = try TestGateway()
            let response = try gateway.api("POST", gateway.url("/sandbox/faults"), key: nil, json: json)
            #expect(response.status == 400)
            #expect(response.errorCode == "INVALID_REQUEST")
            #expect(gateway.sandbox.activeFaults.isEmpty)
        }

        @Test func probabilityFaultsReplayFromTheSeed() throws {
            func run(seed: UInt64) throws -> [Bool] {
                let gateway = try TestGateway(seed: seed)
                let (payment, url) = paymentAndStatusURL(gateway)
                _ = try gateway.api(
                    "POST", gateway.url("/sandbox/faults"), key: nil,
                    json: #"{"endpoint": "status", "kind": "status-no-body", "status": 503, "probability": 0.5}"#)
                return try (0..<24).map { _ in try gateway.api("GET", url, key: payment.verificationKey).status == 503 }
            }
            let first = try run(seed: 77)
            #expect(try run(seed: 77) == first)
            #expect(try run(seed: 78) != first)
            #expect(first.contains(true) && first.contains(false))
        }
    }
}
