import Foundation

/// What a page is, for the buyer: from its `<meta name="egw-page"
/// content="...">` marker (the sandbox's convention) when it has one, else
/// read from its forms and scripts (see ``LoadedPage/init(url:status:html:)``).
///
/// Compare with the static members; a marker this SDK does not know keeps its
/// text in ``marker`` and equals none of them. A value: safe to share between threads.
public struct PageKind: Hashable, Sendable, CustomStringConvertible {
    /// The marker's text (lower case), `""` for `.other`. The kinds read
    /// without a marker use the same names as the sandbox's markers, and
    /// `needs-javascript`.
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
    /// The gateway's 3-D Secure notification page (`3ds-notification`): where
    /// the issuer sends the buyer back with the result. The browser never asks
    /// the buyer about it; reaching it ends the challenge.
    public static let notification = PageKind(marker: "3ds-notification")
    /// A page that shows nothing a browser without JavaScript can act on
    /// (`needs-javascript`): scripts, and no form to submit. The buyer can only
    /// close it; see ``LoadedPage/needsJavaScript``.
    public static let needsJavaScript = PageKind(marker: "needs-javascript")
    /// Any other page.
    public static let other = PageKind(marker: "")

    /// The marker text, or `other`.
    public var description: String { marker.isEmpty ? "other" : marker }
}

/// A page the headless browser loaded, as a buyer script sees it.
///
/// A value: safe to share between threads. Its `html` is the page as served;
/// the browser never logs it, and its `description` leaves it out.
public struct LoadedPage: Sendable, CustomStringConvertible {
    /// The page's URL (after redirects). When the browser reached it by
    /// sending a typed challenge code in a GET form's query, that query item
    /// reads `••••` here, and in the ``HTMLForm/action`` of each form that
    /// resolves to this URL's query (no `action`, or `action="#x"`); the
    /// browser still submits such a form to the real URL (the SDK's handler
    /// is asked about, and told of the load of, the real URLs).
    public var url: URL
    /// The HTTP status it was served with (below 400: error pages are load failures).
    public var status: Int
    /// What the page is: its `egw-page` marker, or what the browser read (see
    /// ``init(url:status:html:)``).
    public var kind: PageKind
    /// The `<title>` text, whitespace collapsed.
    public var title: String?
    /// The forms on the page, in document order.
    public var forms: [HTMLForm]
    /// Every `<meta name content>` pair (names lower-cased), e.g. `egw-payment-status`.
    public var meta: [String: String]
    /// The page's HTML as served (the headless browser never logs it).
    public var html: String
    /// Whether the page needs JavaScript the browser cannot run: it carries
    /// script (`<script>`, an `on...` attribute, a `javascript:` link) and no
    /// form the browser can submit (one with a submit button, or with a single
    /// text entry), and does not submit itself. The buyer can only close it;
    /// ``javaScriptNotice`` says so in words.
    public var needsJavaScript: Bool

    /// What to tell a person about a page that ``needsJavaScript``.
    public static let javaScriptNotice = "this page needs JavaScript, which the headless browser cannot run: close it"

    /// Creates a page (tests and custom scripts; the browser builds its own).
    public init(
        url: URL, status: Int = 200, kind: PageKind = .other, title: String? = nil, forms: [HTMLForm] = [],
        meta: [String: String] = [:], html: String = "", needsJavaScript: Bool = false
    ) {
        self.url = url
        self.status = status
        self.kind = kind
        self.title = title
        self.forms = forms
        self.meta = meta
        self.html = html
        self.needsJavaScript = needsJavaScript
    }

    /// Parses `html` served at `url` with `status`, and reads it.
    ///
    /// A page with a non-empty `egw-page` marker is the kind it names. A page
    /// without one is read, first rule that holds:
    /// - it submits itself (``autoSubmitFormIndex``): `.challengeComplete` when
    ///   the form carries a 3-D Secure result (`cres`, `PaRes`), else `.other`;
    /// - a form with one named visible text entry (text, password, number,
    ///   tel), or one among several that plainly asks for a one-time secret
    ///   (its type, name, id, label, placeholder or autocomplete says `otp`,
    ///   `password`, `passcode`, `pin`, `tan` or "one time", as
    ///   `autocomplete="one-time-code"` does; a bare "code" is not enough, a
    ///   card's security code says it too), that can be submitted (a submit
    ///   button, or a single entry, which Enter submits): `.challenge`;
    /// - a form whose submit buttons look like payment choices (one presses
    ///   `pay`, or two press different ``HostedChoice``s, by value or label,
    ///   see ``HostedChoice/labels``): `.hostedCheckout`;
    /// - ``needsJavaScript``: `.needsJavaScript`;
    /// - else `.other`.
    ///
    /// These are guesses about pages nobody marked; a script that knows a page
    /// better acts on ``forms`` and ``buttonLabels`` directly.
    public init(url: URL, status: Int, html: String) {
        let document = HTMLDocument(parsing: html, url: url)
        let reading = PageRules.read(document)
        self.init(
            url: url, status: status, kind: reading.kind, title: document.title, forms: document.forms,
            meta: document.meta, html: html, needsJavaScript: reading.needsJavaScript)
        autoSubmitFormIndex = reading.autoSubmitFormIndex
    }

    /// The form a browser without JavaScript submits at once, without asking
    /// the buyer (as a browser running the page's script would), first rule
    /// that holds:
    /// 1. the form with `id="cres-form"` (the sandbox's hand-back);
    /// 2. when `<body onload>` calls `submit(`: the form it names (by id or
    ///    name, or `forms[N]`), else the first form;
    /// 3. when an inline `<script>` calls `.submit(` (or `.requestSubmit(`) on
    ///    a form it names (else the first form), and that form has no control
    ///    the buyer fills in (the call may sit in a click handler);
    /// 4. the page's only form, when it holds only hidden inputs and offers no
    ///    button outside `<noscript>`, on a page without script buttons
    ///    (`type="button"`, which wait for a click);
    /// 5. a form of hidden inputs that carries a 3-D Secure result (`cres`,
    ///    `PaRes`), even with a visible "Continue" button.
    ///
    /// `nil` for pages that wait for the buyer.
    public internal(set) var autoSubmitFormIndex: Int?

    /// The labels of the page's submit buttons, every form, in document
    /// order: what ``BuyerAction/press(label:)`` can press.
    public var buttonLabels: [String] {
        forms.flatMap { $0.buttons.map(\.label) }
    }

    /// `kind “title” (status) url`, and the JavaScript notice when it applies (never the HTML).
    public var description: String {
        var text = kind.description
        if let title, !title.isEmpty {
            text += " “\(title)”"
        }
        text += " (\(status)) \(url.absoluteString)"
        if needsJavaScript {
            text += ": " + Self.javaScriptNotice
        }
        return text
    }
}
