import Foundation

/// A page as the buyer sees it once WebKit has rendered it and its scripts
/// have built what they build: what a scripted buyer decides on.
///
/// `description` names the title and URL only (never the HTML).
public struct RenderedPage: Sendable, CustomStringConvertible {
    /// The page's URL.
    public var url: URL
    /// The page's title.
    public var title: String
    /// The rendered document (`document.documentElement` after scripts ran),
    /// without its `<script>` elements: the forms and fields a person sees.
    /// Typed values are not in it.
    public var html: String
    /// How many visible text, password, number or tel inputs the page shows.
    public var codeFieldCount: Int
    /// The labels of the page's visible buttons, in document order.
    public var buttonLabels: [String]

    /// Creates a page (for tests and custom buyers).
    public init(url: URL, title: String, html: String, codeFieldCount: Int, buttonLabels: [String]) {
        self.url = url
        self.title = title
        self.html = html
        self.codeFieldCount = codeFieldCount
        self.buttonLabels = buttonLabels
    }

    /// `“title” url`.
    public var description: String { "“\(title)” \(url.absoluteString)" }
}

/// What the buyer does on a rendered page, acting on it like a person: with
/// the input events typing fires and a click on a button.
///
/// Its `description` never shows a typed code or a filled value (`••••`).
public enum PageAction: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Types `code` into the page's visible one-time-code, text, password,
    /// number or tel input (the first whose autocomplete, name, id or
    /// placeholder mentions a code, one-time code, password, pin or tan, else
    /// the first), a `keydown`, `input` and `keyup` per character then
    /// `change`, and clicks the first button of its form that does not back
    /// out (cancel, decline, back, resend, abandon), else submits the form.
    case enterCode(String)
    /// Clicks the first visible button whose label or value reads one of
    /// `labels` (compared lower-cased, whitespace collapsed, without
    /// punctuation at either end; `pay` also matches `Pay 12.50 EUR`).
    case press(labels: [String])
    /// Sets the named fields of form number `formIndex` (document order) and
    /// clicks its first button, else submits it.
    case fill(formIndex: Int, fields: [String: String])
    /// Closes the page: the handler hears `pageWasClosedByBuyer()`.
    case close
    /// Does nothing; a person may still use the window.
    case wait

    /// The action in words, secrets masked.
    public var description: String {
        switch self {
        case .enterCode: "enterCode(••••)"
        case .press(let labels): "press(\(labels.first.map { "\"\($0)\"" } ?? "nothing"))"
        case .fill(let formIndex, let fields):
            "fill(formIndex: \(formIndex), fields: [\(fields.keys.sorted().map { "\($0): ••••" }.joined(separator: ", "))])"
        case .close: "close"
        case .wait: "wait"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}

/// A scripted buyer for ``WebKitPagePresenter``: asked once per loaded page,
/// after the page's scripts have built an input or a button, or after
/// ``patience`` with nothing to act on (the decision then usually is
/// `.close`).
///
/// This vocabulary has no dependency; HeadlessBrowser's `BuyerScript` maps
/// onto it (its `hosted` choices are `.press` with the choice's labels, its
/// `challenge(code:)` is `.enterCode`), so a script written for the headless
/// browser drives WebKit pages unchanged.
///
/// `decide` is called on a global queue with the page and a `respond`
/// callback to call once; an answer for a page that has gone is dropped.
public struct WebBuyer: Sendable {
    /// How long the buyer waits for something to act on after the page loaded. Default 5 s.
    public var patience: Duration
    /// The decision closure.
    public let decide: @Sendable (RenderedPage, @escaping @Sendable (PageAction) -> Void) -> Void

    /// Creates a buyer.
    public init(
        patience: Duration = .seconds(5),
        _ decide: @escaping @Sendable (RenderedPage, @escaping @Sendable (PageAction) -> Void) -> Void
    ) {
        self.patience = patience
        self.decide = decide
    }
}
