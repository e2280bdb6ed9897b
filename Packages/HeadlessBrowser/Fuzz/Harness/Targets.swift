import Foundation
import FuzzSupport

@testable import HeadlessBrowser

/// HeadlessBrowser's fuzz targets: the HTML scanner and form extraction, and the cookie jar.
enum HeadlessBrowserFuzz {
    static let targets: [FuzzTarget] = [
        FuzzTarget("html-page", check: checkPage),
        FuzzTarget("cookie-jar", check: checkCookies),
    ]

    static let pageURL = URL(string: "https://acs.example.test/3ds/challenge?step=1#top")!

    /// Any page: scanning the tokens written back as HTML gives the same tokens (text runs merged;
    /// raw-text elements kept raw); every form's method is GET or POST and its action an absolute
    /// URL without a fragment; a page with script says so.
    static func checkPage(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let html = String(decoding: input, as: UTF8.self)
        let tokens = HTMLScanner.tokens(of: html)
        let written = write(tokens)
        let again = HTMLScanner.tokens(of: written)
        let (first, second) = (merged(tokens), merged(again))
        if first != second {
            let index =
                zip(first, second).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(first.count, second.count)
            throw FuzzViolation(
                "scan -> write -> scan differs at token \(index): "
                    + "\(first.dropFirst(index).first.map { "\($0)" } ?? "end") vs "
                    + "\(second.dropFirst(index).first.map { "\($0)" } ?? "end")")
        }

        let document = HTMLDocument(parsing: html, url: pageURL)
        for form in document.forms {
            try fuzzRequire(form.method == "GET" || form.method == "POST", "a form method is \(form.method)")
            try fuzzRequire(
                form.action.scheme != nil && form.action.absoluteURL == form.action,
                "a form action is not absolute")
            try fuzzRequire(
                URLComponents(url: form.action, resolvingAgainstBaseURL: true)?.fragment == nil,
                "a form action keeps its fragment")
        }
        if !document.scripts.isEmpty || !document.handlers.isEmpty {
            try fuzzRequire(document.hasScript, "a page with script says it has none")
        }
    }

    /// Lines `S <url>\t<Set-Cookie value>` (store) and `G <url>` (the `Cookie` header for a request):
    /// the jar answers every request exactly as a second implementation of its README's rules (RFC
    /// 6265 sections 5.1.3, 5.1.4, 5.2, 5.3 and 5.4 with the stated simplifications) and never holds
    /// more than its limit.
    static func checkCookies(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        var jar = CookieJar()
        var model = ReferenceCookieJar()
        for line in String(decoding: input, as: UTF8.self).split(separator: "\n").prefix(64) {
            let kind = line.prefix(2)
            let rest = line.dropFirst(2)
            if kind == "S " {
                let parts = rest.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, let url = URL(string: String(parts[0])) else { continue }
                jar.store(setCookie: String(parts[1]), from: url)
                model.store(String(parts[1]), from: url)
                try fuzzRequire(jar.cookies.count <= CookieJar.maxCookies, "the jar grew past its limit")
            } else if kind == "G ", let url = URL(string: String(rest)) {
                let header = jar.header(for: url)
                let expected = model.header(for: url)
                try fuzzRequire(header == expected, "Cookie header \(header ?? "none"), expected \(expected ?? "none")")
            }
        }
    }
}

/// Start tags with their attributes (values quoted, `&`, `<` and `"` as numeric references), end
/// tags, and text with `&` and `<` escaped, except inside `script` and `style`, which stay raw.
private func write(_ tokens: [HTMLScanner.Token]) -> String {
    var output = ""
    var raw = false
    for token in tokens {
        switch token {
        case .startTag(let name, let attributes, let selfClosing):
            output += "<" + name
            for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
                output += " " + key + "=\"" + escape(value, quote: true) + "\""
            }
            output += selfClosing ? "/>" : ">"
            raw = !selfClosing && (name == "script" || name == "style")
        case .endTag(let name):
            output += "</" + name + ">"
            raw = false
        case .text(let text):
            output += raw ? text : escape(text, quote: false)
        }
    }
    return output
}

/// Scalar by scalar, as the scanner reads: `String.replacingOccurrences` matches whole characters, so a
/// quote, `&` or `<` followed by a combining mark (one character with it) was left unescaped.
private func escape(_ text: String, quote: Bool) -> String {
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result.append(contentsOf: "&#38;".unicodeScalars)
        case "<": result.append(contentsOf: "&#60;".unicodeScalars)
        case "\"" where quote: result.append(contentsOf: "&#34;".unicodeScalars)
        default: result.append(scalar)
        }
    }
    return String(result)
}

