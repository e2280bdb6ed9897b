import CCurl
import Foundation
import JWE
import LoopbackTestServer
import Synchronization
import Testing

@testable import PaymentFlow

/// Issue 29, item 2: whether a request reached the gateway is read from `TransportError.Delivery` alone,
/// never from the error's kind. libcurl names a written request's failure after whatever broke last: a
/// status line that is not HTTP/1.x is `CURLE_UNSUPPORTED_PROTOCOL`, the same code as a refused scheme.
@Suite(.timeLimit(.minutes(2)))
struct DeliveryDecidesTests {
    /// A request libcurl handed to a connection, some of whose body left.
    static let sent = TransportError.Delivery(requestStarted: true, rodeKeptConnection: false, bodyBytesSent: 312)
    /// Every code `curl_easy_perform` or an option can report (the obsolete numbers included: a newer
    /// libcurl may reuse one).
    static let everyCode: [UInt32] = Array(1..<CURL_LAST.rawValue)

    static let authenticate = GatewayCall.authenticate(
        sessionId: "s", notificationURL: URL(string: "https://x.example/n")!, idempotencyKey: UUID())

    /// The table: each code, sent and not sent, through the transport's own funnel and the SDK's
    /// classifier of a money-moving POST's answer.
    @Test(arguments: everyCode)
    func deliveryAloneDecidesWhetherTheGatewayWasReached(raw: UInt32) {
        let code = CURLcode(rawValue: raw)
        for exceededLimit in [false, true] {
            let wasSent = CurlErrors.error(
                for: code, detail: "", host: "gw.example", exceededLimit: exceededLimit, delivery: Self.sent)
            let notSent = CurlErrors.error(
                for: code, detail: "", host: "gw.example", exceededLimit: exceededLimit, delivery: .neverSent)
            #expect(wasSent.delivery == Self.sent && notSent.delivery == .neverSent, "curl \(raw)")
            #expect(!GatewayAPI.neverReachedGateway(wasSent), "curl \(raw) (\(wasSent.kind)) sent: reached")
            #expect(GatewayAPI.neverReachedGateway(notSent), "curl \(raw) (\(notSent.kind)) not sent: not reached")
            guard case .doubtful = GatewayAPI.decodeSession(Self.authenticate, .failure(wasSent)) else {
                Issue.record("curl \(raw) sent: \(GatewayAPI.decodeSession(Self.authenticate, .failure(wasSent)))")
                continue
            }
            guard case .unreachable = GatewayAPI.decodeSession(Self.authenticate, .failure(notSent)) else {
                Issue.record("curl \(raw) not sent: \(GatewayAPI.decodeSession(Self.authenticate, .failure(notSent)))")
                continue
            }
        }
    }

    /// The codes an answer that is not HTTP/1.x produces once the request went out are not named after
    /// a URL: the developer reading the error is not sent looking for a bad URL.
    @Test func anAnswerThatIsNotHTTPIsNotCalledAnInvalidURL() {
        for code in [CURLE_UNSUPPORTED_PROTOCOL, CURLE_WEIRD_SERVER_REPLY] {
            let error = CurlErrors.error(for: code, detail: "", host: "gw", exceededLimit: false, delivery: Self.sent)
            #expect(error.kind == .invalidResponse, "curl \(code.rawValue)")
            #expect(GatewayAPI.transportFailure(error, source: "POST authentication").code == .invalidResponse)
        }
        // Before any connection the same code is libcurl refusing the URL's scheme.
        let refused = CurlErrors.error(
            for: CURLE_UNSUPPORTED_PROTOCOL, detail: "", host: "gw", exceededLimit: false, delivery: .neverSent)
        #expect(refused.kind == .invalidURL)
    }

    /// A kind that sounds like "never sent" proves nothing without the facts: a host transport that
    /// reports `.invalidURL` and does not say it never sent the request leaves the step in doubt.
    @Test(arguments: [TransportError.Kind.invalidURL, .insecureScheme, .connect, .tls, .pinningFailed])
    func aKindWithoutDeliveryFactsIsInDoubt(kind: TransportError.Kind) {
        let error = TransportError(kind, "host transport")
        #expect(!GatewayAPI.neverReachedGateway(error))
        guard case .doubtful = GatewayAPI.decodeSession(Self.authenticate, .failure(error)) else {
            Issue.record(
                "\(kind) with unknown delivery: \(GatewayAPI.decodeSession(Self.authenticate, .failure(error)))")
            return
        }
    }

