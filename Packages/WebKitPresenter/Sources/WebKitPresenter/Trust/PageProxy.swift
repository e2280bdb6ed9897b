internal import CWebKitShim
import Foundation
import PaymentFlow

/// The proxies a page's network session uses, resolved from `PageTrust.proxy` the way libcurl
/// resolves the SDK's own: nothing for `.direct`; every load through the URL for `.url(_:)`; for
/// `.environment`, `http_proxy` (lower case only) for `http`, `https_proxy` or `HTTPS_PROXY` for
/// `https`, `all_proxy` or `ALL_PROXY` for the rest, and `no_proxy` / `NO_PROXY` hosts direct
/// (`*`: every host). Empty variables count as unset; a value without a scheme is an HTTP proxy.
struct PageProxy: Equatable {
    /// For schemes without their own entry; `nil`: none.
    var defaultProxy: String?
    var httpProxy: String?
    var httpsProxy: String?
    /// Hosts loaded without a proxy (each matches its subdomains too).
    var ignoredHosts: [String] = []

    /// No proxy at all.
    static let none = PageProxy()

    var isNone: Bool { defaultProxy == nil && httpProxy == nil && httpsProxy == nil }

    init(defaultProxy: String? = nil, httpProxy: String? = nil, httpsProxy: String? = nil, ignoredHosts: [String] = [])
    {
        self.defaultProxy = defaultProxy
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.ignoredHosts = ignoredHosts
    }

    init(_ proxy: NetworkProxy, environment: [String: String]) {
        if let url = proxy.proxyURL {
            self.init(defaultProxy: url.absoluteString)
            return
        }
        guard proxy.followsEnvironment else {
            self.init()
            return
        }
        func variable(_ names: String...) -> String? {
            for name in names {
                if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                    return value.contains("://") ? value : "http://" + value
                }
            }
            return nil
        }
        let exceptions = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if exceptions.contains("*") {
            self.init()
            return
        }
        self.init(
            defaultProxy: variable("all_proxy", "ALL_PROXY"), httpProxy: variable("http_proxy"),
            httpsProxy: variable("https_proxy", "HTTPS_PROXY"), ignoredHosts: exceptions)
    }

    /// Applies these proxies to a session made by `egwwk_session_new_ephemeral` (which has none).
    func apply(to session: UnsafeMutableRawPointer?) {
        guard let session, !isNone else { return }
        var hosts: [UnsafeMutablePointer<CChar>?] = ignoredHosts.map { strdup($0) }
        hosts.append(nil)
        defer { hosts.forEach { free($0) } }
        hosts.withUnsafeBufferPointer { list in
            list.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: list.count) { pointer in
                egwwk_session_set_proxy(session, defaultProxy, httpProxy, httpsProxy, pointer)
            }
        }
    }
}
