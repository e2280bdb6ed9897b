import Foundation

/// How a request changes when a 3xx response sends it elsewhere; shared by
/// `CurlTransport` (when `followRedirects` is set) and presenters that follow
/// redirects one hop at a time themselves (the HeadlessBrowser package).
///
/// Browser rules (RFC 9110 section 15.4 and the Fetch standard): 303 turns
/// anything but HEAD into a body-less GET; 301 and 302 turn a POST into a GET;
/// 307 and 308 keep the method and body. Headers that name a credential are
/// dropped when the redirect leaves the origin.
public enum RedirectRule {
    /// The statuses that redirect when they carry a `Location`.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The largest number of redirects followed for one request.
    static let maxRedirects = 10

    /// Headers dropped on a cross-origin hop.
    static let credentialHeaders: Set<String> = [
        "authorization", "cookie", "proxy-authorization", "obp-verification-key",
    ]

    /// The target of a redirect, or `nil` when `status` does not redirect or
    /// `location` is missing or unusable. A relative `location` resolves against `base`.
    /// A pure function: safe from any thread.
    public static func target(status: Int, location: String?, base: URL) -> URL? {
        guard statuses.contains(status), let location, !location.isEmpty else { return nil }
        let trimmed = location.trimmingCharacters(in: .whitespaces)
        guard let resolved = URL(string: trimmed, relativeTo: base)?.absoluteURL else { return nil }
        return resolved
    }

    /// The method and body the next hop uses after a redirect with `status`. A pure function.
    public static func nextMethod(status: Int, method: String, body: [UInt8]?) -> (method: String, body: [UInt8]?) {
        switch status {
        case 303:
            return method == "HEAD" ? ("HEAD", nil) : ("GET", nil)
        case 301, 302:
            return method == "POST" ? ("GET", nil) : (method, body)
        default:
            return (method, body)
        }
    }

    /// Whether two URLs share scheme, host and port. A URL without a host has no origin of its own
    /// (`https:/x.example/p` has none for Foundation, while libcurl reads `x.example` as its host), so
    /// it is never the same origin as anything.
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        guard let hostA = a.host?.lowercased(), let hostB = b.host?.lowercased(), !hostA.isEmpty else {
            return false
        }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && hostA == hostB
            && effectivePort(a) == effectivePort(b)
    }

    /// The explicit port, or the scheme's default.
    static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    /// `request` redirected to `target` after `status`.
    static func redirected(_ request: HTTPRequest, status: Int, to target: URL) -> HTTPRequest {
        var next = request
        let (method, body) = nextMethod(status: status, method: request.method, body: request.body)
        next.method = method
        next.body = body
        next.url = target
        if body == nil {
            next.headers.removeAll {
                $0.name.lowercased() == "content-type" || $0.name.lowercased() == "content-length"
            }
        }
        if !sameOrigin(request.url, target) {
            next.headers.removeAll { credentialHeaders.contains($0.name.lowercased()) }
        }
        return next
    }
}
