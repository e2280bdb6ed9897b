// Round trips per payment under real latency (issue 13): the SDK pays an HTTPS sandbox through a
// LatencyProxy that adds `rtt / 2` each way (and a round trip for each new TCP connection), with
// connection reuse on and off. Figures are wall time per payment divided by the RTT, and the TCP
// connections and TLS handshakes the proxy saw per payment.
import Dispatch
import Foundation
import GatewaySandbox
import HeadlessBrowser
import LatencyProxy
import PaymentFlow
import Synchronization

/// One scenario's figures.
struct LatencyFigures {
    var roundTrips: Double
    var connections: Double
    var handshakes: Double
    var resumed: Double
    var succeeded: Int
}

/// Runs every latency scenario `payments` times with and without reuse and prints the table.
func runLatencyBench(payments: Int, roundTrip: Duration) {
    var configuration = Sandbox.Configuration(seed: 13, keyMaxAge: 3600)
    configuration.tls = Sandbox.TLS()
    let sandbox: Sandbox
    let proxy: LatencyProxy
    do {
        sandbox = try Sandbox(configuration: configuration)
        proxy = try LatencyProxy(configuration: .init(targetPort: sandbox.port, oneWayDelay: roundTrip / 2))
    } catch {
        print("bench: the HTTPS sandbox or the proxy did not start: \(error)")
        exit(1)
    }
    defer {
        proxy.stop()
        sandbox.stop()
    }
    // Every URL the sandbox hands out (links, form actions, redirects) goes through the proxy too.
    sandbox.advertise(port: proxy.port)
    let authority = sandbox.tlsTrust?.certificateAuthorityFile ?? ""
    let queue = DispatchQueue(label: "bench.latency.callbacks")
    let rtt = Double(roundTrip.components.seconds) + Double(roundTrip.components.attoseconds) / 1e18

    /// The key host is named differently from the API host, as two hosts of a real gateway are: a
    /// cold key costs its own connection.
    func onHost(_ url: URL, _ host: String) -> URL {
        var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
        parts?.host = host
        return parts?.url ?? url
    }

    func kit(reuse: Bool) -> PaymentKit {
        var configuration = PaymentFlow.Configuration(
            apiBaseURL: sandbox.apiBaseURL, checkoutAPIBaseURL: sandbox.checkoutAPIBaseURL,
            checkoutBaseURL: onHost(sandbox.checkoutBaseURL, "localhost"), environment: .live)
        configuration.transportSecurity = .trusting(certificateAuthorityFile: authority)
        configuration.reusesConnections = reuse
        configuration.callbackQueue = queue
        configuration.requestTimeout = 10
        return PaymentKit(configuration: configuration)
    }

    func browser(reuse: Bool) -> HeadlessBrowserPresenter {
        let options = CurlTransport.Options(requireHTTPS: true, trustedCertificatesPath: authority)
        return HeadlessBrowserPresenter(
            script: .answering(hosted: .pay, challengeCode: "1234"),
            transport: CurlTransport(options: options, connectionCache: reuse ? CurlConnectionCache() : nil))
    }

    func wait(_ start: (@escaping @Sendable (PaymentResult) -> Void) -> Void) -> PaymentResult? {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<PaymentResult?>(nil)
        start { result in
            box.withLock { $0 = result }
            done.signal()
        }
        guard done.wait(timeout: .now() + 60) == .success else { return nil }
        return box.withLock { $0 }
    }

    func payCard(_ kit: PaymentKit, _ presenter: HeadlessBrowserPresenter) -> Bool {
        let payment = sandbox.createPayment()
        let card = CardInput(
            cardholderName: "Bench", cardNumber: "4111111111111111", expiryMonth: "12", expiryYear: "35",
            securityCode: "123")
        // The async forms: the result comes on the callback queue while this thread waits.
        return wait { completion in
            Task.detached {
                completion(
                    await kit.startCardPayment(
                        CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey),
                        card: card, from: presenter))
            }
        }?.outcome == .succeeded
    }

    func payHosted(_ kit: PaymentKit, _ presenter: HeadlessBrowserPresenter) -> Bool {
        let payment = sandbox.createPayment()
        return wait { completion in
            Task.detached {
                completion(
                    await kit.startPayment(
                        PaymentRequest(
                            paymentId: payment.paymentId, verificationKey: payment.verificationKey,
                            checkoutURL: payment.checkoutURL, returnURL: payment.shopRedirectURL), from: presenter))
            }
        }?.outcome == .succeeded
    }

    /// Runs `pay` `payments` times after `prepare` (not timed, not counted) each time.
    func measure(prepare: () -> Void = {}, _ pay: () -> Bool) -> LatencyFigures {
        var total = 0.0
        var succeeded = 0
        var connections = 0
        var handshakes = 0
        var resumed = 0
        for _ in 0..<payments {
            prepare()
            proxy.resetStatistics()
            let start = DispatchTime.now().uptimeNanoseconds
            if pay() { succeeded += 1 }
            total += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let seen = proxy.statistics
            connections += seen.connections
            handshakes += seen.tlsHandshakes
            resumed += seen.resumedTLSHandshakes
        }
        let n = Double(payments)
        return LatencyFigures(
            roundTrips: total / n / rtt, connections: Double(connections) / n, handshakes: Double(handshakes) / n,
            resumed: Double(resumed) / n, succeeded: succeeded)
    }

    func scenario(_ reuse: Bool) -> [(String, LatencyFigures)] {
        let warm = kit(reuse: reuse)
        let presenter = browser(reuse: reuse)
        _ = payCard(warm, presenter)  // the key is cached from here on
        let cachedWarm = measure { payCard(warm, presenter) }
        // As after the idle window (or a server closing idle connections): nothing open to reuse.
        let cachedCold = measure(prepare: { proxy.closeAllConnections() }) { payCard(warm, presenter) }
        let coldKey = measure(prepare: { proxy.closeAllConnections() }) { payCard(kit(reuse: reuse), presenter) }
        let hostedKit = kit(reuse: reuse)
        _ = payHosted(hostedKit, presenter)
        let hosted = measure { payHosted(hostedKit, presenter) }
        return [
            ("card, key cached, connection kept from the last payment", cachedWarm),
            ("card, key cached, no open connection", cachedCold),
            ("card, cold key (new kit), no open connection", coldKey),
            ("hosted (page loads + status lookup), same kit and browser", hosted),
        ]
    }

    let reused = scenario(true)
    let fresh = scenario(false)
    let milliseconds = Int((rtt * 1000).rounded())
    print("== round trips per payment over HTTPS through a \(milliseconds) ms RTT proxy, \(payments) payments each ==")
    print(
        "   (wall time / RTT; TCP connections and TLS handshakes the proxy saw per payment; targets: cached <= 4.5, cold <= 5.5)"
    )
    func cell(_ figures: LatencyFigures) -> String {
        String(
            format: "%5.2f RTT %4.1f conn %4.1f TLS (%3.1f resumed) %d/%d ok", figures.roundTrips,
            figures.connections, figures.handshakes, figures.resumed, figures.succeeded, payments)
    }
    for (index, (name, figures)) in reused.enumerated() {
        print("\(name)")
        print("    reuse on:  \(cell(figures))")
        print("    reuse off: \(cell(fresh[index].1))")
    }
}
