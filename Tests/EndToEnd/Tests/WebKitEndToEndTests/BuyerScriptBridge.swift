import HeadlessBrowser
import WebKitPresenter

extension WebBuyer {
    /// The headless browser's `BuyerScript`, acting on WebKit's rendered pages: the script sees the
    /// rendered document as a `LoadedPage` and its actions become ``PageAction``s.
    init(_ script: BuyerScript, patience: Duration = .seconds(5)) {
        self.init(patience: patience) { page, respond in
            let loaded = LoadedPage(url: page.url, status: 200, html: page.html)
            script.decide(loaded) { action in
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
