import Foundation

/// What a page says it is, from its `<meta name="egw-page" content="...">`
/// marker (the sandbox's convention; real gateway pages carry none).
///
/// Compare with the static members; a marker this SDK does not know keeps its
/// text in ``marker`` and equals none of them.
public struct PageKind: Hashable, Sendable, CustomStringConvertible {
    /// The marker's text, `""` when the page has none.
    public let marker: String

    /// Creates a kind from a marker's text.
    public init(marker: String) {
        self.marker = marker.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The hosted checkout page (`hosted-checkout`).
    public static let hostedCheckout = PageKind(marker: "hosted-checkout")
    /// The issuer's 3-D Secure challenge page (`acs-challenge`).
    public static let challenge = PageKind(marker: "acs-challenge")
    /// The issuer's hand-back page that posts the result (`acs-complete`).
    public static let challengeComplete = PageKind(marker: "acs-complete")
    /// The gateway's 3-D Secure notification page (`3ds-notification`).
    public static let notification = PageKind(marker: "3ds-notification")
    /// A page without a marker.
    public static let other = PageKind(marker: "")

    /// The marker text, or `other`.
    public var description: String { marker.isEmpty ? "other" : marker }
}

/// A page the headless browser loaded, as a buyer script sees it.
public struct LoadedPage: Sendable {
    /// The page's URL (after redirects).
    public var url: URL
    /// The HTTP status it was served with (below 400: error pages are load failures).
    public var status: Int
    /// The page's `egw-page` marker.
    public var kind: PageKind
    /// The `<title>` text, whitespace collapsed.
    public var title: String?
    /// The forms on the page, in document order.
    public var forms: [HTMLForm]
    /// Every `<meta name content>` pair (names lower-cased), e.g. `egw-payment-status`.
    public var meta: [String: String]
    /// The page's HTML as served (the headless browser never logs it).
    public var html: String

    /// Creates a page (tests and custom scripts; the browser builds its own).
    public init(
        url: URL, status: Int = 200, kind: PageKind = .other, title: String? = nil, forms: [HTMLForm] = [],
        meta: [String: String] = [:], html: String = ""
    ) {
        self.url = url
        self.status = status
        self.kind = kind
        self.title = title
        self.forms = forms
        self.meta = meta
        self.html = html
    }

    /// Parses `html` served at `url` with `status`.
    public init(url: URL, status: Int, html: String) {
        let document = HTMLDocument(parsing: html, url: url)
        self.init(
            url: url, status: status, kind: PageKind(marker: document.meta["egw-page"] ?? ""), title: document.title,
            forms: document.forms, meta: document.meta, html: html)
        autoSubmitFormIndex = Self.autoSubmitIndex(document)
    }

    /// The form a browser without JavaScript should submit at once: the one
    /// with `id="cres-form"`, or, when `<body onload>` calls `submit()`, the
    /// form it names by id (`getElementById('x')`, `forms['x']`, `forms.x`)
    /// or else the first form. `nil` for pages that wait for the buyer.
    public internal(set) var autoSubmitFormIndex: Int?

    static func autoSubmitIndex(_ document: HTMLDocument) -> Int? {
        if let index = document.forms.firstIndex(where: { $0.id?.lowercased() == "cres-form" }) {
            return index
        }
        guard let onload = document.bodyOnload, onload.contains("submit("), !document.forms.isEmpty else {
            return nil
        }
        for (index, form) in document.forms.enumerated() {
            for name in [form.id, form.name].compactMap({ $0 }) where !name.isEmpty {
                if onload.contains("'\(name)'") || onload.contains("\"\(name)\"") || onload.contains(".\(name).") {
                    return index
                }
            }
        }
        return 0
    }
}
