internal import EGWWire
import Foundation
internal import JWE

/// Redacted views of the wire for observers and the debug log.
extension GatewayAPI {
    // MARK: - Observation (redacted views of the wire)

    /// One exchange as observers and the debug log see it: headers, bodies and the JWE header redacted.
    static func exchange(
        _ call: GatewayCall, _ request: HTTPRequest, duration: TimeInterval,
        _ result: Result<HTTPResponse, TransportError>
    ) -> HTTPExchange {
        let requestId = request.headers.first { $0.name == "X-Request-Id" }?.value ?? ""
        let (body, jweHeader) = redactedRequestBody(call, request.body)
        var exchange = HTTPExchange(
            requestId: requestId, method: request.method, url: request.url, status: nil, duration: duration,
            requestHeaders: redactedHeaders(request.headers), requestBody: body, encryptedCardHeader: jweHeader,
            responseBody: nil, failure: nil)
        switch result {
        case .success(let response):
            exchange.status = response.status
            exchange.responseBody = redactedResponseBody(response.body)
        case .failure(let error):
            exchange.failure = "\(error.kind): \(error.message)"
        }
        return exchange
    }

    /// Header values safe to show: the verification key becomes its fingerprint.
    static func redactedHeaders(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        headers.map { header in
            header.name.caseInsensitiveCompare("Obp-Verification-Key") == .orderedSame
                ? HTTPHeader(header.name, Redactor.fingerprint(header.value)) : header
        }
    }

    /// The request body safe to show, and the decoded JWE protected header when it carries an encrypted card.
    static func redactedRequestBody(_ call: GatewayCall, _ body: [UInt8]?) -> (body: String?, jweHeader: String?) {
        guard let body else { return (nil, nil) }
        if case .createSession(let encryptedCard, _) = call {
            let header = (try? JWEProtectedHeader(compact: encryptedCard))?.json
            return (#"{"encryptedCard":"<JWE \#(encryptedCard.utf8.count) bytes>"}"#, header)
        }
        return (String(decoding: body.prefix(2048), as: UTF8.self), nil)
    }

    /// The response body safe to show, shortened.
    static func redactedResponseBody(_ body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        let text = String(decoding: body.prefix(2048), as: UTF8.self)
        return Redactor().scrub(text) + (body.count > 2048 ? "…" : "")
    }
}
