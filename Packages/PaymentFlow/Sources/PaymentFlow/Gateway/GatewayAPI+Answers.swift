internal import EGWWire
import Foundation
internal import JWE

/// Answers as flow events, and the status lookup's decoding.
extension GatewayAPI {
    // MARK: - Answers as flow events

    /// What the flow hears of `call`'s result (a fetched key with the lifetime the gateway gave it).
    static func event(
        for call: GatewayCall, _ result: Result<HTTPResponse, TransportError>, paymentId: String,
        allowsPlainHTTP: Bool = true
    ) -> FlowEvent {
        switch call {
        case .statusLookup:
            return .statusResolved(decodeStatus(result, paymentId: paymentId))
        case .keySet:
            return .keyFetched(decodeKeySet(result))
        case .createSession, .authenticate, .challengeResult, .readSession:
            return .sessionAnswered(call, decodeSession(call, result, allowsPlainHTTP: allowsPlainHTTP))
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
            let body: (paymentId: String, paymentStatus: String, orderNumber: String?)
            do throws(FlowError) {
                let reader = try AnswerReader.parse(response, source: source)
                body = (
                    try reader.string("paymentId"), try reader.string("paymentStatus"),
                    try reader.optionalString("orderNumber")
                )
            } catch {
                return .failure(error)
            }
            guard body.paymentId == paymentId else {
                return .failure(
                    FlowError(.invalidResponse, "the status lookup answered for another payment", source: source))
            }
            return .success(.init(paymentStatus: body.paymentStatus, orderNumber: body.orderNumber))
        }
    }
}
