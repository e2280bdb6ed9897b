import Foundation

/// The one rule for what a page may load at the top level, whatever the presenter: `https:`; `http:`
/// only where the environment allows it (`.sandbox`); never `file:`, `data:`, `javascript:` or any other
/// scheme. The return URL (an app's own scheme) is never loaded at all: the flow cancels it first.
enum NavigationRule {
    /// Why `url` may not be loaded, or `nil` when it may.
    static func refusal(_ url: URL, allowsPlainHTTP: Bool) -> String? {
        switch url.scheme?.lowercased() {
        case "https": return nil
        case "http": return allowsPlainHTTP ? nil : "navigation to http: refused (https only outside the sandbox)"
        case let scheme?: return "navigation to \(scheme): refused (pages load over https only)"
        case nil: return "navigation to a URL without a scheme refused"
        }
    }
}

/// What a navigation the SDK allowed can do. The one place that says which navigations may move money.
enum NavigationWeight {
    /// Whether allowing a navigation with `method` (`nil`: unknown) may send the buyer's action to the
    /// gateway or the issuer: anything but a `GET` or `HEAD` (a form POST), and any navigation whose
    /// method the presenter does not report. A page's own first load is not a buyer's action.
    static func mayMoveMoney(method: String?) -> Bool {
        guard let method = method?.uppercased() else { return true }
        return method != "GET" && method != "HEAD"
    }

    /// Whether a request a hosted page sent by itself (`PageSentRequest`) may carry the buyer's action:
    /// a method that may move money (as for a navigation) sent to one of `origins` (the checkout page's
    /// and the gateway's).
    static func mayMoveMoney(sentTo url: URL, method: String?, origins: [URL]) -> Bool {
        mayMoveMoney(method: method) && origins.contains { URLMatch.sameOrigin($0, url) }
    }
}

/// URL comparison for "the page reached this URL": same scheme, host and port
/// (default ports filled in), same path (`""` is `/`); query and fragment ignored.
enum URLMatch {
    /// Same scheme, host and port (default ports filled in).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        guard let ca = URLComponents(url: a, resolvingAgainstBaseURL: true),
            let cb = URLComponents(url: b, resolvingAgainstBaseURL: true)
        else { return false }
        return ca.scheme?.lowercased() == cb.scheme?.lowercased()
            && (ca.host ?? "").lowercased() == (cb.host ?? "").lowercased() && port(ca) == port(cb)
    }

    static func sameEndpoint(_ a: URL, _ b: URL) -> Bool {
        guard let ca = URLComponents(url: a, resolvingAgainstBaseURL: true),
            let cb = URLComponents(url: b, resolvingAgainstBaseURL: true)
        else { return false }
        let schemeA = ca.scheme?.lowercased()
        let schemeB = cb.scheme?.lowercased()
        guard schemeA == schemeB else { return false }
        guard (ca.host ?? "").lowercased() == (cb.host ?? "").lowercased() else { return false }
        guard port(ca) == port(cb) else { return false }
        return path(ca) == path(cb)
    }

    private static func port(_ c: URLComponents) -> Int? {
        if let port = c.port { return port }
        switch c.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    private static func path(_ c: URLComponents) -> String {
        let path = c.percentEncodedPath
        return path.isEmpty ? "/" : path
    }
}
