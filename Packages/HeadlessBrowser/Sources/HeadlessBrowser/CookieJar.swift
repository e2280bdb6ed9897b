import Foundation
import PaymentFlow

/// The cookies of one presented page, after RFC 6265 in its simplest useful
/// form: `name=value` with `Path`, `Domain`, `Secure` and `Max-Age`.
///
/// Deliberate simplifications (a page lives for minutes): `Expires` is
/// ignored (cookies last until the page is dismissed), `Max-Age` of zero or
/// less deletes, `SameSite` and `HttpOnly` have no effect (there is no script).
/// A cookie without `Domain` is sent back to its host only; with `Domain` to
/// that domain and its subdomains, and only if the setting host is inside it.
/// A `Domain` that is a public suffix (`com`, `co.uk`, per ``PublicSuffixList``)
/// refuses the cookie, unless it is the setting host itself, which keeps the
/// cookie to that host (RFC 6265 section 5.3 step 5).
struct CookieJar: Sendable {
    struct Cookie: Sendable, Equatable {
        var name: String
        var value: String
        /// Lower-cased host (host-only) or domain.
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
        var sequence: Int
    }

    /// Upper bounds so a hostile page cannot grow the jar without limit.
    static let maxCookies = 100
    static let maxCookieBytes = 4096

    private(set) var cookies: [Cookie] = []
    private var sequence = 0

    /// Stores every `Set-Cookie` header of `response`.
    mutating func store(_ response: HTTPResponse) {
        for header in response.headers where header.name.caseInsensitiveCompare("Set-Cookie") == .orderedSame {
            store(setCookie: header.value, from: response.url)
        }
    }

    /// Stores one `Set-Cookie` value received from `url`.
    mutating func store(setCookie: String, from url: URL) {
        guard setCookie.utf8.count <= Self.maxCookieBytes, let host = url.host?.lowercased(), !host.isEmpty else {
            return
        }
        var parts = setCookie.split(separator: ";", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !parts.isEmpty else { return }
        let pair = parts.removeFirst()
        guard let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals]).trimmingCharacters(in: .whitespaces)
        let value = String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return }

        var domain = host
        var hostOnly = true
        var path = Self.defaultPath(url)
        var secure = false
        var expired = false
        for attribute in parts {
            // RFC 6265 5.2: the name is everything before the first "=", even when that is nothing
            // ("=Max-Age=0" has an empty name and is ignored, not read as Max-Age).
            let pieces = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let key = pieces.first?.lowercased() ?? ""
            let argument = pieces.count > 1 ? pieces[1] : ""
            switch key {
            case "domain":
                var candidate = argument.lowercased()
                if candidate.hasPrefix(".") { candidate.removeFirst() }
                guard !candidate.isEmpty else { continue }
                // The setting host must be inside the domain it names.
                guard Self.domainMatches(host: host, domain: candidate) else { return }
                // RFC 6265 5.3 step 5: a public suffix is no domain to share a cookie over; named by the
                // host itself, the cookie stays host-only.
                if PublicSuffixList.isPublicSuffix(candidate) {
                    guard candidate == host else { return }
                    domain = host
                    hostOnly = true
                    continue
                }
                domain = candidate
                // RFC 6265 5.3 step 6: a Domain attribute, even the host's own name, also covers subdomains.
                hostOnly = false
            case "path":
                if argument.hasPrefix("/") { path = argument }
            case "secure":
                secure = true
            case "max-age":
                if let seconds = Int(argument), seconds <= 0 { expired = true }
            default:
                continue
            }
        }
        cookies.removeAll { $0.name == name && $0.domain == domain && $0.path == path && $0.hostOnly == hostOnly }
        guard !expired else { return }
        sequence += 1
        cookies.append(
            Cookie(
                name: name, value: value, domain: domain, hostOnly: hostOnly, path: path, secure: secure,
                sequence: sequence))
        if cookies.count > Self.maxCookies {
            cookies.removeFirst(cookies.count - Self.maxCookies)
        }
    }

    /// The `Cookie` header value for a request to `url`, or `nil` for none.
    /// Longer paths first, then oldest first (RFC 6265 section 5.4).
    func header(for url: URL) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let https = url.scheme?.lowercased() == "https"
        let requestPath = url.path.isEmpty ? "/" : url.path
        let matching = cookies.filter { cookie in
            let hostMatches =
                cookie.hostOnly ? cookie.domain == host : Self.domainMatches(host: host, domain: cookie.domain)
            return hostMatches && (!cookie.secure || https) && Self.pathMatches(requestPath, cookie.path)
        }
        guard !matching.isEmpty else { return nil }
        let ordered = matching.sorted {
            $0.path.count != $1.path.count ? $0.path.count > $1.path.count : $0.sequence < $1.sequence
        }
        return ordered.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// RFC 6265 5.1.4: the request path up to, not including, its last `/`.
    static func defaultPath(_ url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else {
            return "/"
        }
        return String(path[..<lastSlash])
    }

    /// RFC 6265 5.1.4 path-match.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// RFC 6265 5.1.3 domain-match (an IP address matches only itself).
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        let isIP = host.allSatisfy { $0.isNumber || $0 == "." } || host.contains(":")
        return !isIP && host.hasSuffix("." + domain)
    }
}
