import Foundation
import JWE
import Synchronization
import Testing

@testable import GatewaySandbox

extension HTTPTests {
    /// The card-encryption key under concurrent card-session creation and rotation.
    @Suite struct CardKeys {
        /// Cards whose session status at creation GATEWAY.md's table fixes.
        static let cards: [(number: String, status: String)] = [
            ("4111111111111111", "AUTHENTICATION_REQUIRED"), ("5200828282828210", "COMPLETED"),
            ("4000000000000002", "FAILED"), ("5555555555554444", "AUTHENTICATION_REQUIRED"),
        ]

        /// Creates one session per flow at once, each flow with the card `cards[index % cards.count]`,
        /// sealed to `key`; returns the responses by flow.
        static func createConcurrently(_ flows: [CardFlow], to key: RSAPublicKey) throws -> [Int: RawResponse] {
            let tokens = try flows.enumerated().map { index, flow in
                try flow.seal(CardFlow.cardJSON(cards[index % cards.count].number), to: key)
            }
            let responses = Mutex<[Int: RawResponse]>([:])
            DispatchQueue.concurrentPerform(iterations: flows.count) { index in
                if let response = try? flows[index].create(encryptedCard: tokens[index]) {
                    responses.withLock { $0[index] = response }
                }
            }
            return responses.withLock { $0 }
        }

        @Test func concurrentCreationsDecryptAndRotationRefusesTheOldKid() throws {
            let keys = JWECardKeys(key: TestKeys.shared)
            let gateway = try TestGateway(keys: keys)
            let flows = (0..<24).map { _ in CardFlow(gateway) }
            let oldKey = try flows[0].fetchKey()
            let before = try Self.createConcurrently(flows, to: oldKey)
            for (index, flow) in flows.enumerated() {
                let card = Self.cards[index % Self.cards.count]
                #expect(before[index]?.status == 201)
                #expect(before[index]?.sessionStatus == card.status)
                #expect(
                    gateway.sandbox.cardSessions(paymentId: flow.payment.paymentId).map(\.last4)
                        == [String(card.number.suffix(4))])
            }

            #expect(keys.decryptersBuilt == 1)  // one decrypter for the key, not one per request

            gateway.sandbox.rotateKey()
            #expect(keys.decryptersBuilt == 2)
            let newKey = try flows[0].fetchKey()
            #expect(newKey.kid != oldKey.kid)
            let again = (0..<24).map { _ in CardFlow(gateway) }
            let stale = try Self.createConcurrently(again, to: oldKey)
            for index in again.indices {
                #expect(stale[index]?.status == 422)
                #expect(stale[index]?.errorCode == "UNKNOWN_KEY")
                let message = ((try stale[index]?.json())?["error"] as? [String: Any])?["message"] as? String
                #expect(
                    message
                        == "the card was encrypted to key \"\(oldKey.kid ?? "")\", which is not the current key; fetch the key again"
                )
            }
            let fresh = try Self.createConcurrently(again, to: newKey)
            for index in again.indices {
                #expect(fresh[index]?.status == 201)
                #expect(fresh[index]?.sessionStatus == Self.cards[index % Self.cards.count].status)
            }
            #expect(keys.decryptersBuilt == 2)
        }
    }
}
