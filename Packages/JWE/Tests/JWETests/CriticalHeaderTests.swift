import Testing

@testable import JWE

/// `crit` names are compared scalar by scalar, as EGWWire's parser compares member names: "K" (U+004B) and
/// U+212A KELVIN SIGN are two names, although Swift's `String ==` calls them equal. A header that passes the
/// policy reaches the cryptography, which then fails (the vector's tag does not cover the replaced header):
/// `.decryptionFailed` says "the policy accepted it", `.malformed` or `.unsupportedAlgorithm` that it did not.
@Suite("Critical header names")
struct CriticalHeaderTests {
    static let kelvin = "\u{212A}"

    static func verdict(header json: String, understood: Set<String>) throws -> JWEError.Code? {
        let token = try UntrustedTextTests.token(header: json)
        let key = try UntrustedTextTests.decrypter().key
        let decrypter = JWEDecrypter(key: key, policy: JWEPolicy(understoodCriticalParameters: understood))
        return errorCode { () throws(JWEError) in try decrypter.decrypt(token) }
    }

    /// `crit` lists "K" but the header holds only the Kelvin sign: "K" is not present.
    @Test func aCritNameMustBePresentScalarForScalar() throws {
        let header = #"{"alg":"RSA-OAEP-256","enc":"A256GCM","crit":["K"],"\u212a":1}"#
        #expect(try Self.verdict(header: header, understood: ["K"]) == .malformed)
        let present = #"{"alg":"RSA-OAEP-256","enc":"A256GCM","crit":["K"],"K":1}"#
        #expect(try Self.verdict(header: present, understood: ["K"]) == .decryptionFailed)
    }

    /// The policy understands "K"; a Kelvin sign in `crit` is another, not understood, name.
    @Test func anUnderstoodNameMatchesScalarForScalar() throws {
        let header = #"{"alg":"RSA-OAEP-256","enc":"A256GCM","crit":["\u212a"],"\u212a":1}"#
        #expect(try Self.verdict(header: header, understood: ["K"]) == .unsupportedAlgorithm)
        #expect(try Self.verdict(header: header, understood: [Self.kelvin]) == .decryptionFailed)
    }

    /// "K" and the Kelvin sign are distinct names, both present: the list holds no duplicate, so the verdict
    /// is about the one the policy does not understand.
    @Test func twoNamesThatAreCanonicallyEquivalentAreDistinct() throws {
        let header = #"{"alg":"RSA-OAEP-256","enc":"A256GCM","crit":["K","\u212a"],"K":1,"\u212a":2}"#
        #expect(try Self.verdict(header: header, understood: ["K"]) == .unsupportedAlgorithm)
        let twice = #"{"alg":"RSA-OAEP-256","enc":"A256GCM","crit":["K","K"],"K":1}"#
        #expect(try Self.verdict(header: twice, understood: ["K"]) == .malformed)
    }
}
