import Foundation
import Testing

@testable import GatewaySandbox

/// The card session as a value state machine: events in, transitions out, no network.
/// Expected states follow GATEWAY.md's card-session and 3-D Secure sections.
@Suite struct CardSessionStateMachineTests {
    func session(_ behaviour: CardBehaviour) -> CardSession {
        CardSession(id: "cs_1", paymentId: "pay_1", acsTransID: "acs-1", last4: "1111", behaviour: behaviour)
    }

    @Test(arguments: [("Y", "COMPLETED"), ("A", "COMPLETED"), ("U", "COMPLETED"), ("N", "FAILED"), ("R", "FAILED")])
    func frictionless(_ transStatus: String, _ expected: String) {
        var s = session(.frictionless(transStatus: transStatus))
        #expect(s.status == "AUTHENTICATION_REQUIRED")
        #expect(s.authenticate(notificationURL: "n") == .changed)
        #expect(s.status == expected)
        #expect(s.transStatus == transStatus)
        #expect(s.isFinal)
        // A repeated authentication answers the same session again.
        #expect(s.authenticate(notificationURL: "n") == .unchanged)
        #expect(s.challengeResult() == .refused(.outOfOrder("no challenge was required on this session")))
    }

    @Test func rejectedAndNotAuthenticatedCarryFailureCodes() {
        var rejected = session(.frictionless(transStatus: "R"))
        _ = rejected.authenticate(notificationURL: "n")
        #expect(rejected.failure?.code == "AUTHENTICATION_REJECTED")
        var notAuthenticated = session(.frictionless(transStatus: "N"))
        _ = notAuthenticated.authenticate(notificationURL: "n")
        #expect(notAuthenticated.failure?.code == "AUTHENTICATION_FAILED")
    }

    @Test(arguments: [("1234", "COMPLETED", "Y"), ("0000", "FAILED", "N"), ("", "FAILED", "N")])
    func challenge(_ code: String, _ expected: String, _ transStatus: String) {
        var s = session(.challenge)
        #expect(s.challengeResult() == .refused(.outOfOrder("no challenge was required on this session")))
        #expect(s.authenticate(notificationURL: "https://n") == .changed)
        #expect(s.status == "CHALLENGE_REQUIRED")
        #expect(s.transStatus == "C")
        #expect(s.notificationURL == "https://n")
        #expect(s.challengeResult() == .refused(.challengeNotCompleted))
        #expect(s.notify(transStatus: transStatus) == .refused(.outOfOrder("the challenge has not been answered")))
        #expect(s.answerChallenge(code: code) == .changed)
        #expect(s.challengeAnswer == transStatus)
        #expect(s.answerChallenge(code: "1234") == .unchanged)  // one attempt: the first answer stands
        #expect(
            s.notify(transStatus: transStatus == "Y" ? "N" : "Y")
                == .refused(.outOfOrder("cres does not match the issuer's result"))
        )
        #expect(s.notify(transStatus: transStatus) == .changed)
        #expect(s.notify(transStatus: transStatus) == .unchanged)
        #expect(s.challengeResult() == .changed)
        #expect(s.status == expected)
        #expect(s.transStatus == transStatus)
        #expect(s.challengeResult() == .unchanged)
    }

    @Test func challengeResultWithoutTheNotificationStillUsesTheIssuersAnswer() {
        var s = session(.challenge)
        _ = s.authenticate(notificationURL: "n")
        _ = s.answerChallenge(code: "1234")
        #expect(s.challengeResult() == .changed)
        #expect(s.status == "COMPLETED")
    }

    /// challenge-result in each challenge progress: not answered is `409 CHALLENGE_NOT_COMPLETED`
    /// and changes nothing; answered (with or without the notification) is final.
    @Test func challengeResultInEachProgress() {
        var s = session(.challenge)
        _ = s.authenticate(notificationURL: "n")
        let refusal = CardSession.Refusal.challengeNotCompleted
        #expect((refusal.status, refusal.code) == (409, "CHALLENGE_NOT_COMPLETED"))
        let before = s
        #expect(s.challengeResult() == .refused(.challengeNotCompleted))
        #expect(s.challengeResult() == .refused(.challengeNotCompleted))
        #expect(s == before)
        #expect(s.status == "CHALLENGE_REQUIRED")
        // The buyer may still answer after a refused challenge-result.
        #expect(s.answerChallenge(code: "0000") == .changed)
        #expect(s.challengeResult() == .changed)
        #expect(s.status == "FAILED")
        #expect(s.transStatus == "N")
        #expect(s.failure?.code == "AUTHENTICATION_FAILED")

        var notified = session(.challenge)
        _ = notified.authenticate(notificationURL: "n")
        _ = notified.answerChallenge(code: "1234")
        _ = notified.notify(transStatus: "Y")
        #expect(notified.challengeResult() == .changed)
        #expect(notified.status == "COMPLETED")
        #expect(notified.challengeResult() == .unchanged)
    }

    @Test func noThreeDSAndDeclinedAreFinalAtCreation() {
        var none = session(.noThreeDS)
        #expect(none.status == "COMPLETED")
        #expect(none.transStatus == nil)
        #expect(
            none.authenticate(notificationURL: "n")
                == .refused(.outOfOrder("this session needed no authentication: it is COMPLETED")))
        let declined = session(.declined)
        #expect(declined.status == "FAILED")
        #expect(declined.failure?.code == "CARD_DECLINED")
    }

    @Test func supersedeFailsOnlyACompletedSession() {
        var s = session(.noThreeDS)
        s.supersede()
        #expect(s.status == "FAILED")
        #expect(s.failure?.code == "PAYMENT_ALREADY_PROCESSED")
        var pending = session(.challenge)
        pending.supersede()
        #expect(pending.status == "AUTHENTICATION_REQUIRED")
    }
}

