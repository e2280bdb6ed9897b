import HeadlessBrowser
import WebKitPresenter

extension WebBuyer {
    /// A headless-browser `BuyerScript` acting on WebKit's rendered pages, so scripts written for
    /// the headless browser run unchanged with `--browser webkit`: the script sees the rendered
    /// document (scripts removed) as a `LoadedPage`, and its actions become ``PageAction``s.
    init(_ script: BuyerScript) {
        self.init { page, respond in
            script.decide(LoadedPage(url: page.url, status: 200, html: page.html)) { action in
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
