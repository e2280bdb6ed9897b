import Foundation
import PaymentFlow

/// What the headless browser did, for observers (the REPL prints these).
///
/// Delivered in order on the browser's private serial queue, and never after
/// the presenter's `dismiss` completion. Observers must not block.
///
/// No event carries a typed challenge code: `.buyerAction` carries
/// `challenge(code: "••••")`, and a code sent in a GET form's query shows as
/// `••••` in the URLs of that navigation's events, and of every URL derived
/// from its URL that keeps the query (a redirect to `#x`, the actions of the
/// page's forms without `action`, what they submit to). The `description`
/// never includes a page's HTML.
public enum BrowserEvent: Sendable, CustomStringConvertible {
    /// The handler was asked about a navigation and answered `decision`
    /// (`method` is `GET` or `POST`; `.cancel` means nothing was loaded).
    case navigation(method: String, url: URL, decision: NavigationDecision)
    /// A response redirected (`status` 301/302/303/307/308) from one URL to another.
    case redirect(status: Int, from: URL, to: URL)
    /// A page finished loading (status below 400). A page the browser cannot
    /// drive says so in ``LoadedPage/needsJavaScript`` (its kind is then
    /// `.needsJavaScript` unless a marker names it); the buyer script is
    /// asked about it as about any page, and can close it.
    case loaded(LoadedPage)
    /// A load failed (transport error, HTTP status of 400 or more, too many
    /// redirects, too many automatic form submissions, or a buyer action the
    /// page cannot satisfy).
    case failed(url: URL, reason: String)
    /// The page submitted its form by itself (a form of hidden inputs, an
    /// `onload` or inline script calling `submit()`: how an issuer hands the
    /// buyer back); the buyer was not asked.
    case autoSubmitted(url: URL, formID: String?)
    /// The buyer script answered `action` on the page at `url` (a typed code masked).
    case buyerAction(BuyerAction, url: URL)
    /// The buyer closed the window.
    case closedByBuyer
    /// The page was dismissed (the last event of a presentation).
    case dismissed

    /// One line in words, e.g. `loaded needs-javascript “App” (200) https://…: this page needs JavaScript…`.
    public var description: String {
        switch self {
        case .navigation(let method, let url, let decision):
            "navigation \(method) \(url.absoluteString): \(decision == .allow ? "allowed" : "cancelled")"
        case .redirect(let status, let from, let to):
            "redirect \(status) from \(from.absoluteString) to \(to.absoluteString)"
        case .loaded(let page): "loaded \(page)"
        case .failed(let url, let reason): "failed \(url.absoluteString): \(reason)"
        case .autoSubmitted(let url, let formID):
            "auto-submitted \(formID.map { "form \($0) of " } ?? "")\(url.absoluteString)"
        case .buyerAction(let action, let url): "buyer \(action) on \(url.absoluteString)"
        case .closedByBuyer: "closed by the buyer"
        case .dismissed: "dismissed"
        }
    }
}
