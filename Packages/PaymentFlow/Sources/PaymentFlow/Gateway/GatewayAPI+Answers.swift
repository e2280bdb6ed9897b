internal import EGWWire
import Foundation
internal import JWE

/// Answers as flow events, and the status lookup's decoding.
extension GatewayAPI {
    // MARK: - Answers as flow events

    /// What the flow hears of `call`'s result, and the key to cache when the call fetched one.
    static func event(
        for call: GatewayCall, _ result: Result<HTTPResponse, TransportError>, paymentId: String,
        allowsPlainHTTP: Bool = true
    ) -> (event: FlowEvent, key: KeyChoice?) {
        switch call {
        case .statusLookup:
            return (.statusResolved(decodeStatus(result, paymentId: paymentId)), nil)
        case .keySet:
            let decoded = decodeKeySet(result)
            return (.keyFetched(decoded.map(\.key)), decoded.success)
        case .createSession, .authenticate, .challengeResult, .readSession:
            return (.sessionAnswered(call, decodeSession(call, result, allowsPlainHTTP: allowsPlainHTTP)), nil)
        }
    }

    // MARK: - Status lookup

    /// Decodes `200 {"paymentId", "paymentStatus", "orderNumber"?...}`.
    static func decodeStatus(
        _ result: Result<HTTPResponse, TransportError>, paymentId: String
    ) -> Result<HostedCheckoutMachine.StatusReport, FlowError> {
        let source = "GET status"
        switch result {
        case .failure(let error):
            return .failure(transportFailure(error, source: source))
        case .success(let response):
            guard response.status == 200 else {
                return .failure(httpFailure(response, source: source, idempotent: true))
            }
            struct Body: Decodable {
                var paymentId: String
                var paymentStatus: String
                var orderNumber: String?
            }
            switch decode(Body.self, response, source: source) {
            case .failure(let error): return .failure(error)
            case .success(let body):
                guard body.paymentId == paymentId else {
                    return .failure(
                        FlowError(.invalidResponse, "the status lookup answered for another payment", source: source))
                }
                return .success(.init(paymentStatus: body.paymentStatus, orderNumber: body.orderNumber))
            }
        }
    }
}
