import Foundation
import Testing

@testable import PaymentFlow

/// Which hop keeps the request's secrets. libcurl, which makes the connection, is the judge of where
/// a URL goes: it reads `https:/a.example/x` (one slash) as host `a.example`, while Foundation sees no
/// host at all; two such URLs must not count as one origin.
@Suite struct RedirectOriginTests {
    @Test func urlsWithoutAHostAreNeverTheSameOrigin() throws {
        let a = try #require(URL(string: "https:/a.example/x"))
        let b = try #require(URL(string: "https:/b.example/y"))
        #expect(a.host == nil && b.host == nil)
        #expect(!RedirectRule.sameOrigin(a, b))
        #expect(!RedirectRule.sameOrigin(a, a))
        let request = HTTPRequest(
            method: "GET", url: a, headers: [HTTPHeader("Obp-Verification-Key", "vk"), HTTPHeader("Cookie", "c=1")])
        #expect(RedirectRule.redirected(request, status: 308, to: b).headers.isEmpty)
    }

    @Test func theSameHostSchemeAndPortStayTheSameOrigin() throws {
        let a = try #require(URL(string: "https://Gateway.example/x"))
        let b = try #require(URL(string: "HTTPS://gateway.example:443/y"))
        #expect(RedirectRule.sameOrigin(a, b))
        #expect(!RedirectRule.sameOrigin(a, try #require(URL(string: "http://gateway.example/y"))))
        #expect(!RedirectRule.sameOrigin(a, try #require(URL(string: "https://gateway.example:8443/y"))))
    }
}
