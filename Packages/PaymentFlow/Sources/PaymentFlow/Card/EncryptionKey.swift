import Foundation
internal import JWE

/// The gateway's card-encryption key, as the card flow uses it: the imported
/// public key and a reusable encrypter (which keeps prepared OpenSSL
/// contexts between messages). Compared by key and `kid`.
struct EncryptionKey: Equatable, Sendable {
    let publicKey: RSAPublicKey
    let encrypter: JWEEncrypter

    init(_ publicKey: RSAPublicKey) {
        self.publicKey = publicKey
        self.encrypter = JWEEncrypter(recipient: publicKey)
    }

    /// The `kid` the JWE protected header carries.
    var kid: String? { publicKey.kid }
    /// The modulus size.
    var bitCount: Int { publicKey.bitCount }

    static func == (a: EncryptionKey, b: EncryptionKey) -> Bool { a.publicKey == b.publicKey }
}
