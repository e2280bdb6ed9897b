import HeadlessBrowser
import WebKitPresenter

/// The tests' scripted buyers, in WebKitPresenter's own vocabulary, acting on the page as rendered:
/// a visible code field gets the code, else a button reading the hosted choice (HeadlessBrowser's
/// labels) is pressed, else the page is closed. (egw-repl's bridge runs HeadlessBrowser's
/// `BuyerScript`s themselves on WebKit pages; Tests/Interop/test_repl_webkit.py drives it.)
extension WebBuyer {
    static func answering(hosted: HostedChoice = .pay, challengeCode: String = "1234") -> WebBuyer {
        WebBuyer { page, respond in
            if page.codeFieldCount > 0 {
                respond(.enterCode(challengeCode))
            } else if !page.buttonLabels.isEmpty {
                respond(.press(labels: [hosted.rawValue] + hosted.labels))
            } else {
                respond(.close)
            }
        }
    }

    /// Closes the first page it is asked about.
    static let closeAtFirstPage = always(.close)

    /// The same action on every page.
    static func always(_ action: PageAction) -> WebBuyer { WebBuyer { _, respond in respond(action) } }
}
