import Foundation
import GatewaySandbox
import HeadlessBrowser
import Synchronization
import Testing

@testable import PaymentFlow

/// CONTRACT.md 4a / issue: "in-flight transfers cancelled when the run ends (no request of a finished
/// payment still running, still carrying the verification key)". A sandbox that holds its answer for
/// 20 s shows whether the libcurl transfer really stops: a transfer left alone would come back 200.
@Suite(.serialized) struct TransferCancellationTests {
    static let sandbox: Sandbox = {
        do {
            return try Sandbox(configuration: .init(seed: 11))
        } catch {
            fatalError("the sandbox did not start: \(error)")
        }
    }()

    @Test func aCancelledTransferEndsBeforeTheServerAnswers() async throws {
        let sandbox = Self.sandbox
        sandbox.clearFaults()
        sandbox.inject(SandboxFault(endpoint: .jwks, kind: .latency(.seconds(20)), schedule: .next(1)))
        let url = sandbox.checkoutBaseURL.appendingPathComponent("checkout/.well-known/jwks.json")
        let cancellation = TransferCancellation()
        let result = await withCheckedContinuation { continuation in
            CurlTransport().send(
                HTTPRequest(method: "GET", url: url, timeout: 60), cancellation: cancellation
            ) { continuation.resume(returning: $0) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { cancellation.cancel() }
        }
        guard case .failure(let error) = result else {
            Issue.record("the transfer was not stopped: \(result)")
            return
        }
        #expect(error.message.contains("cancelled"))
        sandbox.clearFaults()
    }

    /// A transport that records what each request's transfer finally produced.
    final class Recording: CancellableTransport {
        let base = CurlTransport()
        let outcomes = Mutex<[(String, Result<HTTPResponse, TransportError>)]>([])

        func send(
            _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
        ) {
            send(request, cancellation: nil, completion: completion)
        }

        func send(
            _ request: HTTPRequest, cancellation: TransferCancellation?,
            completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) -> Void
        ) {
            base.send(request, cancellation: cancellation) { result in
                self.outcomes.withLock { $0.append((request.url.path, result)) }
                completion(result)
            }
        }
    }

    /// Issue 18: a cancel while the creation is out no longer ends the payment blind (`.unresolved`):
    /// the SDK waits for the creation's answer, sends nothing that could move money after it, and ends
    /// with what the gateway shows: a session still waiting for authentication moved no money.
    @Test func aCardPaymentCancelledWhileItsCreationIsInFlightEndsWithTheGatewaysAnswer() async throws {
        let sandbox = Self.sandbox
        sandbox.clearFaults()
        sandbox.inject(
            SandboxFault(endpoint: .cardSessionCreate, kind: .latency(.milliseconds(1500)), schedule: .next(1)))
        let transport = Recording()
        var configuration = sandbox.sdkConfiguration(requestTimeout: 30)
        configuration.callbackQueue = DispatchQueue(label: "transfer-cancellation-test")
        let sent = Mutex(false)
        let options = PaymentOptions(observer: { event in
            if case .transition(let transition) = event, transition.to == "creatingSession" {
                sent.withLock { $0 = true }
            }
        })
        let kit = PaymentKit(configuration: configuration, statusResolver: nil, transport: transport)
        let payment = sandbox.createPayment()
        let request = CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey)
        let result = await withCheckedContinuation { continuation in
            kit.startCardPayment(
                request, card: testCard("4111111111111111"), from: browser(.answering()), options: options
            ) { continuation.resume(returning: $0) }
            DispatchQueue.global().async {
                while !sent.withLock({ $0 }) { usleep(1000) }
                usleep(300_000)
                kit.cancel()
            }
        }
        #expect(result.outcome == .cancelled)
        #expect(result.sessionId != nil)
        let paths = transport.outcomes.withLock { $0.map(\.0) }
        #expect(paths.contains { $0.hasSuffix("/card-sessions") })
        #expect(!paths.contains { $0.hasSuffix("/authentication") }, "\(paths)")
        #expect(sandbox.paymentStatus(payment.paymentId) != "SETTLED")
        sandbox.clearFaults()
    }
}
