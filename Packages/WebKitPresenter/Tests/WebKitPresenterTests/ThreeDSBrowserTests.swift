import Foundation
import PaymentFlow
import Testing

@testable import WebKitPresenter

/// The browser data's pure parts: the language check (EMV's BCP 47, 2 to 8 characters) and the
/// window a challenge opens in (the EMV size reported, not `Options.windowSize`).
@Suite struct ThreeDSBrowserTests {
    @Test func aLanguageIsSentOnlyAsAnEMVTag() {
        #expect(BrowserLanguage.emv("en-US") == "en-US")
        #expect(BrowserLanguage.emv("lv") == "lv")
        #expect(BrowserLanguage.emv("C") == nil)
        #expect(BrowserLanguage.emv("ca-ES-valencia") == nil)
        #expect(BrowserLanguage.emv("en_US") == nil)
    }

    @Test func aChallengeOpensAtTheSizeReported() {
        let presenter = WebKitPagePresenter(
            host: .ownWindow, trust: PageTrust(allowsPlainHTTP: true), options: .init(windowSize: (720, 640)))
        let named = presenter.challengeWindowSize
        let challenge = presenter.windowSize(
            for: PageRequest(url: URL(string: "https://acs.test/")!, purpose: .challenge))
        let size = named.size ?? (width: 0, height: 0)
        #expect(size.width == challenge.width && size.height == challenge.height)
        #expect(size.width > 0 && size.width <= 720 && size.height <= 640)
        let other = presenter.windowSize(
            for: PageRequest(url: URL(string: "https://pay.test/")!, purpose: .hostedCheckout))
        #expect(other.width == 720 && other.height == 640)
    }
}
