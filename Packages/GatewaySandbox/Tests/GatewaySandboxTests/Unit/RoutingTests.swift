import Testing

@testable import GatewaySandbox

/// Paths from GATEWAY.md under the prefixes of docs/INTERFACES.md.
@Suite struct RoutingTests {
    @Test func everyEndpointHasItsPath() {
        let v1 = "/checkout/api/egw/v1/payments"
        #expect(Route.match(method: "GET", path: "/merchant-api\(v1)/p1") == .statusLookup(paymentId: "p1"))
        #expect(
            Route.match(method: "POST", path: "/gateway-api\(v1)/p1/card-sessions")
                == .cardSessionCreate(paymentId: "p1"))
        #expect(
            Route.match(method: "GET", path: "/gateway-api\(v1)/p1/card-sessions/s1")
                == .cardSessionGet(paymentId: "p1", sessionId: "s1"))
        #expect(
            Route.match(method: "POST", path: "/gateway-api\(v1)/p1/card-sessions/s1/authentication")
                == .authentication(paymentId: "p1", sessionId: "s1"))
        #expect(
            Route.match(method: "POST", path: "/gateway-api\(v1)/p1/card-sessions/s1/challenge-result")
                == .challengeResult(paymentId: "p1", sessionId: "s1"))
        #expect(Route.match(method: "GET", path: "/gateway-checkout/checkout/.well-known/jwks.json") == .jwks)
        #expect(Route.match(method: "GET", path: "/gateway-checkout/checkout/pay/p1") == .hostedPage(paymentId: "p1"))
        #expect(
            Route.match(method: "POST", path: "/gateway-checkout/checkout/pay/p1") == .hostedChoice(paymentId: "p1"))
        #expect(
            Route.match(method: "POST", path: "/gateway-checkout/checkout/3ds/notification/s1")
                == .notification(sessionId: "s1"))
        #expect(Route.match(method: "POST", path: "/acs/challenge") == .acsChallenge)
        #expect(Route.match(method: "POST", path: "/acs/challenge/submit") == .acsSubmit)
        #expect(Route.match(method: "POST", path: "/sandbox/payments") == .merchantCreatePayment)
        #expect(Route.match(method: "GET", path: "/sandbox/faults") == .faultsList)
        #expect(Route.match(method: "POST", path: "/sandbox/faults") == .faultsAdd)
        #expect(Route.match(method: "DELETE", path: "/sandbox/faults") == .faultsClear)
        #expect(Route.match(method: "GET", path: "/sandbox/log") == .logRead)
        #expect(Route.match(method: "GET", path: "/") == .index)
        #expect(Route.match(method: "HEAD", path: "/gateway-checkout/checkout/.well-known/jwks.json") == .jwks)
    }

    @Test func mixedUpBaseURLsAreNotFound() {
        let v1 = "/checkout/api/egw/v1/payments"
        // The status lookup on the checkout-API host, card sessions on the status host, the key on the API host.
        #expect(Route.match(method: "GET", path: "/gateway-api\(v1)/p1") == .notFound)
        #expect(Route.match(method: "POST", path: "/merchant-api\(v1)/p1/card-sessions") == .notFound)
        #expect(Route.match(method: "GET", path: "/gateway-api/checkout/.well-known/jwks.json") == .notFound)
        #expect(Route.match(method: "GET", path: "\(v1)/p1") == .notFound)
        #expect(Route.match(method: "GET", path: "/merchant-api\(v1)/") == .notFound)
        #expect(Route.match(method: "GET", path: "/merchant-api\(v1)//") == .notFound)
    }

    @Test func wrongMethodIsMethodNotAllowed() {
        #expect(Route.match(method: "GET", path: "/sandbox/payments") == .methodNotAllowed(allowed: ["POST"]))
        #expect(
            Route.match(method: "PUT", path: "/gateway-checkout/checkout/pay/p1")
                == .methodNotAllowed(allowed: ["GET", "POST"]))
    }

    @Test func controlEndpointsAreNotFaultTargets() {
        #expect(Route.faultsList.endpoint == nil)
        #expect(Route.logRead.endpoint == nil)
        #expect(Route.merchantCreatePayment.endpoint == .merchantPayments)
    }
}
