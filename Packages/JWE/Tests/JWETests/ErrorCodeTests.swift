import Testing

@testable import JWE

/// `JWEError.Code` is a struct with static members (codes can be added without breaking callers' switches);
/// names, raw values and pattern matching stay what they were when it was an enum.
@Suite("Error codes")
struct ErrorCodeTests {
    @Test func namesAndRawValuesAreStable() {
        #expect(
            JWEError.Code.allCases.map(\.rawValue) == [
                "malformed", "unsupportedAlgorithm", "keyTooSmall", "invalidKey", "decryptionFailed", "tooLarge",
                "internalFailure",
            ])
        for code in JWEError.Code.allCases {
            #expect(JWEError.Code(rawValue: code.rawValue) == code)
            #expect(code.description == code.rawValue)
        }
        #expect(JWEError.Code(rawValue: "nope") == nil)
        #expect(Set(JWEError.Code.allCases).count == 7)
        #expect(JWEError(.tooLarge, "x").description == "JWE tooLarge: x")
    }

    @Test func matchesInASwitch() {
        func name(_ code: JWEError.Code) -> String {
            switch code {
            case .decryptionFailed: return "generic"
            case .malformed, .tooLarge: return "input"
            default: return "other"
            }
        }
        #expect(name(.decryptionFailed) == "generic")
        #expect(name(.tooLarge) == "input")
        #expect(name(.invalidKey) == "other")
    }
}
