import CCurl
import Foundation

@testable import PaymentFlow

/// The wire of the exploration: the model owns delivery (issue 29, item 7).
///
/// For every money-moving POST the model picks what physically became of it (a ``Fate``): which
/// connection carried it, whether its bytes were written, whether the gateway read and applied it,
/// and what, if anything, came back. The model gateway's truth changes from that alone, and what the
/// SDK receives is derived from it the way the real transport derives it: an HTTP answer, or the
/// libcurl code that physical path ends in, named by the product's own `CurlErrors`, with the
/// `Delivery` facts a transport of the scenario's kind (``TransportReport``) would report of that path.
/// No delivery fact is chosen separately from what happened, so the SDK is never told more (or less)
/// than the wire shows: a transport that knows nothing says `.unknown`, and a transport that lies is a
/// mutation (``RunExplorationTests/Mutation/refusedConnectNeverSent``).
extension RunExplorationTests {
    /// Which connection carried an attempt.
    enum Connection: Hashable {
        /// A connection opened for this request.
        case fresh
        /// A connection an earlier request left open (a request with an `Idempotency-Key` may ride one).
        case kept
    }

    /// What physically became of one money-moving POST.
    enum Fate: CaseIterable {
        /// The gateway applies it and its answer arrives.
        case answered
        /// The gateway refuses it unread (`400 INVALID_REQUEST`).
        case refused
        /// A fresh connection is refused: no byte left the machine.
        case freshConnectRefused
        /// Written on a kept connection the gateway had already closed: never read; libcurl's reconnect
        /// is refused.
        case keptClosedUnread
        /// Written on a kept connection; the gateway applies it and goes away; the reconnect is refused.
        case keptGoneAfterApplying
        /// Written; no answer within the timeout; the gateway never got to it.
        case timeoutUnapplied
        /// Written; applied; no answer within the timeout.
        case timeoutApplied
        /// Written; applied; the connection is reset before the answer.
        case resetAfterApplying
        /// `503` before the gateway acted.
        case unavailableUnapplied
        /// `503` after the gateway acted.
        case unavailableApplied
        /// Applied; a proxy answers `200` with an HTML page.
        case htmlAfterApplying
        /// Applied; a box in between answers with a status line that is not HTTP/1.x (garbage,
        /// `HTTP/1.2`, `HTTP/3`...): libcurl's `CURLE_UNSUPPORTED_PROTOCOL`.
        case nonHTTPAfterApplying
        /// `409 REQUEST_IN_PROGRESS`: the same key's first request is being applied.
        case inProgress
        /// Applied, and the payment is paid, but the gateway answers the session `FAILED` with
        /// `PAYMENT_ALREADY_PROCESSED`.
        case alreadyProcessed

        var isFault: Bool { self != .answered }

        /// Whether the gateway applies the request on this path (the model's truth).
        var applies: Bool {
            switch self {
            case .answered, .keptGoneAfterApplying, .timeoutApplied, .resetAfterApplying, .unavailableApplied,
                .htmlAfterApplying, .nonHTTPAfterApplying, .inProgress, .alreadyProcessed:
                true
            case .refused, .freshConnectRefused, .keptClosedUnread, .timeoutUnapplied, .unavailableUnapplied:
                false
            }
        }

        /// The connection that carried the attempt.
        var connection: Connection {
            switch self {
            case .keptClosedUnread, .keptGoneAfterApplying: .kept
            default: .fresh
            }
        }

        /// Whether the request's bytes were handed to a connection.
        var written: Bool { self != .freshConnectRefused }

        /// The libcurl code the attempt ends in, when no HTTP answer the transport can read came back.
        var curlCode: CURLcode? {
            switch self {
            case .freshConnectRefused, .keptClosedUnread, .keptGoneAfterApplying: CURLE_COULDNT_CONNECT
            case .timeoutUnapplied, .timeoutApplied: CURLE_OPERATION_TIMEDOUT
            case .resetAfterApplying: CURLE_RECV_ERROR
            case .nonHTTPAfterApplying: CURLE_UNSUPPORTED_PROTOCOL
            case .answered, .refused, .unavailableUnapplied, .unavailableApplied, .htmlAfterApplying, .inProgress,
                .alreadyProcessed:
                nil
            }
        }

        /// Whether, by the contract, this fault alone may leave the SDK not knowing: the gateway's own
        /// answer is a conflict (CONTRACT.md 4a: `PAYMENT_ALREADY_PROCESSED` is `.unresolved` unless a
        /// read-back shows the final state). Every other fault of a first send is one the SDK recovers
        /// from by reading the session back or resending the step once with its key.
        var blinds: Bool { self == .alreadyProcessed }
    }

