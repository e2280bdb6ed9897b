/// Placeholder until the JWE package is wired in: serves no key and decrypts nothing.
struct UnavailableCardKeys: CardKeyService {
    var currentKid: String { "none" }
    func jwks() -> JSONValue { .object(JSONObject(["keys": .array([])])) }
    func decrypt(_ compact: String) -> Result<[UInt8], CardKeyFailure> {
        .failure(.decryptionFailed(reason: "the sandbox has no card-encryption key yet"))
    }
    func rotate() -> String { currentKid }
}

extension Sandbox {
    static func makeKeys(_ configuration: Configuration) throws(SandboxError) -> any CardKeyService {
        UnavailableCardKeys()
    }
}
