import Foundation
import LoopbackTestServer
import Testing

@testable import PaymentFlow

/// Issue 29 (5): the proxy is the configuration's choice, never the environment's by default. The
/// environment half (variables set before the process starts) is proven from outside, by
/// Tests/Interop/test_connections_recorded.py, which records every connection the flows open.
@Suite struct ProxyChoiceTests {
    @Test func theDefaultIsDirectAndTheConfigurationCarriesTheChoice() throws {
        var configuration = Configuration(environment: .live)
        #expect(configuration.proxy == .direct)
        #expect(configuration.transportSecurity.proxy == .direct)
        #expect(CurlTransport(configuration: configuration).options.proxy == .direct)
        #expect(CurlTransport.Options().proxy == .direct)
        configuration.proxy = .environment
        #expect(configuration.transportSecurity.proxy.followsEnvironment)
        #expect(CurlTransport(configuration: configuration).options.proxy == .environment)
        #expect(TransportSecurity.systemTrust.usingProxyEnvironment().proxy == .environment)
        let url = try #require(URL(string: "http://proxy.example:3128"))
        configuration.proxy = .url(url)
        #expect(CurlTransport(configuration: configuration).options.proxy.proxyURL == url)
        let hop = try CurlTransport.makeHop(
            HTTPRequest(method: "GET", url: try #require(URL(string: "https://gw.example/x"))),
            options: CurlTransport(configuration: configuration).options, remaining: 5
        ).get()
        #expect(hop.proxy.proxyURL == url)
    }

    @Test func aProxyURLMustBeAnHTTPProxyWithAHost() throws {
        for text in ["socks4://proxy.example:1080", "ftp://proxy.example", "file:///tmp/p"] {
            var configuration = Configuration(environment: .sandbox)
            configuration.proxy = .url(try #require(URL(string: text)))
            let error = try #require(configuration.validationError(), "\(text)")
            #expect(error.localizedDescription.contains("proxy"), "\(text)")
        }
        for text in ["http://proxy.example:3128", "https://proxy.example"] {
            var configuration = Configuration(environment: .live)
            configuration.proxy = .url(try #require(URL(string: text)))
            #expect(configuration.validationError() == nil, "\(text)")
        }
    }

    @Test func theDescriptionNeverShowsTheProxysCredentials() throws {
        let proxy = NetworkProxy.url(try #require(URL(string: "http://ann:s3cret-pass@proxy.example:3128/")))
        #expect(proxy.description == "url(http://proxy.example:3128)")
        #expect(NetworkProxy.direct.description == "direct")
        #expect(NetworkProxy.environment.description == "environment")
    }

    /// A configured proxy gets every request, in the absolute form a proxy is sent, even for a host
    /// that no resolver knows (`.invalid`): libcurl never looked the host up nor connected to it.
    @Test func aConfiguredProxyGetsTheRequestForAHostNobodyResolves() async throws {
        let proxy = try LoopbackServer { _ in .http(200, body: Array("via proxy".utf8)) }
        defer { proxy.stop() }
        let transport = CurlTransport(options: CurlTransport.Options(proxy: .url(proxy.baseURL)))
        let target = try #require(URL(string: "http://gateway.egw-proxy-test.invalid/checkout/x?y=1"))
        let response = try await send(HTTPRequest(method: "GET", url: target), over: transport).get()
        #expect(response.status == 200)
        #expect(response.body == Array("via proxy".utf8))
        #expect(proxy.requests.map(\.target) == [target.absoluteString])
    }
}

/// Issue 29 (5), the environment half for libcurl: with every proxy variable naming a listening
/// "proxy", a `.direct` transport (the default) still goes to the host itself; only `.environment`
/// reaches the proxy, and then `no_proxy` is honoured. Run in a child process (`curl-proxy-probe`)
/// so the variables are set before it starts.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct ProxyEnvironmentTests {
    func probe(_ url: URL, _ choice: String, proxy: LoopbackServer, noProxy: String? = nil) throws -> Int32 {
        var environment = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            environment[name] = proxy.baseURL.absoluteString
        }
        environment["no_proxy"] = noProxy
        environment["NO_PROXY"] = nil
        return try SiblingProbe.run("curl-proxy-probe", [url.absoluteString, choice], environment: environment)
    }

    @Test func theEnvironmentsProxyIsUsedOnlyWhenTheConfigurationOptsIn() throws {
        let host = try LoopbackServer { _ in .http(204) }
        defer { host.stop() }
        let proxy = try LoopbackServer { _ in .http(204) }
        defer { proxy.stop() }
        #expect(try probe(host.url("/direct"), "direct", proxy: proxy) == 0)
        #expect(host.requests.map(\.target) == ["/direct"])
        #expect(proxy.connectionCount == 0)
        #expect(try probe(host.url("/opted-in"), "environment", proxy: proxy) == 0)
        #expect(proxy.requests.map(\.target) == [host.url("/opted-in").absoluteString])
        #expect(try probe(host.url("/excepted"), "environment", proxy: proxy, noProxy: "127.0.0.1") == 0)
        #expect(host.requests.map(\.target) == ["/direct", "/excepted"])
        #expect(proxy.requests.count == 1)
    }
}
