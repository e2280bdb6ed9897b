import XCTest

@testable import WebKitPresenter

final class ScreenshotNameTests: XCTestCase {
    func testNames() {
        XCTAssertEqual(
            ScreenshotName.file(number: 1, title: "Sandbox issuer: confirm your payment"),
            "01-sandbox-issuer-confirm-your-payment.png")
        XCTAssertEqual(ScreenshotName.file(number: 12, title: "Pay 12.50 EUR"), "12-pay-eur.png")
        XCTAssertEqual(ScreenshotName.file(number: 3, title: ""), "03-page.png")
        XCTAssertEqual(ScreenshotName.file(number: 4, title: "../../etc"), "04-etc.png")
    }

    func testACardNumberInATitleNeverReachesTheFileName() {
        let name = ScreenshotName.file(number: 2, title: "Card 4111111111111111 / 4111 1111 1111 1111 ok")
        XCTAssertFalse(name.contains("4111") || name.contains("1111"), name)
        XCTAssertEqual(name, "02-card-ok.png")
    }

    func testNumberingContinuesAfterTheFilesThere() {
        XCTAssertEqual(ScreenshotName.highestNumber(in: []), 0)
        XCTAssertEqual(
            ScreenshotName.highestNumber(in: ["01-a.png", "12-checkout.png", "03-b.png", "notes.txt", "99-x.jpg"]), 12)
    }
}