    /// What the scenario's transport reports of a failed attempt's delivery.
    enum TransportReport: Hashable, Sendable {
        /// libcurl's own counters, as `CurlTransport` reports them: the facts of the physical path.
        case facts
        /// Nothing (a host's own `HTTPTransport`): `Delivery.unknown`.
        case nothing
    }

    /// The delivery facts the scenario's transport reports for `fate`; `mutation` may make it lie.
    static func reportedDelivery(
        _ fate: Fate, bodyBytes: Int, _ report: TransportReport, _ mutation: Mutation
    ) -> TransportError.Delivery {
        if mutation == .refusedConnectNeverSent, fate.curlCode == CURLE_COULDNT_CONNECT {
            return .neverSent  // the lie: a transport that reads "could not connect" as "never sent"
        }
        switch report {
        case .nothing:
            return .unknown
        case .facts:
            return TransportError.Delivery(
                requestStarted: fate.written, rodeKeptConnection: fate.written && fate.connection == .kept,
                bodyBytesSent: fate.written ? bodyBytes : 0)
        }
    }

    /// What the SDK receives for `call` meeting `fate`, the model gateway changed accordingly.
    static func wire(
        _ call: GatewayCall, _ fate: Fate, _ scenario: Scenario, _ mutation: Mutation, _ world: inout World
    ) -> Result<HTTPResponse, TransportError> {
        let real = fate.applies ? apply(call, scenario, &world) : nil
        if let code = fate.curlCode {
            let bodyBytes =
                (try? GatewayAPI.request(call, endpoints: modelEndpoints, requestId: UUID()).get().body?.count) ?? 0
            let delivery = reportedDelivery(fate, bodyBytes: bodyBytes, scenario.transportReport, mutation)
            return .failure(
                CurlErrors.error(for: code, detail: "", host: "api.example", exceededLimit: false, delivery: delivery))
        }
        switch fate {
        case .answered: return real!
        case .refused: return gatewayError(400, "INVALID_REQUEST")
        case .unavailableUnapplied, .unavailableApplied: return gatewayError(503, "UNAVAILABLE")
        case .htmlAfterApplying: return json(200, "<html>proxy</html>")
        case .inProgress: return gatewayError(409, "REQUEST_IN_PROGRESS")
        case .alreadyProcessed:
            world.status = "SETTLED"
            return json(
                200,
                #"{"sessionId":"s","status":"FAILED","failure":{"code":"PAYMENT_ALREADY_PROCESSED","message":"paid"}}"#)
        case .freshConnectRefused, .keptClosedUnread, .keptGoneAfterApplying, .timeoutUnapplied, .timeoutApplied,
            .resetAfterApplying, .nonHTTPAfterApplying:
            preconditionFailure("answered by its curl code above")
        }
    }

    static let modelEndpoints = GatewayAPI.Endpoints(
        apiBaseURL: checkoutAPI, checkoutAPIBaseURL: checkoutAPI, checkoutBaseURL: base, paymentId: "p",
        verificationKey: "vk", timeout: 30)

    /// The step a call belongs to, for the precision rule: its `Idempotency-Key`, or `read`.
    static func step(_ call: GatewayCall) -> String { call.idempotencyKey?.uuidString ?? "read" }

    /// Records a fault on `call` in the world. CONTRACT.md 4a promises a read-back and one resend per
    /// step: a fault on a read-back, a second fault on the same step, or a fault that blinds by itself
    /// may leave the SDK unable to know (`disturbed`); a first recoverable fault on a step does not.
    static func recordFault(on call: GatewayCall, blinding: Bool, _ world: inout World) {
        world.faults += 1
        let step = step(call)
        if blinding || call.isIdempotent || world.faultedSteps.contains(step) { world.disturbed = true }
        world.faultedSteps.insert(step)
    }

    /// Whether the run's send of `call` is a recovery: a read-back, or a money-moving step sent again.
    static func isRecovery(_ call: GatewayCall, _ world: World) -> Bool {
        if case .readSession = call { return true }
        guard let key = call.idempotencyKey?.uuidString else { return false }
        return world.sentKeys.contains(key)
    }

    /// With ``Mutation/noRecovery``: the SDK's read-back or resend never reaches the wire; what the SDK
    /// hears is that it was never sent, so it ends on what it already knew.
    static let withheldRecovery = TransportError(
        .other, "the mutated SDK does not read back or resend", delivery: .neverSent)
}