/// The strict card JSON of GATEWAY.md.
@Suite struct CardDataTests {
    static let valid =
        #"{"cardholderName": "Ada Lovelace", "cardNumber": "4111111111111111", "expiryMonth": "12", "expiryYear": "34", "securityCode": "123"}"#

    @Test func parsesTheFiveMembers() throws {
        let card = try CardData.parse(Array(Self.valid.utf8))
        #expect(card.last4 == "1111")
        #expect(card.behaviour == .frictionless(transStatus: "Y"))
        #expect(card.securityCodeLength == 3)
        #expect(card.expiryMonth == 12)
        #expect(card.expiryYear == 2034)
        #expect(card.isLuhnValid)
        #expect(!card.description.contains("41111111"))
    }

    @Test(arguments: [
        #"{"cardholderName": "A", "cardNumber": "4111111111111111", "expiryMonth": "12", "expiryYear": "34"}"#,
        #"{"cardholderName": "A", "cardNumber": "4111111111111111", "expiryMonth": "12", "expiryYear": "34", "securityCode": "123", "brand": "visa"}"#,
        #"{"cardholderName": "A", "cardNumber": 4111111111111111, "expiryMonth": "12", "expiryYear": "34", "securityCode": "123"}"#,
        #"{"cardholderName": "A", "cardNumber": "4111 1111 1111 1111", "expiryMonth": "12", "expiryYear": "34", "securityCode": "123"}"#,
        #"{"cardholderName": "A", "cardNumber": "4111111111111111", "expiryMonth": "13", "expiryYear": "34", "securityCode": "123"}"#,
        #"{"cardholderName": "A", "cardNumber": "4111111111111111", "expiryMonth": "1", "expiryYear": "34", "securityCode": "123"}"#,
        #"{"cardholderName": "A", "cardNumber": "4111111111111111", "expiryMonth": "12", "expiryYear": "2034", "securityCode": "123"}"#,
        #"{"cardholderName": "A", "cardNumber": "4111111111111111", "expiryMonth": "12", "expiryYear": "34", "securityCode": "12"}"#,
        #"{"cardholderName": " ", "cardNumber": "4111111111111111", "expiryMonth": "12", "expiryYear": "34", "securityCode": "123"}"#,
        #"{"cardholderName": "A", "cardNumber": "41111111111", "expiryMonth": "12", "expiryYear": "34", "securityCode": "123"}"#,
        #"{"cardholderName": "A", "cardholderName": "B", "cardNumber": "4111111111111111", "expiryMonth": "12", "expiryYear": "34", "securityCode": "123"}"#,
        #"["4111111111111111"]"#,
        "not json",
    ])
    func refuses(_ text: String) throws {
        let error = try #require(throws: CardData.Problem.self) { try CardData.parse(Array(text.utf8)) }
        #expect(!error.reason.contains("4111"))
    }

    @Test func expiryIsValidThroughTheEndOfTheMonth() throws {
        let card = try CardData.parse(Array(Self.valid.utf8))  // 12/34
        // 2034-12-31T23:59:59Z and 2035-01-01T00:00:00Z as seconds since 1970 (hand-computed with `date -u -d`).
        #expect(!card.isExpired(at: Date(timeIntervalSince1970: 2_051_222_399)))
        #expect(card.isExpired(at: Date(timeIntervalSince1970: 2_051_222_400)))
    }
}
