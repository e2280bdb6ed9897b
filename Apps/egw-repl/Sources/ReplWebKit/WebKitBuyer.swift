import HeadlessBrowser
import WebKitPresenter

extension WebBuyer {
    /// A headless-browser `BuyerScript` acting on WebKit's rendered pages, so scripts written for
    /// the headless browser run unchanged on WebKit: the script sees the rendered document
    /// (scripts removed) as a `LoadedPage` (see ``LoadedPage/init(rendered:)``), and its actions
    /// become ``PageAction``s.
    init(_ script: BuyerScript) {
        self.init { page, respond in
            script.decide(LoadedPage(rendered: page)) { action in
                switch action {
                case .hosted(let choice): respond(.press(labels: [choice.rawValue] + choice.labels))
                case .challenge(let code): respond(.enterCode(code))
                case .press(let label): respond(.press(labels: [label]))
                case .close: respond(.close)
                case .submit(let formIndex, let fields): respond(.fill(formIndex: formIndex, fields: fields))
                case .wait: respond(.wait)
                }
            }
        }
    }
}

extension LoadedPage {
    /// The rendered page read as the headless browser reads HTML; a page its markers and forms do
    /// not explain (controls built by script outside any form) is read from what the buyer sees:
    /// a visible code field makes it a challenge, a button that reads a hosted choice a checkout.
    init(rendered page: RenderedPage) {
        let read = LoadedPage(url: page.url, status: 200, html: page.html)
        guard read.kind == .other || read.kind == .needsJavaScript else {
            self = read
            return
        }
        let words = Set(HostedChoice.allCases.flatMap { [$0.rawValue] + $0.labels })
        let kind: PageKind =
            page.codeFieldCount > 0
            ? .challenge : page.buttonLabels.contains(where: words.contains) ? .hostedCheckout : read.kind
        self.init(
            url: page.url, status: 200, kind: kind, title: read.title, forms: read.forms, meta: read.meta,
            html: page.html, needsJavaScript: false)
    }
}
