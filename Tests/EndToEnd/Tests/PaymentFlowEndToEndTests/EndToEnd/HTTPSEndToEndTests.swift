import Foundation
import GatewaySandbox
import HeadlessBrowser
import LatencyProxy
import Synchronization
import XCTest

@testable import PaymentFlow

#if canImport(Glibc)
import Glibc
#endif

/// Payments over HTTPS against the sandbox's own test CA, in `.live` (https only), with the real
/// libcurl transport and connection reuse on (the default): trust, pinning, refusal of an
/// untrusted CA and of TLS 1.1, a kept connection the server closes between two requests, a
/// dropped answer on a kept connection, and no descriptor left behind by released kits.
final class HTTPSEndToEndTests: XCTestCase {
    /// One HTTPS sandbox for the class (XCTest runs its tests one after another).
    static let sandbox: Sandbox = {
        var configuration = Sandbox.Configuration(seed: 13)
        configuration.tls = Sandbox.TLS()
        do {
            return try Sandbox(configuration: configuration)
        } catch {
            fatalError("the HTTPS sandbox did not start: \(error)")
        }
    }()

    var sandbox: Sandbox { Self.sandbox }
    var authorityFile: String { sandbox.tlsTrust?.certificateAuthorityFile ?? "/nonexistent" }

    override func setUp() { sandbox.clearFaults() }
    override func tearDown() { sandbox.clearFaults() }

    /// `.live`, every base URL on `port` (the sandbox's, or a proxy's in front of it).
    func liveConfiguration(
        _ security: TransportSecurity? = nil, port: UInt16? = nil, of server: Sandbox? = nil
    ) -> PaymentFlow.Configuration {
        let server = server ?? sandbox
        func rebased(_ url: URL) -> URL {
            guard let port else { return url }
            var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
            parts?.port = Int(port)
            return parts?.url ?? url
        }
        var configuration = PaymentFlow.Configuration(
            apiBaseURL: rebased(server.apiBaseURL), checkoutAPIBaseURL: rebased(server.checkoutAPIBaseURL),
            checkoutBaseURL: rebased(server.checkoutBaseURL), environment: .live)
        configuration.requestTimeout = 5
        configuration.transportSecurity =
            security ?? .trusting(certificateAuthorityFile: server.tlsTrust?.certificateAuthorityFile ?? "")
        return configuration
    }

    /// A buyer whose browser trusts the sandbox's CA.
    func trustedBrowser(_ script: BuyerScript) -> HeadlessBrowserPresenter {
        HeadlessBrowserPresenter(
            script: script,
            transport: CurlTransport(options: .init(requireHTTPS: true, trustedCertificatesPath: authorityFile)),
            options: .init(pageTimeout: 5))
    }

    func payCard(
        _ number: String, kit: PaymentKit, payment: SandboxPayment, options: PaymentOptions = PaymentOptions(),
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> PaymentResult {
        let presenter = trustedBrowser(.answering(challengeCode: "1234"))
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        let result = ContractHarness.run(self, pageGone: { !presenter.isPresenting }, file: file, line: line) {
            completion in
            kit.startCardPayment(
                request, card: testCard(number), from: presenter, options: options, completion: completion)
        }
        return try XCTUnwrap(result, file: file, line: line)
    }

    func payHosted(_ kit: PaymentKit, payment: SandboxPayment) throws -> PaymentResult {
        let presenter = trustedBrowser(.always(.hosted(.pay)))
        let request = PaymentRequest(
            paymentId: payment.paymentId, verificationKey: payment.verificationKey, checkoutURL: payment.checkoutURL,
            returnURL: payment.shopRedirectURL)
        let result = ContractHarness.run(self, pageGone: { !presenter.isPresenting }) { completion in
            kit.startPayment(request, from: presenter, completion: completion)
        }
        return try XCTUnwrap(result)
    }

    func underlyingCode(_ result: PaymentResult) -> PaymentError.Code? {
        (result.error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.paymentErrorCode
    }

    // MARK: Trust

    func testCardPaymentsInLiveWithTheCATrusted() throws {
        let kit = PaymentKit(configuration: liveConfiguration())
        for number in ["4111111111111111", "5555555555554444"] {  // frictionless; challenge with code 1234
            let payment = sandbox.createPayment()
            let result = try payCard(number, kit: kit, payment: payment)
            XCTAssertEqual(result.outcome, .succeeded, number)
            XCTAssertNil(result.error, number)
            XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "SETTLED", number)
        }
    }

    func testHostedPaymentInLiveWithTheCATrusted() throws {
        let payment = sandbox.createPayment()
        let result = try payHosted(PaymentKit(configuration: liveConfiguration()), payment: payment)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(result.paymentStatus, "SETTLED")
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "SETTLED")
    }

