// egw-sandbox: the sandbox gateway as a stand-alone server for pointing any client at.
//
// Prints the base URLs as `name=value` lines on stdout (one per line, unbuffered), then serves
// until SIGINT or SIGTERM. Diagnostics and the live request log (--verbose) go to stderr.
import Foundation
import GatewaySandbox

#if canImport(Glibc)
import Glibc
#endif

// SIGINT and SIGTERM are blocked before any thread exists, so every thread (the server's too)
// inherits the mask and the signal waits for `sigwait` below: stopping is never racy.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGINT)
sigaddset(&stopSignals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

let usage = """
    usage: egw-sandbox [--host ADDRESS] [--port N] [--key FILE] [--seed N] [--key-max-age SECONDS] [--verbose]
                       [--pages js|html]
                       [--tls [--tls-cert FILE --tls-key FILE] [--ca-file FILE] [--tls-max-version 1.1|1.2|1.3]]

      --host ADDRESS         numeric address to listen on (default 127.0.0.1; "localhost" is accepted)
      --port N               port, 0 for any free one (default 0)
      --key FILE             private RSA JWK to decrypt cards with (default: a fresh RSA-2048 key)
      --seed N               seed for ids and fault probabilities (default 1)
      --key-max-age SECONDS  Cache-Control max-age of the key endpoint (default 300)
      --verbose              print each request (method, path, status, time) to stderr
      --pages js|html        the issuer's and hosted checkout's pages: plain forms (html, default) or
                             built, checked and submitted by JavaScript (js)
      --tls                  serve HTTPS; without --tls-cert, issue a test CA and a certificate for
                             127.0.0.1, ::1 and localhost (ECDSA P-256, valid one day) at start
      --tls-cert FILE        PEM certificate chain to serve, leaf first; the last one is the CA clients
                             trust (--key already names the card-decryption key)
      --tls-key FILE         PEM private key of the --tls-cert leaf
      --ca-file FILE         where to write the CA certificate (default: a temporary file removed on stop)
      --tls-max-version V    newest TLS version spoken (1.1 only to test that clients refuse it)
      --help                 this text

    """

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("egw-sandbox: \(message)\n".utf8))
    if status == 64 { FileHandle.standardError.write(Data(usage.utf8)) }
    exit(status)
}

var configuration = Sandbox.Configuration()
var keyFile: String?
var verbose = false
var tls: Sandbox.TLS?
var tlsCertificateFile: String?
var tlsKeyFile: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let next = arguments.popFirst() else { fail("\(argument) needs a value", status: 64) }
        return next
    }
    switch argument {
    case "--host": configuration.host = value()
    case "--port":
        let text = value()
        guard let port = UInt16(text) else { fail("--port must be 0 to 65535, not \"\(text)\"", status: 64) }
        configuration.port = port
    case "--seed":
        let text = value()
        guard let seed = UInt64(text) else { fail("--seed must be a non-negative integer", status: 64) }
        configuration.seed = seed
    case "--key-max-age":
        let text = value()
        guard let age = Int(text), age >= 0 else { fail("--key-max-age must be a non-negative integer", status: 64) }
        configuration.keyMaxAge = age
    case "--key": keyFile = value()
    case "--verbose": verbose = true
    case "--pages":
        let text = value()
        guard let pages = SandboxPageDialect(rawValue: text) else { fail("--pages must be js or html", status: 64) }
        configuration.pages = pages
    case "--tls": tls = tls ?? Sandbox.TLS()
    case "--tls-cert": tlsCertificateFile = value()
    case "--tls-key": tlsKeyFile = value()
    case "--ca-file":
        let file = value()
        tls = tls ?? Sandbox.TLS()
        tls?.certificateAuthorityFile = file
    case "--tls-max-version":
        let text = value()
        guard let version = SandboxTLSVersion(rawValue: text) else {
            fail("--tls-max-version must be 1.1, 1.2 or 1.3", status: 64)
        }
        tls = tls ?? Sandbox.TLS()
        tls?.maximumVersion = version
    case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
    default: fail("unknown argument \"\(argument)\"", status: 64)
    }
}

if let keyFile {
    do {
        try SandboxCommandLine.applyKey(file: keyFile, to: &configuration)
    } catch {
        fail(error.description, status: 1)
    }
}
if (tlsCertificateFile == nil) != (tlsKeyFile == nil) {
    fail("--tls-cert and --tls-key go together", status: 64)
}
if tlsCertificateFile != nil || tlsKeyFile != nil, tls == nil { fail("--tls-cert needs --tls", status: 64) }
if let tlsCertificateFile, let tlsKeyFile {
    do {
        tls?.identity = try SandboxTLSIdentity.load(certificateFile: tlsCertificateFile, keyFile: tlsKeyFile)
    } catch {
        fail(error.description, status: 1)
    }
}
configuration.tls = tls
if verbose {
    configuration.requestObserver = { entry in
        FileHandle.standardError.write(Data("\(entry)\n".utf8))
    }
}

let sandbox: Sandbox
do {
    sandbox = try Sandbox(configuration: configuration)
} catch {
    fail(error.description, status: 1)
}

// With HTTPS, what a client needs to trust the server, after `seed` (nothing for plain HTTP).
let trustLines =
    sandbox.tlsTrust.map {
        """
        certificateAuthorityFile=\($0.certificateAuthorityFile)
        certificateAuthoritySHA256=\($0.certificateAuthoritySHA256)
        certificateAuthorityPublicKeyPin=\($0.certificateAuthorityPublicKeyPin)
        serverPublicKeyPin=\($0.serverPublicKeyPin)

        """
    } ?? ""

// Written straight to the file descriptor (no stdio buffering) so a parent process reading
// a pipe sees the URLs at once.
let announcement = """
    apiBaseURL=\(sandbox.apiBaseURL.absoluteString)
    checkoutAPIBaseURL=\(sandbox.checkoutAPIBaseURL.absoluteString)
    checkoutBaseURL=\(sandbox.checkoutBaseURL.absoluteString)
    merchantBaseURL=\(sandbox.merchantBaseURL.absoluteString)
    kid=\(sandbox.currentKeyID)
    controlToken=\(sandbox.controlToken)
    seed=\(configuration.seed)
    \(trustLines)
    """
FileHandle.standardOutput.write(Data(announcement.utf8))
FileHandle.standardError.write(
    Data(
        """
        egw-sandbox: serving on \(sandbox.merchantBaseURL.absoluteString) (Ctrl-C to stop)
          create a payment: curl -s\(sandbox.tlsTrust.map { " --cacert \($0.certificateAuthorityFile)" } ?? "") -X POST \(sandbox.merchantBaseURL.absoluteString)/sandbox/payments -d '{"amount":1250,"currency":"EUR"}'
        \(sandbox.tlsTrust.map { "  the test CA clients must trust:\n" + $0.certificateAuthorityPEM } ?? "")
          control endpoints (/sandbox/faults, /sandbox/log, /sandbox/rotate-key, GET /sandbox/payments/ID): -H 'X-Sandbox-Token: \(sandbox.controlToken)'

        """.utf8))

// Wait for SIGINT or SIGTERM (blocked since the start, so none is lost), then stop cleanly.
var received: Int32 = 0
sigwait(&stopSignals, &received)
sandbox.stop()
FileHandle.standardError.write(Data("egw-sandbox: stopped\n".utf8))
exit(0)
