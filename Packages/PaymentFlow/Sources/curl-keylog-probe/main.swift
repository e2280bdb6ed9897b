// curl-keylog-probe: the SSLKEYLOGFILE check of PaymentFlow's tests (KeyLogTests), in a process of its own,
// because libcurl reads $SSLKEYLOGFILE once, when it is first initialised in a process.
//
// It is also the client of ConfiguredCAReplacesTheSystemStoreTests, run in a private mount namespace
// whose /etc/ssl/certs is a temporary directory (libcurl's built-in CA paths cannot be moved otherwise).
//
//   curl-keylog-probe URL CA_FILE [dangerously-write]
//
// Sends one GET to URL over PaymentFlow's CurlTransport trusting CA_FILE (`-`: the system's store), with
// the TLS key log allowed only when the third argument is given. Exit status 0 when the request got an
// answer, 1 otherwise.

import Foundation
import PaymentFlow

let arguments = CommandLine.arguments
guard arguments.count >= 3, let url = URL(string: arguments[1]) else { exit(64) }
var options = CurlTransport.Options(trustedCertificatesPath: arguments[2] == "-" ? nil : arguments[2])
options.dangerouslyWritesTLSKeyLog = arguments.count > 3 && arguments[3] == "dangerously-write"
let done = DispatchSemaphore(value: 0)
let answered = Atomic_Flag()
CurlTransport(options: options).send(HTTPRequest(method: "GET", url: url, timeout: 10)) { result in
    if case .success = result { answered.set() }
    done.signal()
}
_ = done.wait(timeout: .now() + 20)
exit(answered.value ? 0 : 1)

/// A flag written on the transport's thread and read here after the semaphore.
final class Atomic_Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    func set() { lock.withLock { raised = true } }
    var value: Bool { lock.withLock { raised } }
}
