import Foundation
import PaymentFlow
import Testing

@testable import HeadlessBrowser

/// Cookie storage and matching; expectations from RFC 6265 sections 5.1.3
/// (domain-match), 5.1.4 (paths) and 5.4 (the Cookie header).
@Suite struct CookieJarTests {
    func url(_ text: String) -> URL { URL(string: text)! }

    /// RFC 6265 5.2: an attribute's name is what stands before its first "=", so "=Max-Age=0" has an
    /// empty name and is ignored; the cookie stays.
    @Test func anAttributeWithAnEmptyNameIsIgnored() {
        var jar = CookieJar()
        jar.store(setCookie: "a=1; =Max-Age=0; ==Path=/elsewhere", from: url("https://shop.example/p/q"))
        #expect(jar.header(for: url("https://shop.example/p/r")) == "a=1")
    }

    @Test func storedCookieIsSentBackToItsHostOnly() {
        var jar = CookieJar()
        jar.store(
            setCookie: "sid=abc123; Path=/; HttpOnly; SameSite=Lax", from: url("http://pay.example/checkout/pay/1"))
        #expect(jar.header(for: url("http://pay.example/anything")) == "sid=abc123")
        #expect(jar.header(for: url("http://PAY.example/x")) == "sid=abc123")
        #expect(jar.header(for: url("http://other.example/")) == nil)
        #expect(jar.header(for: url("http://sub.pay.example/")) == nil)
    }

    @Test func defaultPathIsTheDirectoryOfTheRequest() {
        var jar = CookieJar()
        jar.store(setCookie: "a=1", from: url("http://h.example/a/b/c"))
        // RFC 6265 5.1.4: default-path of /a/b/c is /a/b.
        #expect(jar.cookies.first?.path == "/a/b")
        #expect(jar.header(for: url("http://h.example/a/b")) == "a=1")
        #expect(jar.header(for: url("http://h.example/a/b/d/e")) == "a=1")
        #expect(jar.header(for: url("http://h.example/a/bc")) == nil)
        #expect(jar.header(for: url("http://h.example/a")) == nil)
        #expect(CookieJar.defaultPath(url("http://h.example/top")) == "/")
        #expect(CookieJar.defaultPath(url("http://h.example")) == "/")
    }

    @Test func secureCookiesNeedHTTPS() {
        var jar = CookieJar()
        jar.store(setCookie: "s=1; Secure; Path=/", from: url("https://h.example/"))
        #expect(jar.header(for: url("https://h.example/x")) == "s=1")
        #expect(jar.header(for: url("http://h.example/x")) == nil)
    }

    @Test func maxAgeZeroDeletesAndSameNameReplaces() {
        var jar = CookieJar()
        jar.store(setCookie: "a=1; Path=/", from: url("http://h.example/"))
        jar.store(setCookie: "a=2; Path=/", from: url("http://h.example/"))
        #expect(jar.header(for: url("http://h.example/")) == "a=2")
        jar.store(setCookie: "a=gone; Path=/; Max-Age=0", from: url("http://h.example/"))
        #expect(jar.header(for: url("http://h.example/")) == nil)
    }

    @Test func domainAttributeWidensOnlyWithinTheSettingHost() {
        var jar = CookieJar()
        jar.store(setCookie: "d=1; Domain=.example.com; Path=/", from: url("http://shop.example.com/"))
        #expect(jar.header(for: url("http://example.com/")) == "d=1")
        #expect(jar.header(for: url("http://acs.example.com/")) == "d=1")
        jar.store(setCookie: "evil=1; Domain=attacker.test; Path=/", from: url("http://shop.example.com/"))
        #expect(jar.header(for: url("http://attacker.test/")) == nil)
        // RFC 6265 5.3 step 6: naming the setting host itself still clears the host-only flag.
        var own = CookieJar()
        own.store(setCookie: "o=1; Domain=example.org; Path=/", from: url("http://example.org/"))
        #expect(own.header(for: url("http://pay.example.org/")) == "o=1")
        own.store(setCookie: "h=1; Path=/", from: url("http://example.org/"))
        #expect(own.header(for: url("http://pay.example.org/")) == "o=1")
        // An IP address only domain-matches itself.
        #expect(!CookieJar.domainMatches(host: "1.127.0.0.1", domain: "127.0.0.1"))
        #expect(CookieJar.domainMatches(host: "127.0.0.1", domain: "127.0.0.1"))
    }

