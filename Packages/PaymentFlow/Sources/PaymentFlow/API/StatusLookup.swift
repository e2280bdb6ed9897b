import Dispatch
import Foundation
import Synchronization

/// What the platform said about a payment when ``PaymentKit/lookUpStatus(paymentId:verificationKey:completion:)``
/// asked (Linux addition). A value: safe to share between threads.
public struct PaymentStatusReport: Sendable, Equatable, CustomStringConvertible {
    /// The payment asked about (the platform answered for this one: an answer for another is an error).
    public let paymentId: String
    /// The platform's raw status, unchanged (e.g. `"SETTLED"`).
    public let paymentStatus: String
    /// The platform's record of the order number, when it sent one.
    public let orderNumber: String?

    /// The status as the SDK maps it (StatusMapping, as a hosted payment's result does): `SETTLED` is
    /// `.succeeded`, `CANCELLED` `.cancelled`, a status that may still change or one the SDK does not
    /// know `.unresolved`, never a guessed success.
    public var outcome: PaymentOutcome { PaymentOutcome(platformStatus: paymentStatus) }

    /// E.g. `PaymentStatusReport(succeeded, paymentId: p_1, paymentStatus: SETTLED)`; no verification key.
    public var description: String {
        var parts = ["\(outcome)", "paymentId: \(paymentId)", "paymentStatus: \(paymentStatus)"]
        if let orderNumber { parts.append("orderNumber: \(orderNumber)") }
        return "PaymentStatusReport(\(parts.joined(separator: ", ")))"
    }
}

extension PaymentKit {
    /// Asks the platform for a payment's status now, as the hosted flow's status read does (Linux
    /// addition): `GET {apiBaseURL}/checkout/api/egw/v1/payments/{paymentId}` with the id
    /// percent-encoded as one path segment, the `Obp-Verification-Key`, `X-Request-Id`, `Accept` and
    /// `User-Agent` headers, through the kit's transport (its transport security, `requestTimeout`, and
    /// the bounded retries of an idempotent read).
    ///
    /// `completion` runs exactly once, on ``Configuration/callbackQueue``, never inside this call, and
    /// at most `requestTimeout` + 5 s after it (then with a timeout error). It is independent of the
    /// kit's running payment: a lookup may run while a payment does.
    ///
    /// Errors (domain ``PaymentError/domain``): `invalidRequest` for an unusable configuration, no
    /// `apiBaseURL`, an empty or over-long (more than 256 characters) payment id, one with spaces or
    /// control characters, or an empty verification key; otherwise the codes of GATEWAY.md's error
    /// table (`networkError`, `invalidResponse`, ...), as a hosted payment's status read would see them.
    public func lookUpStatus(
        paymentId: String, verificationKey: String,
        completion: @escaping @Sendable (Result<PaymentStatusReport, NSError>) -> Void
    ) {
        let queue = configuration.callbackQueue
        let answered = AnswerFlag()
        let timer = Mutex<FlowTimer?>(nil)
        let finish: @Sendable (Result<PaymentStatusReport, FlowError>) -> Void = { result in
            guard answered.claim() else { return }
            timer.withLock { $0 }?.cancel()
            queue.async { completion(result.mapError(\.nsError)) }
        }
        if let problem = configuration.configurationProblem()
            ?? RequestValidation.credentials(paymentId: paymentId, verificationKey: verificationKey)
        {
            finish(.failure(problem))
            return
        }
        let endpoints = GatewayAPI.Endpoints(
            apiBaseURL: configuration.apiBaseURL, checkoutAPIBaseURL: nil, checkoutBaseURL: nil,
            paymentId: paymentId, verificationKey: verificationKey, timeout: configuration.requestTimeout)
        let request: HTTPRequest
        switch GatewayAPI.request(.statusLookup, endpoints: endpoints, requestId: dependencies.uuid()) {
        case .success(let built): request = built
        case .failure:
            finish(
                .failure(
                    FlowError(
                        .invalidRequest, "lookUpStatus needs configuration.apiBaseURL (your backend)",
                        source: "configuration")))
            return
        }
        let decode: @Sendable (Result<HTTPResponse, TransportError>) -> Void = { result in
            finish(
                GatewayAPI.decodeStatus(result, paymentId: paymentId).flatMap { report in
                    guard let status = report.paymentStatus else {
                        return .failure(FlowError(.invalidResponse, "no paymentStatus", source: "GET status"))
                    }
                    return .success(
                        PaymentStatusReport(
                            paymentId: paymentId, paymentStatus: status, orderNumber: report.orderNumber))
                })
        }
        let cancellation = TransferCancellation()
        // The same watchdog as a payment's call: a transport that never answers still ends the lookup.
        let limit = CallWatchdog.deadline(requestTimeout: configuration.requestTimeout)
        let watchdog = dependencies.clock.schedule(limit) {
            cancellation.cancel()
            decode(.failure(TransportError(.timeout, "no answer within \(Int(limit)) s")))
        }
        timer.withLock { $0 = watchdog }
        if let cancellable = dependencies.transport as? any CancellableTransport {
            cancellable.send(request, cancellation: cancellation, completion: decode)
        } else {
            dependencies.transport.send(request, completion: decode)
        }
    }

    /// The `async` form of ``lookUpStatus(paymentId:verificationKey:completion:)`` (Linux addition): the
    /// report, or throws the `NSError` described there. The callback queue must be running (the main
    /// queue by default).
    public func lookUpStatus(paymentId: String, verificationKey: String) async throws -> PaymentStatusReport {
        try await withCheckedThrowingContinuation { continuation in
            lookUpStatus(paymentId: paymentId, verificationKey: verificationKey) { continuation.resume(with: $0) }
        }
    }
}