    func testTheServerPinIsAccepted() throws {
        let pin = try XCTUnwrap(sandbox.tlsTrust?.serverPublicKeyPin)
        var security = TransportSecurity.trusting(certificateAuthorityFile: authorityFile)
        security.pinnedPublicKeys = ["127.0.0.1": [pin]]
        let payment = sandbox.createPayment()
        let result = try payCard(
            "4111111111111111", kit: PaymentKit(configuration: liveConfiguration(security)), payment: payment)
        XCTAssertEqual(result.outcome, .succeeded)
    }

    func testAWrongPinIsANetworkErrorAndNothingIsSent() throws {
        var security = TransportSecurity.trusting(certificateAuthorityFile: authorityFile)
        // A well-formed pin of some other key (the CA's own), so only the comparison can fail.
        security.pinnedPublicKeys = ["127.0.0.1": [try XCTUnwrap(sandbox.tlsTrust?.certificateAuthorityPublicKeyPin)]]
        try assertRefused(liveConfiguration(security))
    }

    func testAnUntrustedCAIsANetworkErrorAndNothingIsSent() throws {
        try assertRefused(liveConfiguration(.systemTrust))
    }

    func testATLS11ServerIsRefused() throws {
        var configuration = Sandbox.Configuration(seed: 14)
        configuration.tls = Sandbox.TLS(maximumVersion: .tls1_1)
        let legacy = try Sandbox(configuration: configuration)
        defer { legacy.stop() }
        try assertRefused(liveConfiguration(of: legacy), on: legacy)
    }

    /// A card payment and a hosted payment's status lookup both fail before any request reaches the gateway.
    func assertRefused(
        _ configuration: PaymentFlow.Configuration, on server: Sandbox? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let server = server ?? sandbox
        let payment = server.createPayment()
        let before = server.lastSequence
        let presenter = browser(.always(.hosted(.pay)))
        let card = ContractHarness.run(self, pageGone: { !presenter.isPresenting }) { completion in
            PaymentKit(configuration: configuration).startCardPayment(
                CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey),
                card: testCard("4111111111111111"), from: presenter, completion: completion)
        }
        XCTAssertEqual(card?.outcome, .failed, file: file, line: line)
        XCTAssertEqual(card?.error?.paymentErrorCode, .encryptionKeyUnavailable, file: file, line: line)
        XCTAssertEqual(card.flatMap(underlyingCode), .networkError, file: file, line: line)
        XCTAssertEqual(server.apiRequests(since: before, payment: payment.paymentId).count, 0, file: file, line: line)

