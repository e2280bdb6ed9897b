import Foundation
import PaymentFlow
import Testing

@testable import WebKitPresenter

/// Issue 29 (5): a page's network session uses the configuration's proxy, resolved as libcurl
/// resolves the SDK's own requests; the environment's variables only when the configuration says so.
@Suite struct PageProxyTests {
    static let everyVariable = [
        "http_proxy": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:8", "https_proxy": "127.0.0.1:7",
        "HTTPS_PROXY": "http://127.0.0.1:6", "all_proxy": "socks5://127.0.0.1:5", "ALL_PROXY": "http://127.0.0.1:4",
        "no_proxy": "checkout.example, .issuer.example",
    ]

    @Test func theConfigurationsProxyReachesThePages() throws {
        var configuration = Configuration(environment: .live)
        #expect(PageTrust(configuration: configuration).proxy == .direct)
        configuration.proxy = .environment
        #expect(PageTrust(configuration: configuration).proxy == .environment)
        #expect(
            PageTrust(allowsPlainHTTP: true, transportSecurity: .systemTrust.usingProxyEnvironment()).proxy
                == .environment)
    }

    @Test func directIgnoresEveryVariable() {
        #expect(PageProxy(.direct, environment: Self.everyVariable).isNone)
    }

    @Test func theEnvironmentIsReadAsLibcurlReadsIt() {
        let proxy = PageProxy(.environment, environment: Self.everyVariable)
        #expect(proxy.httpProxy == "http://127.0.0.1:9", "lower-case http_proxy only")
        #expect(proxy.httpsProxy == "http://127.0.0.1:7", "https_proxy first; no scheme is http")
        #expect(proxy.defaultProxy == "socks5://127.0.0.1:5")
        #expect(proxy.ignoredHosts == ["checkout.example", ".issuer.example"])
        let upper = PageProxy(.environment, environment: ["HTTP_PROXY": "http://127.0.0.1:8", "ALL_PROXY": "h:1"])
        #expect(upper.httpProxy == nil, "HTTP_PROXY is ignored, as libcurl ignores it")
        #expect(upper.defaultProxy == "http://h:1")
        #expect(PageProxy(.environment, environment: ["https_proxy": "", "http_proxy": " "]).isNone)
        #expect(PageProxy(.environment, environment: [:]).isNone)
        #expect(PageProxy(.environment, environment: ["https_proxy": "http://p:1", "no_proxy": "a, *"]).isNone)
    }

    @Test func aConfiguredURLTakesEveryLoadWithNoExceptions() throws {
        let url = try #require(URL(string: "http://proxy.example:3128"))
        let proxy = PageProxy(.url(url), environment: Self.everyVariable)
        #expect(proxy == PageProxy(defaultProxy: "http://proxy.example:3128"))
    }
}
