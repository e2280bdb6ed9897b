import JWE

/// One RSA-2048 key for the tests that decrypt what the SDK encrypted.
enum JWETestKey {
    static let shared: Result<RSAPrivateKey, JWEError> = Result { () throws(JWEError) -> RSAPrivateKey in
        try RSAPrivateKey.generate(bits: 2048, kid: "test-key")
    }
    static var key: RSAPrivateKey { get throws { try shared.get() } }
}

enum JWEDecrypterBox {
    static func decrypt(_ compact: String, with key: RSAPrivateKey) throws -> [UInt8] {
        try JWEDecrypter(key: key).decrypt(compact)
    }
}
