import Foundation
import HeadlessBrowser
import Synchronization

@testable import PaymentFlow

/// The page's own script, as a WebKit page runs the sandbox's `js` checkout: the buyer's choice leaves
/// as a plain HTTP POST (a `fetch`, not a navigation the SDK is asked about), reported through
/// `page(didSend:)` (method and URL only) just before it leaves, as the WebKit presenter reports it.
/// Once the SDK asked to dismiss the page, the page sends nothing more, so a report always reaches
/// the SDK before the page's dismissal does.
final class ScriptedPage: Sendable {
    /// `false` is the mutation: the POST still leaves, and nobody tells the SDK.
    let reportsRequests: Bool
    private let handler = Mutex<(any PageEventHandler)?>(nil)

    init(reportsRequests: Bool) { self.reportsRequests = reportsRequests }

    func shown(with handler: any PageEventHandler) { self.handler.withLock { $0 = handler } }
    func gone() { handler.withLock { $0 = nil } }

    /// Sends `choice` to `url` as the checkout page's script does; `false` (nothing sent) once the page
    /// is gone.
    func post(_ choice: HostedChoice, to url: URL) -> Bool {
        let sent = handler.withLock { handler -> Bool in
            guard let handler else { return false }
            if reportsRequests { handler.page(didSend: PageSentRequest(url: url, method: "POST")) }
            return true
        }
        guard sent else { return false }
        // The page's own network stack: no connection shared with the SDK's transport.
        let transport = CurlTransport(options: .init(connectTimeout: 2, defaultTimeout: 10))
        let request = PaymentFlow.HTTPRequest(
            method: "POST", url: url,
            headers: [
                HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
                HTTPHeader("Accept", "application/json"),
            ],
            body: Array("choice=\(choice.rawValue)".utf8), timeout: 10)
        transport.send(request) { _ in withExtendedLifetime(transport) {} }
        return true
    }
}

/// A presenter whose page runs a `ScriptedPage`: it hands the page the SDK's handler when shown and
/// silences it when the SDK asks to dismiss; everything else is the wrapped presenter's.
final class ScriptedPagePresenter: PaymentPresenter {
    let inner: SlowToAnswerPresenter
    let page: ScriptedPage

    init(_ inner: SlowToAnswerPresenter, page: ScriptedPage) {
        self.inner = inner
        self.page = page
    }

    var isPresenting: Bool { inner.isPresenting }

    func present(_ request: PageRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void) {
        page.shown(with: handler)
        inner.present(request, handler: handler, completion: completion)
    }

    func dismiss(completion: @escaping @Sendable () -> Void) {
        page.gone()
        inner.dismiss(completion: completion)
    }

    func reportBrowserData(completion: @escaping @Sendable (ThreeDSBrowserData?) -> Void) {
        inner.reportBrowserData(completion: completion)
    }
    func loadThreeDSMethod(
        _ method: ThreeDSMethodRequest, handler: PageEventHandler, completion: @escaping @Sendable (Bool) -> Void
    ) {
        inner.loadThreeDSMethod(method, handler: handler, completion: completion)
    }
    func endThreeDSMethod(completion: @escaping @Sendable () -> Void) { inner.endThreeDSMethod(completion: completion) }
}