    /// RFC 6265 5.3 step 5 with the Public Suffix List (libpsl): an issuer page cannot set a cookie for a
    /// whole public suffix (`com`, `co.uk`, the private section's `github.io`), which would reach the gateway;
    /// a registrable domain still widens.
    @Test(arguments: [
        ("com", "http://acs.issuer.com/", "http://gateway.com/"),
        ("co.uk", "http://acs.issuer.co.uk/", "http://gateway.co.uk/"),
        (".CO.UK", "http://acs.issuer.co.uk/", "http://gateway.co.uk/"),
        ("github.io", "http://issuer.github.io/", "http://gateway.github.io/"),
    ])
    func aPublicSuffixDomainIsRefused(_ domain: String, _ setter: String, _ elsewhere: String) {
        var jar = CookieJar()
        jar.store(setCookie: "s=1; Domain=\(domain); Path=/", from: url(setter))
        #expect(jar.cookies.isEmpty)
        #expect(jar.header(for: url(elsewhere)) == nil)
        #expect(jar.header(for: url(setter)) == nil)
    }

    @Test func aRegistrableDomainIsAccepted() {
        var jar = CookieJar()
        jar.store(setCookie: "r=1; Domain=issuer.co.uk; Path=/", from: url("http://acs.issuer.co.uk/"))
        #expect(jar.header(for: url("http://pay.issuer.co.uk/")) == "r=1")
        #expect(jar.header(for: url("http://other.co.uk/")) == nil)
        jar.store(setCookie: "g=1; Domain=issuer.github.io; Path=/", from: url("http://acs.issuer.github.io/"))
        #expect(jar.header(for: url("http://issuer.github.io/")) == "g=1")
    }

    /// A public suffix that is the setting host itself keeps the cookie to that host (step 5's exception).
    @Test func aPublicSuffixNamingTheHostItselfStaysHostOnly() {
        var jar = CookieJar()
        jar.store(setCookie: "h=1; Domain=github.io; Path=/", from: url("http://github.io/"))
        #expect(jar.header(for: url("http://github.io/")) == "h=1")
        #expect(jar.header(for: url("http://issuer.github.io/")) == nil)
    }

    @Test func longerPathsComeFirstThenOlder() {
        var jar = CookieJar()
        jar.store(setCookie: "root=1; Path=/", from: url("http://h.example/"))
        jar.store(setCookie: "deep=2; Path=/a/b", from: url("http://h.example/"))
        jar.store(setCookie: "mid=3; Path=/a", from: url("http://h.example/"))
        jar.store(setCookie: "root2=4; Path=/", from: url("http://h.example/"))
        #expect(jar.header(for: url("http://h.example/a/b/c")) == "deep=2; mid=3; root=1; root2=4")
    }

    @Test func malformedCookiesAreIgnored() {
        var jar = CookieJar()
        jar.store(setCookie: "novalue", from: url("http://h.example/"))
        jar.store(setCookie: "=nameless", from: url("http://h.example/"))
        jar.store(setCookie: String(repeating: "x", count: 5000) + "=1", from: url("http://h.example/"))
        #expect(jar.cookies.isEmpty)
    }

    @Test func responsesStoreEverySetCookieHeader() {
        var jar = CookieJar()
        let response = HTTPResponse(
            status: 200, headers: [HTTPHeader("Set-Cookie", "a=1; Path=/"), HTTPHeader("set-cookie", "b=2; Path=/")],
            url: url("http://h.example/x"))
        jar.store(response)
        #expect(jar.header(for: url("http://h.example/")) == "a=1; b=2")
    }
}
