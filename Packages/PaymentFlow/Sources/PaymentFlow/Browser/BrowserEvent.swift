import Foundation

/// What the headless browser did, for observers (the REPL prints these).
///
/// Delivered in order on the browser's private serial queue, and never after
/// the presenter's `dismiss` completion. Observers must not block.
public enum BrowserEvent: Sendable {
    /// The handler was asked about a navigation and answered `decision`
    /// (`method` is `GET` or `POST`; `.cancel` means nothing was loaded).
    case navigation(method: String, url: URL, decision: NavigationDecision)
    /// A response redirected (`status` 301/302/303/307/308) from one URL to another.
    case redirect(status: Int, from: URL, to: URL)
    /// A page finished loading (status below 400).
    case loaded(LoadedPage)
    /// A load failed (transport error, HTTP status of 400 or more, too many
    /// redirects, or a buyer action the page cannot satisfy).
    case failed(url: URL, reason: String)
    /// The page submitted its form by itself (ACS hand-back).
    case autoSubmitted(url: URL, formID: String?)
    /// The buyer script answered `action` on the page at `url`.
    case buyerAction(BuyerAction, url: URL)
    /// The buyer closed the window.
    case closedByBuyer
    /// The page was dismissed (the last event of a presentation).
    case dismissed
}
