// card-dump-probe: the process CoreDumpTests dumps with gcore. It holds a card mid-payment the way an app
// would: the SDK's number and code editors fed keystroke by keystroke, a CardInput filled from them, the one
// snapshot validated, and the JWE plaintext built, with encryption about to happen.
//
// stdin: the number's digits, "/", the code's digits, "\n" (one keystroke per byte, read one byte at a time
// so no buffered copy is made), then a control line (ordinary heap memory the dump must show). stdout:
// "READY <pid> filter=<coredump_filter>" once everything is held; the probe then waits for one
// more byte on stdin, encrypts, prints "DONE <JWE length>" and exits 0. Built for the tests only (needs a
// debug build: it reaches the SDK's internal plaintext builder with @testable).

import Foundation
import JWE

#if DEBUG
@testable import PaymentFlow
#else
import PaymentFlow
#endif

#if canImport(Glibc)
import Glibc
#endif

func nextByte() -> UInt8? {
    var byte: UInt8 = 0
    return read(0, &byte, 1) == 1 ? byte : nil
}

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

#if DEBUG
// The editors, keystroke by keystroke (a one-character String is stored inline, not on the heap).
var number = CardNumberEditor()
var code = CardSecurityCodeEditor()
var editingCode = false
while let byte = nextByte(), byte != UInt8(ascii: "\n") {
    if byte == UInt8(ascii: "/") {
        editingCode = true
        code.brand = number.brand
        continue
    }
    let keystroke = String(Unicode.Scalar(byte))
    if editingCode { code.insert(keystroke) } else { number.insert(keystroke) }
}

// The control: plain heap bytes, never wiped.
var control: [UInt8] = []
while let byte = nextByte(), byte != UInt8(ascii: "\n") { control.append(byte) }

let card = CardInput()
card.cardholderName = "Ada Lovelace"
card.setCardNumber(from: number)
card.expiryMonth = "12"
card.expiryYear = "34"
card.setSecurityCode(from: code)
let snapshot = card.snapshot()
guard snapshot.isValid else {
    say("INVALID \(snapshot)")
    exit(2)
}

let pem = """
    -----BEGIN PUBLIC KEY-----
    MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA1//Hq9yVsaUxV1c5+xb9
    idTLQjJlSP8LlRXDEJ8hJfp1MxeVN3lLbds6W2EEZb5keeRvSmfeMa5zMItg6PRA
    6145auSi7ZzY4pEUQYon7TPogqloWoO2b3/qSGwuYvDrLKENlGVV3RH76gVrPNxV
    G9/YyOjMy5fgFlXbkP+GlT0Ynd0+/nME1+bfV+PJnVswkPhEOzM74HlPqf0+S23I
    DMy0jD/9AxnAOBRh8KsfKc4K/Hj0YqsPckEQtY2lTvo85RPvOH/7bRexvKcoVJh3
    RZMRqlALr/bNWwgYAkgzhDzOQ32y37VgUzAYE/Aa0zszCM5JntJ3ROC7U+e+8/zZ
    lQIDAQAB
    -----END PUBLIC KEY-----
    """
let key = EncryptionKey(try RSAPublicKey(pem: pem))

let filter = (try? String(contentsOfFile: "/proc/self/coredump_filter", encoding: .utf8)) ?? "?"
let compact = try CardPlaintext.with(snapshot) { plaintext in
    say("READY \(getpid()) filter=\(filter.trimmingCharacters(in: .whitespacesAndNewlines))")
    _ = nextByte()
    return try FlowDependencies.liveEncrypt(key, plaintext)
}
say("DONE \(compact.utf8.count)")
withExtendedLifetime((number, code, card, snapshot, control)) {}
exit(0)
#else
say("UNSUPPORTED release build")
exit(77)
#endif
