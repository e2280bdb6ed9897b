import Foundation
import PaymentFlow
import XCTest

@testable import WebKitPresenter

final class PageTrustTests: XCTestCase {
    func testSchemesByEnvironment() throws {
        let live = PageTrust(configuration: Configuration(environment: .live))
        let sandbox = PageTrust(configuration: Configuration(environment: .sandbox))
        let http = try XCTUnwrap(URL(string: "http://issuer.example/acs"))
        let https = try XCTUnwrap(URL(string: "https://issuer.example/acs"))
        XCTAssertNotNil(live.navigationProblem(http))
        XCTAssertNil(live.navigationProblem(https))
        XCTAssertNil(sandbox.navigationProblem(http))
        for other in ["file:///etc/passwd", "data:text/html,hi", "javascript:alert(1)", "egw://x"] {
            XCTAssertNotNil(sandbox.navigationProblem(try XCTUnwrap(URL(string: other))), other)
        }
    }

    func testPinsByHostCaseInsensitively() {
        // RFC 7469 style pin of 32 zero bytes: base64 of [0 x 32].
        let zeros = [UInt8](repeating: 0, count: 32)
        let pin = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        let trust = PageTrust(allowsPlainHTTP: false, transportSecurity: .pinning(["Issuer.Example": [pin]]))
        XCTAssertNil(trust.pinProblem(host: "issuer.example", spkiSHA256: zeros))
        XCTAssertNotNil(trust.pinProblem(host: "ISSUER.example", spkiSHA256: [UInt8](repeating: 1, count: 32)))
        XCTAssertNotNil(trust.pinProblem(host: "issuer.example", spkiSHA256: nil))
        XCTAssertNil(trust.pinProblem(host: "other.example", spkiSHA256: nil), "an unpinned host")
    }

    /// Issue 34: `issuer.example.` is the host `issuer.example` to the resolver, so to the pins too,
    /// in both directions; the relay's transport trust carries the same table.
    func testATrailingDotStillFindsThePin() {
        let pin = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        let other = [UInt8](repeating: 1, count: 32)
        let trust = PageTrust(allowsPlainHTTP: false, transportSecurity: .pinning(["Issuer.Example": [pin]]))
        XCTAssertNotNil(trust.pinProblem(host: "issuer.example.", spkiSHA256: other))
        let dotted = PageTrust(allowsPlainHTTP: false, transportSecurity: .pinning(["issuer.example.": [pin]]))
        XCTAssertNotNil(dotted.pinProblem(host: "issuer.example", spkiSHA256: other))
        XCTAssertEqual(dotted.transportSecurity.pinnedPublicKeys, ["issuer.example": [pin]])
    }

    func testCertificateAuthorityComesFromTheConfiguration() {
        var configuration = Configuration(environment: .live)
        configuration.transportSecurity = .trusting(certificateAuthorityFile: "/etc/egw/ca.pem")
        XCTAssertEqual(PageTrust(configuration: configuration).certificateAuthorityFile, "/etc/egw/ca.pem")
    }
}

final class EventRedactionTests: XCTestCase {
    func testEventsCarryNoQuery() throws {
        let url = try XCTUnwrap(URL(string: "https://issuer.example/acs/verify?otp=123456&txn=9#x"))
        let bare = try XCTUnwrap(URL(string: "https://issuer.example/acs/verify"))
        XCTAssertEqual(WebKitPagePresenter.Event.decided(url, .allow).withoutQueries, .decided(bare, .allow))
        XCTAssertEqual(WebKitPagePresenter.Event.buyerAsked(url).withoutQueries, .buyerAsked(bare))
        XCTAssertEqual(WebKitPagePresenter.Event.refused(url, reason: "r").withoutQueries, .refused(bare, reason: "r"))
        XCTAssertEqual(WebKitPagePresenter.Event.presented(bare).withoutQueries, .presented(bare))
    }
}
