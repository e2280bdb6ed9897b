import Foundation
import JWE
import Testing

@testable import GatewaySandbox

/// A card payment driven the way the SDK drives it: fetch the JWKS, encrypt with the JWE
/// package, create the session, authenticate, walk the issuer's pages like a browser.
struct CardFlow {
    let gateway: TestGateway
    let payment: SandboxPayment

    init(_ gateway: TestGateway, payment: SandboxPayment? = nil) {
        self.gateway = gateway
        self.payment = payment ?? gateway.sandbox.createPayment()
    }

    /// The card JSON of GATEWAY.md.
    static func cardJSON(
        _ number: String, month: String = "12", year: String = "34", code: String = "123", name: String = "Ada Lovelace"
    ) -> String {
        #"{"cardholderName": "\#(name)", "cardNumber": "\#(number)", "expiryMonth": "\#(month)", "expiryYear": "\#(year)", "securityCode": "\#(code)"}"#
    }

    /// The first key of the JWKS, read by the JWE package from the served JSON.
    func fetchKey() throws -> RSAPublicKey {
        let response = try gateway.get(gateway.jwksURL)
        let keys = try #require(try response.json()["keys"] as? [[String: Any]])
        let first = try #require(keys.first)
        let text = String(decoding: try JSONSerialization.data(withJSONObject: first), as: UTF8.self)
        return try RSAPublicKey(jwk: text)
    }

    func seal(_ plaintext: String, to key: RSAPublicKey? = nil) throws -> String {
        try JWEEncrypter(recipient: key ?? fetchKey()).encrypt(Array(plaintext.utf8))
    }

    func create(encryptedCard: String, idempotencyKey: String? = nil) throws -> RawResponse {
        try create(json: #"{"encryptedCard": "\#(encryptedCard)"}"#, idempotencyKey: idempotencyKey)
    }

    func create(json: String, idempotencyKey: String? = nil) throws -> RawResponse {
        try gateway.api(
            "POST", gateway.sessionsURL(payment.paymentId), key: payment.verificationKey, json: json,
            idempotencyKey: idempotencyKey)
    }

    /// Creates a session for a card number; returns the 201 body.
    func createSession(_ number: String) throws -> RawResponse {
        try create(encryptedCard: try seal(Self.cardJSON(number)))
    }

    func authenticate(
        _ sessionId: String, notificationURL: String? = nil, browser: String? = nil, idempotencyKey: String? = nil
    ) throws -> RawResponse {
        let url = notificationURL ?? gateway.notificationURL(sessionId)
        let browserJSON =
            browser
            ?? #"{"userAgent": "GatewaySandboxTests/1", "acceptHeader": "text/html", "language": "en-GB", "timeZoneOffsetMinutes": 0}"#
        return try gateway.api(
            "POST", gateway.sessionsURL(payment.paymentId, "/\(sessionId)/authentication"),
            key: payment.verificationKey,
            json: #"{"notificationUrl": "\#(url)", "browser": \#(browserJSON)}"#, idempotencyKey: idempotencyKey)
    }

    func challengeResult(_ sessionId: String, idempotencyKey: String? = nil) throws -> RawResponse {
        try gateway.api(
            "POST", gateway.sessionsURL(payment.paymentId, "/\(sessionId)/challenge-result"),
            key: payment.verificationKey,
            json: "{}", idempotencyKey: idempotencyKey)
    }

    /// The buyer types `code` on the issuer's page and stops there: the `cres` never reaches
    /// the notification page. Returns the issuer's result page.
    func answerChallengeWithoutNotification(_ authentication: RawResponse, code: String) throws -> Page {
        let challenge = try #require((try authentication.json())["challenge"] as? [String: String])
        let acsURL = try #require(challenge["acsUrl"].flatMap(URL.init(string:)))
        let creq = try #require(challenge["creq"])
        let entry = try gateway.postForm(acsURL, Array("creq=\(creq)".utf8))
        let form = try #require(Page(entry.text).form(id: "challenge-form"))
        let submitted = try gateway.postForm(
            try #require(URL(string: form.action)), form.body([("code", code), ("action", "submit")]))
        #expect(submitted.status == 200)
        return Page(submitted.text)
    }

    func session(_ sessionId: String) throws -> RawResponse {
        try gateway.api("GET", gateway.sessionsURL(payment.paymentId, "/\(sessionId)"), key: payment.verificationKey)
    }

    /// The issuer's pages as a browser sees them: POST `creq` to `acsUrl`, type `code`, submit,
    /// then submit the auto-posting `cres-form`. Returns the pages in order.
    func walkChallenge(
        acsURL: String, creq: String, code: String
    ) throws -> (challenge: Page, complete: Page, notification: RawResponse) {
        let entry = try gateway.postForm(try #require(URL(string: acsURL)), Array("creq=\(creq)".utf8))
        #expect(entry.status == 200)
        let challenge = Page(entry.text)
        let form = try #require(challenge.form(id: "challenge-form"))
        #expect(form.textInputs == ["code"])
        let submitted = try gateway.postForm(
            try #require(URL(string: form.action)), form.body([("code", code), ("action", "submit")]))
        #expect(submitted.status == 200)
        let complete = Page(submitted.text)
        let cresForm = try #require(complete.form(id: "cres-form"))
        let notification = try gateway.postForm(try #require(URL(string: cresForm.action)), cresForm.body([]))
        return (challenge, complete, notification)
    }
}

extension RawResponse {
    /// `status` of a card-session body.
    var sessionStatus: String? { (try? json())?["status"] as? String }
    var sessionId: String? { (try? json())?["sessionId"] as? String }
    var transStatus: String? { (try? json())?["transStatus"] as? String }
    var failureCode: String? { ((try? json())?["failure"] as? [String: Any])?["code"] as? String }
}
