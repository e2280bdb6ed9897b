import EGWWire
import Foundation
import PaymentFlow
import ReplCore
import Synchronization

extension Shell {
    /// `result [--json]`.
    func showResult(json: Bool) throws(ReplError) {
        guard let result = lastResult else {
            throw ReplError(.notAvailable, "no payment has finished yet (pay card or pay hosted)")
        }
        if json || options.json {
            console.out(resultJSON(result).text)
            return
        }
        console.table([
            ("outcome", "\(result.outcome)"), ("paymentId", result.paymentId),
            ("paymentStatus", result.paymentStatus ?? "(none)"), ("orderNumber", result.orderNumber ?? "(none)"),
            ("sessionId", result.sessionId ?? "(none)"),
            (
                "error",
                result.error.map {
                    "\($0.domain) \($0.code)\(PaymentError.code(of: $0).map { " \($0)" } ?? ""): "
                        + redact($0.localizedDescription)
                } ?? "(none)"
            ),
        ])
    }

    /// The result as the JSON object `result --json` prints.
    func resultJSON(_ result: PaymentResult) -> JSONValue {
        func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        var error = JSONValue.null
        if let nsError = result.error {
            error = .object([
                ("domain", .string(nsError.domain)), ("code", .number(nsError.code)),
                ("name", optional(PaymentError.code(of: nsError)?.description)),
                ("message", .string(redact(nsError.localizedDescription))),
            ])
        }
        return .object([
            ("outcome", .string(result.outcome.description)), ("paymentId", .string(result.paymentId)),
            ("paymentStatus", optional(result.paymentStatus)), ("orderNumber", optional(result.orderNumber)),
            ("sessionId", optional(result.sessionId)), ("error", error),
        ])
    }

    /// `status [PAYMENT_ID]`: the status lookup of CONTRACT.md section 3,
    /// `GET {apiBaseURL}/checkout/api/egw/v1/payments/{id}`, over the SDK's libcurl transport.
    func lookUpStatus(_ paymentId: String?) throws(ReplError) {
        guard let target = paymentId ?? payment?.paymentId else {
            throw ReplError(.notAvailable, "no payment yet: give PAYMENT_ID, or payment create first")
        }
        guard let key = knownKeys[target] else {
            throw ReplError(.notAvailable, "the verification key of \(target) is unknown: payment use \(target) KEY")
        }
        guard let base = configuration.apiBaseURL,
            let url = URL(string: base + "/checkout/api/egw/v1/payments/" + target)
        else {
            throw ReplError(.notAvailable, "api-base-url is not set (config set api-base-url URL)")
        }
        let request = HTTPRequest(
            method: "GET", url: url,
            headers: [
                HTTPHeader("Obp-Verification-Key", key), HTTPHeader("X-Request-Id", UUID().uuidString.lowercased()),
                HTTPHeader("Accept", "application/json"),
            ], timeout: configuration.timeout)
        let inbox = LookupInbox()
        let started = Date()
        CurlTransport(
            options: .init(
                requireHTTPS: configuration.environment == "live", trustedCertificatesPath: trustedAuthorityFile)
        )
        .send(request, completion: inbox.completion())
        let outcome = waitFor(inbox)
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        switch outcome {
        case .none:
            throw ReplError(.commandFailed, "the status lookup was cancelled")
        case .some(.failure(let error)):
            throw ReplError(.commandFailed, "the status lookup failed: \(error.message)")
        case .some(.success(let response)):
            let body = String(decoding: response.body, as: UTF8.self)
            guard response.status == 200 else {
                throw ReplError(
                    .commandFailed,
                    "the status lookup answered \(response.status): \(shorten(redact(body), limit: 200))")
            }
            // EGWWire's strict parser: a reply with two paymentStatus members is not read as either.
            let object = try? StrictJSONParser.parse(response.body)
            let status = object?[member: "paymentStatus"]?.stringValue
            let order = object?[member: "orderNumber"]?.stringValue
            if options.json {
                console.out(
                    JSONValue.object([
                        ("paymentId", .string(target)), ("paymentStatus", status.map(JSONValue.string) ?? .null),
                        ("orderNumber", order.map(JSONValue.string) ?? .null),
                        ("outcome", .string(PaymentOutcome(platformStatus: status).description)),
                    ]).text)
                return
            }
            console.out(
                "  ⇄ GET \(url.absoluteString) → \(response.status) in \(milliseconds) ms")
            console.out(
                "\(target): \(status ?? "(no status)") → outcome \(PaymentOutcome(platformStatus: status))"
                    + (order.map { ", order \($0)" } ?? ""))
        }
    }

    /// Runs the main queue until `inbox` has an answer or Ctrl-C.
    func waitFor(_ inbox: LookupInbox) -> Result<HTTPResponse, TransportError>? {
        interrupts.isBusy = true
        defer { interrupts.isBusy = false }
        let seen = interrupts.received
        while true {
            if let outcome = inbox.outcome {
                return outcome
            }
            if interrupts.received != seen {
                return nil
            }
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.02))
        }
    }
}

/// The answer of one HTTP request, posted from libcurl's thread.
final class LookupInbox: Sendable {
    private let slot = Mutex<Result<HTTPResponse, TransportError>?>(nil)

    var outcome: Result<HTTPResponse, TransportError>? {
        slot.withLock { $0 }
    }

    func completion() -> @Sendable (Result<HTTPResponse, TransportError>) -> Void {
        { [self] result in slot.withLock { $0 = result } }
    }
}
