// webkit-page-probe: one page in a real WebKitPagePresenter, in a process of its own, for
// WebKitPageTrustTests: run in a private mount namespace (the test's own "system" CA store) and with
// the environment a test needs set before WebKit starts (SSLKEYLOGFILE, https_proxy).
//
//   webkit-page-probe URL CA-FILE|- [HOST=PIN ...]
//
// Presents URL with PageTrust(allowsPlainHTTP: true, the CA file, the pins, direct connections),
// allows every navigation, prints what the page reports ("loaded URL", "failed URL: reason") on
// stdout, and exits after the first failure, or once the page loaded and had a few seconds to send
// what its scripts, subresources and subframes send (a bound, not a measurement).
import Foundation
import PaymentFlow
import Synchronization
import WebKitPresenter

final class ProbeHandler: PageEventHandler {
    let log = Mutex<[String]>([])
    func page(decidePolicyFor url: URL, decisionHandler: @escaping @Sendable (NavigationDecision) -> Void) {
        decisionHandler(.allow)
    }
    func pageDidFinishLoad(_ url: URL) { log.withLock { $0.append("loaded \(url.absoluteString)") } }
    func pageDidFailLoad(_ url: URL, reason: String) {
        log.withLock { $0.append("failed \(url.absoluteString): \(reason)") }
    }
    func pageWasClosedByBuyer() { log.withLock { $0.append("closed") } }
    var failed: Bool { log.withLock { $0.contains { $0.hasPrefix("failed") } } }
    var loaded: Bool { log.withLock { $0.contains { $0.hasPrefix("loaded") } } }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let url = URL(string: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: webkit-page-probe URL CA-FILE|- [HOST=PIN ...]\n".utf8))
    exit(2)
}
var pins: [String: [String]] = [:]
for pair in arguments.dropFirst(3) {
    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
    if parts.count == 2 { pins[parts[0], default: []].append(parts[1]) }
}
do {
    try GTKMainLoop.start()
} catch {
    print("no display: \(error)")
    exit(3)
}
let security = TransportSecurity(
    pinnedPublicKeys: pins, certificateAuthorityFile: arguments[2] == "-" ? nil : arguments[2])
let handler = ProbeHandler()
let presenter = WebKitPagePresenter(
    host: .ownWindow, trust: PageTrust(allowsPlainHTTP: true, transportSecurity: security))
presenter.present(PageRequest(url: url, purpose: .hostedCheckout), handler: handler) { _ in }
GTKMainLoop.run(timeout: .seconds(20)) { handler.failed || handler.loaded }
if !handler.failed { GTKMainLoop.run(timeout: .seconds(3)) { handler.failed } }
let gone = Atomic(false)
presenter.dismiss { gone.store(true, ordering: .releasing) }
GTKMainLoop.run(timeout: .seconds(10)) { gone.load(ordering: .acquiring) }
for line in handler.log.withLock({ $0 }) { print(line) }
exit(0)
