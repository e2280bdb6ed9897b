import Foundation
import GatewaySandbox
import HeadlessBrowser
import Synchronization
import XCTest

@testable import PaymentFlow

/// Card data never leaves the JWE: every log line (debug level), every
/// observer event, every result description and error message, and every
/// request sent (captured on the wire by wrapping the real libcurl transport
/// of both the SDK and the browser) is scanned for the card number (and any
/// 6-digit run of it), the security code, the JWE plaintext and the
/// verification key.
final class CardDataTests: XCTestCase {
    var sandbox: Sandbox { SharedSandbox.instance }

    /// Records the bytes of every request before passing it to the real transport.
    final class WireRecorder: HTTPTransport {
        let base: any HTTPTransport
        let sent = Mutex<[HTTPRequest]>([])
        init(_ base: any HTTPTransport) { self.base = base }
        func send(
            _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
        ) {
            sent.withLock { $0.append(request) }
            base.send(request, completion: completion)
        }
    }

    final class Capture: Sendable {
        let texts = Mutex<[String]>([])
        func add(_ text: String) { texts.withLock { $0.append(text) } }
    }

    static func describe(_ error: NSError?) -> String {
        guard let error else { return "" }
        var parts = [error.localizedDescription, "\(error.userInfo)"]
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError { parts.append(describe(underlying)) }
        return parts.joined(separator: "\n")
    }