    /// The transport's own refusals before sending say so in their facts (through `perform`, as every
    /// request goes: nothing is sent, so no server is needed).
    @Test func theTransportsOwnRefusalsCarryNeverSent() {
        let https = CurlTransport.Options(requireHTTPS: true)
        let url = URL(string: "http://127.0.0.1:9/x")!
        let refusals: [(HTTPRequest, CurlTransport.Options)] = [
            (HTTPRequest(method: "POST", url: url), https),
            (HTTPRequest(method: "PO ST", url: url), .init()),
            (HTTPRequest(method: "POST", url: url, headers: [HTTPHeader("Bad Name", "v")]), .init()),
            (HTTPRequest(method: "POST", url: URL(string: "ftp://127.0.0.1/x")!), .init()),
        ]
        for (request, options) in refusals {
            guard case .failure(let error) = CurlTransport.perform(request, options: options) else {
                Issue.record("\(request.method) \(request.url) was accepted")
                continue
            }
            #expect(error.delivery == .neverSent, "\(error)")
        }
    }

    // MARK: The wire

    /// Bytes a broken proxy or middlebox answers with, none of them HTTP/1.x.
    static let nonHTTPAnswers: [(name: String, bytes: String)] = [
        ("garbage", "SSH-2.0-OpenSSH_9.2\r\nProtocol mismatch.\r\n\r\n"),
        ("HTTP/1.1 099", "HTTP/1.1 099 Early\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
        ("HTTP/1.2", "HTTP/1.2 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"),
        ("HTTP/3", "HTTP/3 200\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"),
    ]

    /// A loopback gateway (one connection per request) whose card session applies the authentication
    /// and answers it with `answer`; the read-back shows the session `COMPLETED` or, with
    /// `readBackBroken`, gets the same bytes.
    static func pay(answer: String, readBackBroken: Bool) async throws -> (PaymentResult, applied: Bool) {
        let jwk = try JWETestKey.key.jwkJSON()
        let members = try JSONSerialization.jsonObject(with: Data(jwk.utf8)) as? [String: Any] ?? [:]
        let jwks =
            #"{"keys":[{"kty":"RSA","kid":"test-key","use":"enc","alg":"RSA-OAEP-256","n":"\#(members["n"] as? String ?? "")","e":"\#(members["e"] as? String ?? "")"}]}"#
        let applied = Mutex(false)
        let server = try LoopbackServer { request in
            let json = [("Content-Type", "application/json")]
            switch (request.method, request.path) {
            case ("GET", let path) where path.hasSuffix("jwks.json"):
                return .http(200, json, body: Array(jwks.utf8))
            case ("POST", let path) where path.hasSuffix("/card-sessions"):
                return .http(201, json, body: Array(#"{"sessionId":"s1","status":"AUTHENTICATION_REQUIRED"}"#.utf8))
            case ("POST", let path) where path.hasSuffix("/authentication"):
                applied.withLock { $0 = true }  // the gateway applied it; the answer is mangled on its way
                return .bytes(Array(answer.utf8))
            case ("GET", let path) where path.hasSuffix("/card-sessions/s1"):
                guard !readBackBroken else { return .bytes(Array(answer.utf8)) }
                let state = applied.withLock { $0 } ? "COMPLETED" : "AUTHENTICATION_REQUIRED"
                return .http(200, json, body: Array(#"{"sessionId":"s1","status":"\#(state)","transStatus":"Y"}"#.utf8))
            default:
                return .http(404)
            }
        }
        defer { server.stop() }
        var configuration = Configuration(
            checkoutAPIBaseURL: server.baseURL, checkoutBaseURL: server.baseURL, environment: .sandbox)
        configuration.requestTimeout = 10
        let kit = PaymentKit(configuration: configuration)
        let card = CardInput(
            cardholderName: "Test", cardNumber: "4111111111111111", expiryMonth: "12", expiryYear: "35",
            securityCode: "123")
        let result = await kit.startCardPayment(
            CardPaymentRequest(paymentId: "p1", verificationKey: "vk"), card: card,
            from: StubPresenter(steps: { _ in [] }))
        return (result, applied.withLock { $0 })
    }

    @Test(arguments: nonHTTPAnswers.map(\.name))
    func anAppliedAuthenticationAnsweredWithNonHTTPBytesIsNeverFailed(name: String) async throws {
        let answer = try #require(Self.nonHTTPAnswers.first { $0.name == name }).bytes
        let (proved, applied) = try await Self.pay(answer: answer, readBackBroken: false)
        #expect(applied)
        #expect(proved.outcome == .succeeded, "\(name): \(proved.outcome) \(String(describing: proved.error))")
        let (lost, _) = try await Self.pay(answer: answer, readBackBroken: true)
        #expect(lost.outcome == .unresolved, "\(name): \(lost.outcome) \(String(describing: lost.error))")
        #expect(lost.error?.paymentErrorCode == .invalidResponse)
    }
}
