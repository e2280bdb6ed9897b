internal import EGWWire
import Foundation
internal import JWE

/// The wire protocol, in one place (CONTRACT.md section 6, GATEWAY.md): the
/// paths, headers and bodies of every call the SDK makes, how each response is
/// decoded (strict on required fields, unknown fields ignored) and how errors
/// map to SDK codes. A different real API changes this file only.
enum GatewayAPI {
    /// `User-Agent` of every SDK request (``PaymentKit/userAgent``).
    static let userAgent = PaymentKit.userAgent
    /// The `Accept` header the SDK's API calls send (also reported as the browser's).
    static let acceptHeader = "application/json"

    /// Everything a call needs besides the call itself.
    struct Endpoints: Sendable {
        var apiBaseURL: URL?
        var checkoutAPIBaseURL: URL?
        var checkoutBaseURL: URL?
        var paymentId: String
        var verificationKey: String
        var timeout: TimeInterval
    }

    // MARK: - Requests

    /// The HTTP request for `call`, or an `invalidRequest` error when a needed base URL is missing.
    static func request(_ call: GatewayCall, endpoints: Endpoints, requestId: UUID) -> Result<HTTPRequest, FlowError> {
        let payment = "/checkout/api/egw/v1/payments/" + pathSegment(endpoints.paymentId)
        let sessions = payment + "/card-sessions"
        let method: String
        let base: URL?
        let path: String
        var body: [UInt8]? = nil
        switch call {
        case .statusLookup:
            (method, base, path) = ("GET", endpoints.apiBaseURL, payment)
        case .keySet:
            (method, base, path) = ("GET", endpoints.checkoutBaseURL, "/checkout/.well-known/jwks.json")
        case .createSession(let encryptedCard, _):
            (method, base, path) = ("POST", endpoints.checkoutAPIBaseURL, sessions)
            body = JSONValue.members([("encryptedCard", .string(encryptedCard))]).jsonBytes
        case .authenticate(let sessionId, let notificationURL, _, let threeDS):
            (method, base, path) = (
                "POST", endpoints.checkoutAPIBaseURL, sessions + "/" + pathSegment(sessionId) + "/authentication"
            )
            body =
                JSONValue.members([
                    ("notificationUrl", .string(notificationURL.absoluteString)),
                    ("threeDSCompInd", .string(threeDS.compInd.rawValue)),
                    ("browser", threeDS.browser.json),
                ]).jsonBytes
        case .challengeResult(let sessionId, _):
            (method, base, path) = (
                "POST", endpoints.checkoutAPIBaseURL, sessions + "/" + pathSegment(sessionId) + "/challenge-result"
            )
            body = Array("{}".utf8)
        case .readSession(let sessionId):
            (method, base, path) = ("GET", endpoints.checkoutAPIBaseURL, sessions + "/" + pathSegment(sessionId))
        }
        guard let base, let url = join(base, path) else {
            return .failure(FlowError(.invalidRequest, "no base URL configured for \(call)", source: "\(call)"))
        }
        var headers = [
            HTTPHeader("X-Request-Id", requestId.uuidString.lowercased()),
            HTTPHeader("Accept", acceptHeader),
            HTTPHeader("User-Agent", userAgent),
        ]
        if call != .keySet {
            headers.insert(HTTPHeader("Obp-Verification-Key", endpoints.verificationKey), at: 0)
        }
        if body != nil { headers.append(HTTPHeader("Content-Type", "application/json")) }
        if let key = call.idempotencyKey { headers.append(HTTPHeader("Idempotency-Key", key.uuidString.lowercased())) }
        return .success(HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: endpoints.timeout))
    }

    /// `{checkoutBaseURL}/checkout/3ds/notification/{sessionId}`: where the issuer sends the buyer back.
    static func notificationURL(checkoutBaseURL: URL, sessionId: String) -> URL? {
        join(checkoutBaseURL, "/checkout/3ds/notification/" + pathSegment(sessionId))
    }

    /// The hosted page to present: `checkoutURL` with `method={hint}` when the hint is one of
    /// ``PaymentRequest/MethodHint`` (any other value is ignored, as the contract says). The query item
    /// is added, or the first existing `method` item is replaced (later ones removed); every other byte
    /// of the URL (percent-encodings, item order, the fragment) stays as it was.
    static func checkoutPage(checkoutURL: URL, preferredMethod: String?) -> URL {
        guard let preferredMethod, PaymentRequest.MethodHint.known.contains(preferredMethod) else { return checkoutURL }
        var text = checkoutURL.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        let item = "method=" + preferredMethod  // the known hints need no percent-encoding
        guard let mark = text.firstIndex(of: "?") else {
            return URL(string: text + "?" + item + fragment) ?? checkoutURL
        }
        let base = text[..<mark]
        let query = text[text.index(after: mark)...]
        var items: [String] = []
        var replaced = false
        for part in query.split(separator: "&", omittingEmptySubsequences: false) {
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard name == "method" else {
                items.append(String(part))
                continue
            }
            if !replaced { items.append(item) }
            replaced = true
        }
        if !replaced { items.append(item) }
        if items.first == "" { items.removeFirst() }
        return URL(string: base + "?" + items.joined(separator: "&") + fragment) ?? checkoutURL
    }

    /// The `Accept` header a browser sends for pages (reported when the presenter does not say its own).
    static let pageAcceptHeader = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

    /// `{checkoutBaseURL}/checkout/3ds/method-notification/{sessionId}`: where the ACS ends the 3DS Method.
    static func methodNotificationURL(checkoutBaseURL: URL, sessionId: String) -> URL? {
        join(checkoutBaseURL, "/checkout/3ds/method-notification/" + pathSegment(sessionId))
    }

    /// The invisible method page: an HTML form POST of `threeDSMethodData` to the method URL.
    static func methodPage(url: URL, data: String) -> PagePlan {
        PagePlan(
            url: url, formFields: [PagePlan.Field(name: ThreeDSMethodField.formField, value: data)],
            purpose: .challenge, threeDSMethod: true)
    }

    /// The challenge page: an HTML form POST of `creq` to `acsUrl`.
    static func challengePage(_ challenge: SessionSnapshot.Challenge) -> PagePlan {
        PagePlan(
            url: challenge.acsURL, formFields: [PagePlan.Field(name: "creq", value: challenge.creq)],
            purpose: .challenge)
    }

    // MARK: - Small helpers

    /// One path segment, percent-encoded (RFC 3986 unreserved characters kept).
    static func pathSegment(_ text: String) -> String { PercentEncoding.pathSegment(text) }

    /// `base` + `path`, keeping the base's own path as a prefix.
    static func join(_ base: URL, _ path: String) -> URL? {
        var text = base.absoluteString
        if let query = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = String(text[..<query]) }
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + path)
    }
}