/// Adjacent text tokens joined and empty ones dropped: how text is split is not part of the contract.
private func merged(_ tokens: [HTMLScanner.Token]) -> [HTMLScanner.Token] {
    var result: [HTMLScanner.Token] = []
    for token in tokens {
        if case .text(let text) = token {
            if text.isEmpty { continue }
            if case .text(let previous)? = result.last {
                result[result.count - 1] = .text(previous + text)
                continue
            }
        }
        result.append(token)
    }
    return result
}

/// The jar's rules written again from RFC 6265 (public suffixes included, 5.3 step 5) and the README's
/// simplifications, as a list.
struct ReferenceCookieJar {
    private struct Cookie {
        var name, value, domain, path: String
        var hostOnly, secure: Bool
    }
    private var cookies: [Cookie] = []

    mutating func store(_ header: String, from url: URL) {
        guard header.utf8.count <= 4096, let host = url.host?.lowercased(), !host.isEmpty else { return }
        var attributes = header.components(separatedBy: ";")
        let pair = attributes.removeFirst()
        guard let equals = pair.firstIndex(of: "=") else { return }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return }
        var cookie = Cookie(
            name: name, value: value, domain: host, path: defaultPath(url), hostOnly: true, secure: false)
        var delete = false
        for attribute in attributes {
            let key: String
            let argument: String
            if let equals = attribute.firstIndex(of: "=") {
                key = attribute[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                argument = attribute[attribute.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            } else {
                key = attribute.trimmingCharacters(in: .whitespaces).lowercased()
                argument = ""
            }
            if key == "domain" {
                let domain = (argument.hasPrefix(".") ? String(argument.dropFirst()) : argument).lowercased()
                if domain.isEmpty { continue }
                // 5.3 step 5: a public suffix shares nothing; named by the host itself the cookie stays
                // host-only, else the whole cookie is ignored. The list is data both sides read (libpsl's);
                // the rule is written here again.
                if PublicSuffixList.isPublicSuffix(domain) {
                    guard domain == host else { return }
                    cookie.domain = host
                    cookie.hostOnly = true
                    continue
                }
                guard domainMatch(host, domain) else { return }  // 5.3 step 6: ignore the whole cookie
                cookie.domain = domain
                cookie.hostOnly = false
            } else if key == "path", argument.first == "/" {
                cookie.path = argument
            } else if key == "secure" {
                cookie.secure = true
            } else if key == "max-age", let seconds = Int(argument), seconds <= 0 {
                delete = true
            }
        }
        cookies.removeAll {
            $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path
                && $0.hostOnly == cookie.hostOnly
        }
        if delete { return }
        cookies.append(cookie)
        if cookies.count > 100 { cookies.removeFirst() }
    }

    func header(for url: URL) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let path = url.path.isEmpty ? "/" : url.path
        let secure = url.scheme?.lowercased() == "https"
        var sent: [(offset: Int, cookie: Cookie)] = []
        for (offset, cookie) in cookies.enumerated() {
            let hostOK = cookie.hostOnly ? host == cookie.domain : domainMatch(host, cookie.domain)
            if hostOK && (secure || !cookie.secure) && pathMatch(path, cookie.path) {
                sent.append((offset, cookie))
            }
        }
        if sent.isEmpty { return nil }
        sent.sort {
            $0.cookie.path.count == $1.cookie.path.count
                ? $0.offset < $1.offset : $0.cookie.path.count > $1.cookie.path.count
        }
        return sent.map { $0.cookie.name + "=" + $0.cookie.value }.joined(separator: "; ")
    }

    /// 5.1.3: identical, or a suffix after a dot of a host that is a name, not an address.
    private func domainMatch(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        let isAddress = host.contains(":") || host.unicodeScalars.allSatisfy { $0 == "." || ("0"..."9").contains($0) }
        return !isAddress && host.hasSuffix(domain) && host.dropLast(domain.count).hasSuffix(".")
    }

    /// 5.1.4 path-match.
    private func pathMatch(_ request: String, _ cookie: String) -> Bool {
        request == cookie
            || (request.hasPrefix(cookie) && (cookie.hasSuffix("/") || request.dropFirst(cookie.count).first == "/"))
    }

    /// 5.1.4 default-path.
    private func defaultPath(_ url: URL) -> String {
        let path = url.path
        guard path.first == "/", let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
