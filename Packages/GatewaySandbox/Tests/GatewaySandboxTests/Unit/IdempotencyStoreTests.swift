import Foundation
import Testing

@testable import GatewaySandbox

/// The `Idempotency-Key` store as a value: requests in, decisions out, no network.
@Suite struct IdempotencyStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_900_000_000)
    static let scope = IdempotencyStore.Scope(paymentId: "pay_1", key: "k")

    static func digest(_ body: String, path: String = "/p") -> RequestDigest {
        RequestDigest(method: "POST", path: path, body: Array(body.utf8))!
    }

    static func answer(_ status: Int, _ body: String = "{}") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
    }

    /// What `admit` decided, without the stored answer's details.
    static func kind(_ admission: IdempotencyStore.Admission) -> String {
        switch admission {
        case .handle: "handle"
        case .replay(let answer): "replay \(answer.status) \(String(decoding: answer.body, as: UTF8.self))"
        case .inProgress: "in progress"
        case .keyReused: "reused"
        }
    }

    @Test func firstHandledThenReplayedWhileTheKeyIsHeld() {
        var store = IdempotencyStore()
        let d = Self.digest("a")
        #expect(Self.kind(store.admit(Self.scope, digest: d, now: Self.t0)) == "handle")
        #expect(Self.kind(store.admit(Self.scope, digest: d, now: Self.t0)) == "in progress")
        #expect(Self.kind(store.admit(Self.scope, digest: Self.digest("b"), now: Self.t0)) == "reused")
        store.finish(Self.scope, answer: Self.answer(201, #"{"id":1}"#), now: Self.t0)
        #expect(Self.kind(store.admit(Self.scope, digest: d, now: Self.t0)) == #"replay 201 {"id":1}"#)
        #expect(Self.kind(store.admit(Self.scope, digest: Self.digest("a", path: "/q"), now: Self.t0)) == "reused")
        // Another payment, the same key: another request.
        let other = IdempotencyStore.Scope(paymentId: "pay_2", key: "k")
        #expect(Self.kind(store.admit(other, digest: d, now: Self.t0)) == "handle")
    }

    @Test func keptFor24HoursFromWhenTheAnswerWasStored() {
        var store = IdempotencyStore()
        let d = Self.digest("a")
        _ = store.admit(Self.scope, digest: d, now: Self.t0)
        store.finish(Self.scope, answer: Self.answer(200), now: Self.t0 + 5)
        #expect(Self.kind(store.admit(Self.scope, digest: d, now: Self.t0 + 5 + 86_399)) == "replay 200 {}")
        #expect(Self.kind(store.admit(Self.scope, digest: Self.digest("b"), now: Self.t0 + 5 + 86_400)) == "handle")
        #expect(store.count == 1)
    }

    @Test func expiredAnswersOfOtherKeysAreSweptHourly() {
        var store = IdempotencyStore()
        for key in ["a", "b", "c"] {
            let scope = IdempotencyStore.Scope(paymentId: "pay_1", key: key)
            _ = store.admit(scope, digest: Self.digest(key), now: Self.t0)
            store.finish(scope, answer: Self.answer(201), now: Self.t0)
        }
        let held = IdempotencyStore.Scope(paymentId: "pay_1", key: "held")
        _ = store.admit(held, digest: Self.digest("held"), now: Self.t0 + 86_400 - 1)
        #expect(store.count == 4)
        // Expired, but the last sweep (at the admission of "held") was less than an hour ago.
        let late = IdempotencyStore.Scope(paymentId: "pay_2", key: "late")
        #expect(Self.kind(store.admit(late, digest: Self.digest("x"), now: Self.t0 + 86_400)) == "handle")
        #expect(store.count == 5)
        // An hour later: the stored answers are swept; the keys still being handled are kept.
        let later = Self.t0 + 86_399 + 3_600
        #expect(Self.kind(store.admit(held, digest: Self.digest("held"), now: later)) == "in progress")
        #expect(store.count == 2)
    }

    @Test(arguments: [(200, true), (201, true), (303, true), (400, false), (401, false), (409, false), (422, false)])
    func onlyAppliedAnswersAreKept(_ status: Int, _ kept: Bool) {
        var store = IdempotencyStore()
        let d = Self.digest("a")
        _ = store.admit(Self.scope, digest: d, now: Self.t0)
        store.finish(Self.scope, answer: Self.answer(status), now: Self.t0)
        #expect(IdempotencyStore.keepsAnswer(status: status) == kept)
        #expect(
            Self.kind(store.admit(Self.scope, digest: d, now: Self.t0)) == (kept ? "replay \(status) {}" : "handle"))
    }

    @Test func sha256MatchesTheFIPSExamples() {
        // FIPS 180-2 appendix B.1 ("abc") and the digest of the empty message.
        #expect(
            RequestDigest.sha256(Array("abc".utf8)).map(Self.hex)
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            RequestDigest.sha256([]).map(Self.hex)
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func theDigestSeparatesMethodPathAndBodyAndHoldsNoBody() throws {
        let body = Array(#"{"encryptedCard": "eyJhbGciOi..."}"#.utf8)
        let digest = try #require(RequestDigest(method: "POST", path: "/a", body: body))
        #expect(digest.bytes.count == 32)
        #expect(digest != RequestDigest(method: "POST", path: "/ab", body: []))
        #expect(
            RequestDigest(method: "POST", path: "/a", body: Array("b".utf8))
                != RequestDigest(method: "POST", path: "/ab", body: []))
        #expect(digest == RequestDigest(method: "POST", path: "/a", body: body))
        #expect(digest.description.count == 64)
        #expect(!digest.description.contains("eyJ"))
    }

    @Test(arguments: [
        ("", false), ("a", true), (String(repeating: "x", count: 255), true),
        (String(repeating: "x", count: 256), false),
        ("tab\there", false), ("del\u{7F}", false), ("nel\u{85}", false),
        ("0f8fad5b-d9cb-469f-a165-70867728950e", true),
        ("with space", true),
    ])
    func keyValidation(_ key: String, _ accepted: Bool) {
        #expect((SandboxCore.idempotencyKeyProblem(key) == nil) == accepted)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
