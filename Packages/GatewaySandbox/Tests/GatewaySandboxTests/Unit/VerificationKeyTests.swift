import Foundation
import Testing

@testable import GatewaySandbox

/// Verification keys are secrets: they come from the system's random source, not from the seeded generator
/// that makes ids replayable (anyone who knows the seed, 1 by default, could replay those).
@Suite struct VerificationKeyTests {
    static func sandbox(seed: UInt64) throws -> Sandbox {
        try Sandbox(configuration: .init(seed: seed), keys: JWECardKeys(key: TestKeys.shared))
    }

    /// Issue 34: payment ids are random per sandbox (they repeated across fresh sandboxes with one seed).
    @Test func twoSandboxesWithOneSeedShareNeitherPaymentIdsNorKeys() throws {
        let first = try Self.sandbox(seed: 1)
        let second = try Self.sandbox(seed: 1)
        defer {
            first.stop()
            second.stop()
        }
        let a = (0..<3).map { _ in first.createPayment() }
        let b = (0..<3).map { _ in second.createPayment() }
        #expect(Set(a.map(\.paymentId) + b.map(\.paymentId)).count == 6, "no payment id repeats")
        for (x, y) in zip(a, b) {
            #expect(x.verificationKey != y.verificationKey)
        }
        // "pay_" and 10 random bytes in lower-case hex.
        for id in a.map(\.paymentId) {
            #expect(id.hasPrefix("pay_") && id.count == 24)
            #expect(id.dropFirst(4).allSatisfy { "0123456789abcdef".contains($0) })
        }
        #expect(Set(a.map(\.verificationKey)).count == 3)
        // "vk_" and 16 random bytes in lower-case hex.
        for key in a.map(\.verificationKey) {
            #expect(key.hasPrefix("vk_") && key.count == 35)
            #expect(key.dropFirst(3).allSatisfy { "0123456789abcdef".contains($0) })
        }
    }

    /// The key is exactly the bytes of the injected source (the live one is the system's).
    @Test func theKeyIsTheSourcesBytes() {
        var settings = SandboxSettings(
            seed: 1, keyMaxAge: 300, bodyLimit: 1 << 16, now: { Date() }, sleep: { _ in })
        settings.secretBytes = { count in (0..<count).map { UInt8($0 * 17) } }
        let core = SandboxCore(settings: settings, keys: JWECardKeys(key: TestKeys.shared))
        let record = core.makePayment(amount: 100, currency: "EUR", orderNumber: nil, shopRedirectURL: nil)
        #expect(record.verificationKey == "vk_00112233445566778899aabbccddeeff")
        #expect(record.id == "pay_00112233445566778899")
        // A source that repeats itself still gives unique ids.
        let again = core.makePayment(amount: 100, currency: "EUR", orderNumber: nil, shopRedirectURL: nil)
        #expect(again.id != record.id && again.id.hasPrefix(record.id))
    }
}