    func testNoCardDataOrSecretsAnywhere() throws {
        sandbox.clearFaults()
        let securityCode = "837"
        let capture = Capture()
        var configuration = sandbox.sdkConfiguration()
        configuration.logLevel = .debug
        configuration.logSink = { capture.add($0.description) }
        let observed = PaymentOptions(observer: { event in
            capture.add(event.description)
            if case .http(let exchange) = event {
                capture.add(
                    [exchange.requestBody, exchange.responseBody, exchange.encryptedCardHeader].compactMap { $0 }
                        .joined(separator: "\n"))
                capture.add(exchange.requestHeaders.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            }
        })
        let sdkWire = WireRecorder(CurlTransport())
        let pageWire = WireRecorder(CurlTransport())
        let kit = PaymentKit(configuration: configuration, transport: sdkWire)
        var verificationKeys: [String] = []
        var numbers: [String] = []

        func pay(_ number: String, challengeCode: String = "1234", fault: SandboxFault? = nil) {
            sandbox.clearFaults()
            if let fault { sandbox.inject(fault) }
            let payment = sandbox.createPayment()
            verificationKeys.append(payment.verificationKey)
            numbers.append(number.filter(\.isNumber))
            let presenter = HeadlessBrowserPresenter(
                script: .answering(challengeCode: challengeCode), transport: pageWire)
            let card = testCard(number, code: number.hasPrefix("37") ? "7\(securityCode)" : securityCode)
            let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
            let result = ContractHarness.run(self, pageGone: { !presenter.isPresenting }) { completion in
                kit.startCardPayment(request, card: card, from: presenter, options: observed, completion: completion)
            }
            capture.add(result?.description ?? "")
            capture.add(String(reflecting: result as Any))
            capture.add(Self.describe(result?.error))
            capture.add(card.description)
        }

        pay("4111 1111 1111 1111")  // frictionless
        pay("5555 5555 5555 4444")  // challenge
        pay("5555 5555 5555 4444", challengeCode: "0000")  // challenge failed
        pay("4000 0000 0000 0002")  // declined
        pay("3782 822463 10005")  // brand not accepted
        pay("6011 1111 1111 1117")  // rejected
        sandbox.rotateKey()
        pay("4000 0000 0000 3063")  // UNKNOWN_KEY then refetch
        pay(
            "5200 8282 8282 8210",
            fault: SandboxFault(endpoint: .cardSessionCreate, kind: .status(422, errorCode: "DECRYPTION_FAILED")))
        pay(
            "4242 4242 4242 4242",
            fault: SandboxFault(endpoint: .authentication, kind: .dropConnection, processesRequest: true))
        pay("4111 1111 1111 1112")  // invalid (Luhn): nothing sent
        pay("4111-1111-1111-1111", fault: SandboxFault(endpoint: .cardSessionCreate, kind: .malformedBody))
        sandbox.clearFaults()

        // What went over the wire: URLs and bodies (the header is where the verification key belongs).
        var wire: [String] = []
        for request in sdkWire.sent.withLock({ $0 }) + pageWire.sent.withLock({ $0 }) {
            wire.append(request.url.absoluteString)
            wire.append(String(decoding: request.body ?? [], as: UTF8.self))
            wire.append(
                request.headers.filter { $0.name != "Obp-Verification-Key" }.map { "\($0.name): \($0.value)" }.joined(
                    separator: "\n"))
        }
        wire.append(contentsOf: sandbox.requestLog.map(\.description))
        XCTAssertTrue(wire.contains { $0.contains("encryptedCard") }, "the capture saw the card sessions")

        let produced = capture.texts.withLock { $0 }
        XCTAssertGreaterThan(produced.count, 50)
        // The encrypted card itself is ciphertext: drop compact JWEs and other long opaque tokens before
        // looking for short digit runs, so a match means plain data.
        let jwe = try NSRegularExpression(pattern: #"[A-Za-z0-9_-]{10,}(\.[A-Za-z0-9_-]*){4}"#)
        let opaque = try NSRegularExpression(pattern: #"[A-Za-z0-9_-]{20,}|[0-9a-fA-F-]{36}"#)
        func clean(_ text: String) -> String {
            var out = jwe.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "<jwe>")
            out = opaque.stringByReplacingMatches(
                in: out, range: NSRange(out.startIndex..., in: out), withTemplate: "<token>")
            return out
        }
        let code = try NSRegularExpression(pattern: "(?<![0-9])7?\(securityCode)(?![0-9])")
        for (index, raw) in (produced + wire).enumerated() {
            let text = clean(raw)
            let compact = text.filter { $0.isNumber || $0.isLetter || $0 == "\"" || $0 == ":" }
            for number in numbers {
                for start in 0...(number.count - 6) {
                    let run = String(Array(number)[start..<(start + 6)])
                    XCTAssertFalse(text.contains(run), "6-digit run \(run) of a card number in text #\(index)")
                }
                XCTAssertFalse(compact.contains(number), "card number in text #\(index)")
            }
            XCTAssertNil(
                code.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                "security code in text #\(index): \(text.prefix(200))")
            XCTAssertFalse(raw.contains("\"securityCode\""), "JWE plaintext in text #\(index)")
            XCTAssertFalse(raw.contains("\"cardNumber\""), "JWE plaintext in text #\(index)")
            for key in verificationKeys {
                XCTAssertFalse(raw.contains(key), "verification key in text #\(index)")
            }
        }
    }

    func testCardValidationErrorsNameTheProblemWithoutTheNumber() throws {
        let card = testCard("4111 1111 1111 1112")
        let problem = try XCTUnwrap(
            RequestValidation.card(
                CardPaymentRequest(paymentId: "p", verificationKey: "k"), card: card.snapshot(),
                configuration: sandbox.sdkConfiguration()))
        XCTAssertEqual(problem.code, .cardValidationFailed)
        XCTAssertFalse(problem.nsError.localizedDescription.contains("4111"))
        XCTAssertTrue(problem.nsError.localizedDescription.lowercased().contains("number"))
        // The field and the reason, under the keys CardValidation's README documents.
        XCTAssertEqual(
            problem.nsError.userInfo[CardValidationIssue.fieldUserInfoKey] as? Int, CardField.cardNumber.rawValue)
        XCTAssertEqual(problem.nsError.userInfo[CardValidationIssue.reasonUserInfoKey] as? String, "checksumFailed")
        XCTAssertEqual(problem.nsError.cardValidationIssue, card.firstIssue)
        XCTAssertEqual(problem.nsError.cardValidationIssue?.reason, .checksumFailed)
    }

    func testWhatWasValidatedIsWhatIsEncrypted() throws {
        // The snapshot is validated; the card then changes (a UI still editing); the plaintext is the snapshot's.
        let input = testCard("4111 1111 1111 1111")
        let snapshot = input.snapshot()
        input.cardNumber = "4111 1111 1111 1112"
        input.securityCode = ""
        XCTAssertNil(
            RequestValidation.card(
                CardPaymentRequest(paymentId: "p", verificationKey: "k"), card: snapshot,
                configuration: sandbox.sdkConfiguration()))
        let plaintext = CardPlaintext.with(snapshot) { Array($0) }
        let json = String(decoding: plaintext, as: UTF8.self)
        XCTAssertTrue(json.contains(#""cardNumber":"4111111111111111""#))
        XCTAssertTrue(json.contains(#""securityCode":"123""#))
    }

    func testTheCardSnapshotShowsTheOneMaskedForm() {
        // The flow's one card value is CardValidation's snapshot: its own views and the flow's label
        // show the last four digits at most.
        let card = CardInput(
            cardholderName: "Ada", cardNumber: "4111-1111 1111-1111", expiryMonth: "07", expiryYear: "31",
            securityCode: "837"
        ).snapshot()
        var dumped = ""
        dump(card, to: &dumped)
        XCTAssertEqual(CardPlaintext.label(card), "card •••• 1111")
        for view in [card.description, String(reflecting: card), "\(card)", dumped] {
            XCTAssertTrue(view.contains("•••• 1111"), view)
            XCTAssertFalse(view.contains("4111") || view.contains("837") || view.contains("Ada"), view)
        }
    }

    func testPlaintextIsTheGatewayJSONAndDecryptsBack() throws {
        // Independent check of the plaintext layout of GATEWAY.md: decrypt what the SDK encrypted with the
        // JWE package's decrypter and compare with the hand-written JSON.
        let card = CardInput(
            cardholderName: "Zoë \"Q\" O'Brien", cardNumber: "4111-1111 1111-1111", expiryMonth: "07", expiryYear: "31",
            securityCode: "837"
        ).snapshot()
        let privateKey = try JWETestKey.key
        let key = EncryptionKey(privateKey.publicKey)
        let compact = try CardPlaintext.with(card) { try FlowDependencies.liveEncrypt(key, $0) }
        let plaintext = try JWEDecrypterBox.decrypt(compact, with: privateKey)
        XCTAssertEqual(
            String(decoding: plaintext, as: UTF8.self),
            #"{"cardholderName":"Zoë \"Q\" O'Brien","cardNumber":"4111111111111111","expiryMonth":"07","expiryYear":"31","securityCode":"837"}"#
        )
    }
}
