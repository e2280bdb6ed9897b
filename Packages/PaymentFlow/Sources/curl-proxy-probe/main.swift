// curl-proxy-probe: the proxy-environment check of PaymentFlow's tests (ProxyEnvironmentTests), in a
// process of its own, so the proxy variables can be set before it starts without touching the test
// process's environment (which other tests' threads read).
//
//   curl-proxy-probe URL direct|environment
//
// Sends one GET to URL over PaymentFlow's CurlTransport with that `NetworkProxy`. Exit status 0 when
// the request got an answer, 1 otherwise.

import Foundation
import PaymentFlow

let arguments = CommandLine.arguments
guard arguments.count == 3, let url = URL(string: arguments[1]),
    let proxy = ["direct": NetworkProxy.direct, "environment": NetworkProxy.environment][arguments[2]]
else { exit(64) }
let done = DispatchSemaphore(value: 0)
let answered = AnsweredFlag()
CurlTransport(options: CurlTransport.Options(proxy: proxy)).send(HTTPRequest(method: "GET", url: url, timeout: 10)) {
    result in
    if case .success = result { answered.set() }
    done.signal()
}
_ = done.wait(timeout: .now() + 20)
exit(answered.value ? 0 : 1)

/// A flag written on the transport's thread and read here after the semaphore.
final class AnsweredFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    func set() { lock.withLock { raised = true } }
    var value: Bool { lock.withLock { raised } }
}
