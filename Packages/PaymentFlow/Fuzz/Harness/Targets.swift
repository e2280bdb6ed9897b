internal import CCurl
import Foundation
import FuzzSupport

@testable import PaymentFlow

/// PaymentFlow's fuzz target: where a redirect goes and what the next request carries.
enum PaymentFlowFuzz {
    static let targets: [FuzzTarget] = [FuzzTarget("redirect", check: checkRedirect)]

    static let statuses = [301, 302, 303, 307, 308, 300, 304, 200]
    static let methods = ["GET", "POST", "HEAD", "PUT"]
    /// Headers that carry a secret of the payment or the buyer (GATEWAY.md's key, cookies, credentials).
    static let secrets = ["Obp-Verification-Key", "COOKIE", "authorization", "Proxy-Authorization"]

    /// Bytes 0 and 1 pick the status and method; the rest is `base URL \n Location`. A redirect target
    /// is an absolute URL; the next request follows RFC 9110 section 15.4's method rules (303: GET or
    /// HEAD without a body; 301/302: POST becomes GET; 307/308 keep both), has no content headers
    /// without a body, and carries no secret header to a different origin as libcurl, which makes the
    /// connection, reads the two URLs (scheme, host, port).
    static func checkRedirect(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        guard input.count >= 2 else { return }
        let status = statuses[Int(input[0]) % statuses.count]
        let method = methods[Int(input[1]) % methods.count]
        let text = String(decoding: input[2...], as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        guard let base = URL(string: String(parts[0])), base.scheme != nil else { return }
        let location = parts.count > 1 ? String(parts[1]) : nil
        guard let target = RedirectRule.target(status: status, location: location, base: base) else {
            return
        }
        try fuzzRequire([301, 302, 303, 307, 308].contains(status), "status \(status) redirected")
        try fuzzRequire(target.scheme != nil && target.absoluteURL == target, "the target is not absolute")

        let body: [UInt8]? = method == "GET" || method == "HEAD" ? nil : Array("a=1".utf8)
        var headers = secrets.map { HTTPHeader($0, "secret") }
        if body != nil { headers += [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")] }
        let request = HTTPRequest(method: method, url: base, headers: headers, body: body)
        let next = RedirectRule.redirected(request, status: status, to: target)
        try fuzzRequire(next.url == target, "the next request goes elsewhere")
        switch status {
        case 303:
            try fuzzRequire(next.method == (method == "HEAD" ? "HEAD" : "GET") && next.body == nil, "303 kept a body")
        case 301 where method == "POST", 302 where method == "POST":
            try fuzzRequire(next.method == "GET" && next.body == nil, "\(status) kept a POST")
        default:
            try fuzzRequire(next.method == method && next.body == body, "\(status) changed the method or body")
        }
        if next.body == nil {
            try fuzzRequire(
                !next.headers.contains { $0.name.lowercased() == "content-type" },
                "a body-less request has Content-Type")
        }
        if let from = curlOrigin(base), let to = curlOrigin(target), from != to {
            let kept = next.headers.filter { header in secrets.contains { $0.lowercased() == header.name.lowercased() }
            }
            try fuzzRequire(kept.isEmpty, "\(kept.map(\.name)) sent on to another origin")
        }
    }

    /// Scheme, host and port as libcurl parses the URL it is given (`absoluteString`), lower-cased; nil
    /// when libcurl would not accept it.
    static func curlOrigin(_ url: URL) -> [String]? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url.absoluteString, 0) == CURLUE_OK else { return nil }
        var parts: [String] = []
        for part in [CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT] {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, part, &value, UInt32(CURLU_DEFAULT_PORT)) == CURLUE_OK, let value else {
                return nil
            }
            parts.append(String(cString: value).lowercased())
            curl_free(value)
        }
        return parts
    }
}