        // Hosted: the buyer pays on the page (its browser trusts the CA); the SDK's lookup cannot connect.
        guard server === sandbox else { return }
        let hosted = try payHosted(PaymentKit(configuration: configuration), payment: payment)
        XCTAssertEqual(hosted.outcome, .unresolved, file: file, line: line)
        XCTAssertEqual(hosted.error?.paymentErrorCode, .statusLookupFailed, file: file, line: line)
        XCTAssertEqual(underlyingCode(hosted), .networkError, file: file, line: line)
        XCTAssertEqual(
            server.apiRequests(since: before, payment: payment.paymentId).filter { $0.endpoint == .statusLookup }.count,
            0, file: file, line: line)
    }

    // MARK: Connections

    func testAKeptConnectionClosedByTheServerBetweenTwoRequests() throws {
        let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port))
        defer { proxy.stop() }
        let configuration = liveConfiguration(port: proxy.port)
        // Before the authentication request, the server side closes every connection: the one the
        // key fetch and the session creation used is dead when the SDK next wants it.
        let options = PaymentOptions(stepGate: { step, answer in
            if step.action == "POST authentication" { proxy.closeAllConnections() }
            answer(.proceed)
        })
        let payment = sandbox.createPayment()
        let before = sandbox.lastSequence
        let result = try payCard(
            "4111111111111111", kit: PaymentKit(configuration: configuration), payment: payment, options: options)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "SETTLED")
        // Each step reached the gateway exactly once, none as a replay.
        let steps = sandbox.apiRequests(since: before, payment: payment.paymentId)
        XCTAssertEqual(steps.map(\.endpoint), [.jwks, .cardSessionCreate, .authentication])
        XCTAssertEqual(steps.filter(\.replayed).count, 0)
        // The key and the session shared one connection; the authentication needed a new one.
        XCTAssertEqual(proxy.statistics.connections, 2)
        XCTAssertEqual(proxy.statistics.tlsHandshakes, 2)
    }

    /// Issue 19, latency: with the key on its own host (as a real gateway's checkout and API hosts are),
    /// a new kit opens the card-session host's connection with `OPTIONS *` while it fetches the key, and
    /// the creation and the authentication ride that connection: two connections, one per host, and the
    /// sandbox saw the `OPTIONS *` before the creation. The payment's steps are unchanged.
    func testAColdKeyOnItsOwnHostOverlapsTheSessionHostsConnection() throws {
        let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port))
        defer { proxy.stop() }
        var configuration = liveConfiguration(port: proxy.port)
        var keyHost = URLComponents(url: configuration.checkoutBaseURL!, resolvingAgainstBaseURL: false)
        keyHost?.host = "localhost"
        configuration.checkoutBaseURL = try XCTUnwrap(keyHost?.url)
        let payment = sandbox.createPayment()
        let before = sandbox.lastSequence
        let result = try payCard("4111111111111111", kit: PaymentKit(configuration: configuration), payment: payment)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "SETTLED")
        let steps = sandbox.apiRequests(since: before, payment: payment.paymentId)
        XCTAssertEqual(steps.map(\.endpoint), [.jwks, .cardSessionCreate, .authentication])
        XCTAssertEqual(steps.filter(\.replayed).count, 0)
        let opened = sandbox.requestLog.filter { $0.sequence > before && $0.method == "OPTIONS" }
        XCTAssertEqual(opened.map(\.path), ["*"])
        XCTAssertEqual(opened.first?.status, 204)
        XCTAssertLessThan(opened.first?.sequence ?? .max, steps.dropFirst().first?.sequence ?? 0)
        XCTAssertEqual(proxy.statistics.connections, 2)
        XCTAssertEqual(proxy.statistics.tlsHandshakes, 2)
    }

    /// Issue 18, money: the authentication rides the connection the session creation left open; the
    /// gateway holds it, and while it does the gateway's front (the proxy) goes away: the kept
    /// connection is reset and the listener closed, so libcurl's reconnect is refused and it reports
    /// `CURLE_COULDNT_CONNECT`. The sandbox applies the authentication all the same and settles. The SDK
    /// used to call that "unreachable" and end `.failed` ("check connectivity, then retry"): a buyer
    /// told to retry pays twice. Now it is in doubt; with the gateway gone nothing can be read back.
    func testTheGatewayGoneWhileItAppliesTheAuthenticationIsNeverFailed() throws {
        let proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port))
        defer { proxy.stop() }
        let configuration = liveConfiguration(port: proxy.port)
        sandbox.inject(SandboxFault(endpoint: .authentication, kind: .latency(.milliseconds(400)), schedule: .next(1)))
        let options = PaymentOptions(stepGate: { step, answer in
            if step.action == "POST authentication" {
                // The POST goes out on the kept connection; 150 ms later the gateway's front is gone.
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) { proxy.stop() }
            }
            answer(.proceed)
        })
        let payment = sandbox.createPayment()
        let result = try payCard(
            "4111111111111111", kit: PaymentKit(configuration: configuration), payment: payment, options: options)
        // The sandbox's truth once it has gone quiet (the held request applied).
        let deadline = Date(timeIntervalSinceNow: 5)
        while sandbox.paymentStatus(payment.paymentId) != "SETTLED", Date() < deadline { usleep(20_000) }
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "SETTLED", "the sandbox applied the authentication")
        XCTAssertNotEqual(result.outcome, .failed, "a paid payment reported failed: \(result)")
        XCTAssertNotEqual(result.outcome, .cancelled)
        XCTAssertEqual(result.outcome, .unresolved)
        XCTAssertEqual(result.error?.localizedRecoverySuggestion?.contains("ask your backend"), true)
    }

    func testAnAnswerLostOnAKeptConnectionStillGivesTheTrueResult() throws {
        // The gateway applies the authentication, sent on a kept connection, then drops the
        // connection before the answer. libcurl would resend such a request by itself; it may not
        // (its body is read-once), so the SDK's own recovery decides: it reads the session back.
        let kit = PaymentKit(configuration: liveConfiguration())
        let warmUp = sandbox.createPayment()
        XCTAssertEqual(try payCard("4111111111111111", kit: kit, payment: warmUp).outcome, .succeeded)
        sandbox.inject(
            SandboxFault(endpoint: .authentication, kind: .dropConnection, schedule: .next(1), processesRequest: true))
        let payment = sandbox.createPayment()
        let before = sandbox.lastSequence
        let result = try payCard("4111111111111111", kit: kit, payment: payment)
        XCTAssertEqual(result.outcome, .succeeded)
        XCTAssertEqual(sandbox.paymentStatus(payment.paymentId), "SETTLED")
        let steps = sandbox.apiRequests(since: before, payment: payment.paymentId)
        XCTAssertEqual(steps.filter { $0.endpoint == .cardSessionCreate }.count, 1)
        // One authentication (applied, answer dropped), no silent resend, then the SDK's read-back.
        let authentications = steps.filter { $0.endpoint == .authentication }
        XCTAssertEqual(authentications.map(\.status), [nil])
        XCTAssertEqual(steps.last?.endpoint, .cardSessionGet)
        XCTAssertEqual(sandbox.cardSessions(paymentId: payment.paymentId).map(\.status), ["COMPLETED"])
    }

    func testReleasedKitsLeaveNoFileDescriptorOpen() throws {
        // EGW_FD_PAYMENTS payments (default 100; the figure is 1,000), each on its own kit that is
        // released with its connections still open.
        let count = Int(ProcessInfo.processInfo.environment["EGW_FD_PAYMENTS"] ?? "") ?? 100
        func openDescriptors() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        }
        // One payment first, so lazily opened process-wide descriptors are in the baseline.
        XCTAssertEqual(
            try payCard(
                "4111111111111111", kit: PaymentKit(configuration: liveConfiguration()),
                payment: sandbox.createPayment()
            ).outcome, .succeeded)
        let baseline = openDescriptors()
        for _ in 0..<count {
            let result = try payCard(
                "4111111111111111", kit: PaymentKit(configuration: liveConfiguration()),
                payment: sandbox.createPayment())
            XCTAssertEqual(result.outcome, .succeeded)
        }
        // The client side closes as each kit goes; the sandbox (in this process) closes its side when it
        // sees the end of each connection: wait for that, with a deadline.
        let deadline = Date(timeIntervalSinceNow: 10)
        while openDescriptors() > baseline + 2, Date() < deadline { usleep(20_000) }
        XCTAssertLessThanOrEqual(
            openDescriptors(), baseline + 2, "after \(count) payments on released kits: \(Self.descriptorKinds())")
    }

    /// What the open descriptors are (`socket` 12, `anon_inode:[eventfd]` 2, ...), for a failure message.
    static func descriptorKinds() -> [String: Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        var kinds: [String: Int] = [:]
        for name in names {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) ?? "?"
            kinds[target.split(separator: ":").first.map(String.init) ?? target, default: 0] += 1
        }
        return kinds
    }
}
