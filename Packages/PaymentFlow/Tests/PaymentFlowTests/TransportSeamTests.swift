import Foundation
import PaymentFlow
import Testing

@Suite struct TransportSeamTests {
    @Test func headerLookupIgnoresCase() throws {
        let url = try #require(URL(string: "http://127.0.0.1/x"))
        let response = HTTPResponse(status: 200, headers: [HTTPHeader("Cache-Control", "max-age=60")], url: url)
        #expect(response.header("cache-control") == "max-age=60")
        #expect(response.header("Content-Type") == nil)
    }
}
