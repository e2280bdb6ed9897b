internal import COpenSSL
internal import EGWWire

/// Size limits the package enforces on RSA keys.
enum RSAKeyLimits {
    /// Keys under this many bits are refused on import and generation.
    static let minimumBits = 2048
    /// Keys over this many bits are refused on import (decryption cost grows with the cube of the size).
    static let maximumBits = 8192
    /// Sizes ``RSAPrivateKey/generate(bits:kid:)`` accepts.
    static let generatableBits: Set<Int> = [2048, 3072, 4096]
}

/// What an imported key will be used for: the JWK's `use` and `key_ops` must allow it.
enum RSAKeyPurpose {
    /// Encrypting to the key (public key import): `key_ops`, when present, must hold `wrapKey` or `encrypt`.
    case encryption
    /// Decrypting with the key (private key import): `key_ops`, when present, must hold `unwrapKey` or `decrypt`.
    case decryption

    var name: String { self == .encryption ? "encryption" : "decryption" }
    /// The `key_ops` values (RFC 7517 section 4.3) that allow this purpose.
    var operations: Set<String> { self == .encryption ? ["wrapKey", "encrypt"] : ["unwrapKey", "decrypt"] }
}

/// The members of an RSA JWK (RFC 7518 section 6.3), decoded from base64url, checked for form.
struct RSAJWKComponents {
    var n: [UInt8]
    var e: [UInt8]
    var kid: String?
    /// d, p, q, dp, dq, qi when present (p..qi all or none).
    var d: [UInt8]?
    var crt: (p: [UInt8], q: [UInt8], dp: [UInt8], dq: [UInt8], qi: [UInt8])?

    mutating func wipe() {
        // In place (not through a copy, which would wipe a copy-on-write duplicate instead).
        if d != nil { Crypto.wipe(&d!) }
        if crt != nil {
            Crypto.wipe(&crt!.p)
            Crypto.wipe(&crt!.q)
            Crypto.wipe(&crt!.dp)
            Crypto.wipe(&crt!.dq)
            Crypto.wipe(&crt!.qi)
            crt = nil
        }
    }

    /// Parses the JSON text of one RSA JWK for `purpose`. `requirePrivate` demands `d` and reads the private
    /// members; without it they are checked as strict JSON strings and never decoded.
    ///
    /// The text is scanned shallowly: a public member is built alone when read, and a private member is
    /// decoded from the text into a buffer reserved at its final size, wiped when its bytes are decoded. No
    /// private member becomes a `String`, and no buffer that held one is released unwiped.
    static func parse(
        _ text: String, requirePrivate: Bool, purpose: RSAKeyPurpose
    ) throws(JWEError) -> RSAJWKComponents {
        var bytes = Array(text.utf8)
        defer { Crypto.wipe(&bytes) }
        return try parse(bytes, requirePrivate: requirePrivate, purpose: purpose)
    }

    /// Parses the UTF-8 of one RSA JWK for `purpose`, as ``parse(_:requirePrivate:purpose:)-(String,_,_)``
    /// does, reading `bytes` in place (the caller wipes them).
    static func parse(
        _ bytes: [UInt8], requirePrivate: Bool, purpose: RSAKeyPurpose
    ) throws(JWEError) -> RSAJWKComponents {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JWEError) -> RSAJWKComponents in
            let document: JSONShallowDocument
            do throws(JSONSyntaxError) {
                document = try StrictJSONParser.scanShallow(buffer)
            } catch {
                throw JWEError(.malformed, "the JWK is not strict JSON: \(error.escapedDescription)")
            }
            guard document.kind == .object else { throw JWEError(.malformed, "the JWK is not a JSON object") }
            return try parse(.text(buffer, document), requirePrivate: requirePrivate, purpose: purpose)
        }
    }

    /// Reads one RSA JWK already parsed strictly (``StrictJSONParser``) for `purpose`. `requirePrivate`
    /// demands `d` and reads the private members; without it they are not touched.
    static func parse(
        _ value: JSONValue, requirePrivate: Bool, purpose: RSAKeyPurpose
    ) throws(JWEError) -> RSAJWKComponents {
        guard case .object = value else { throw JWEError(.malformed, "the JWK is not a JSON object") }
        return try parse(.value(value), requirePrivate: requirePrivate, purpose: purpose)
    }

    private static func parse(
        _ members: JWKMembers, requirePrivate: Bool, purpose: RSAKeyPurpose
    ) throws(JWEError) -> RSAJWKComponents {
        func string(_ name: String) throws(JWEError) -> String? {
            switch try members.value(name) {
            case nil: return nil
            case .string(let text)?: return text
            case _?: throw JWEError(.invalidKey, "JWK member \"\(name)\" is not a string")
            }
        }
        func integer(_ name: String, required: Bool) throws(JWEError) -> [UInt8]? {
            guard let text = try string(name) else {
                if required { throw JWEError(.invalidKey, "JWK member \"\(name)\" is missing") }
                return nil
            }
            guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
                throw JWEError(.invalidKey, "JWK member \"\(name)\" is not unpadded base64url of a non-empty value")
            }
            return bytes
        }
        func secret(_ name: String, required: Bool) throws(JWEError) -> [UInt8]? {
            guard var bytes = try members.secret(name) else {
                if required { throw JWEError(.invalidKey, "JWK member \"\(name)\" is missing") }
                return nil
            }
            guard !bytes.isEmpty else {
                Crypto.wipe(&bytes)
                throw JWEError(.invalidKey, "JWK member \"\(name)\" is not unpadded base64url of a non-empty value")
            }
            return bytes
        }

        guard let kty = try string("kty") else { throw JWEError(.invalidKey, "JWK member \"kty\" is missing") }
        guard kty == "RSA" else {
            throw JWEError(.invalidKey, "JWK kty is \(UntrustedText.quoted(kty)), expected \"RSA\"")
        }
        if let alg = try string("alg"), alg != JWEPolicy.keyManagementAlgorithm {
            throw JWEError(.unsupportedAlgorithm, "the JWK is for \(UntrustedText.quoted(alg)), not RSA-OAEP-256")
        }
        if let use = try string("use"), use != "enc" {
            throw JWEError(
                .invalidKey,
                "the JWK's use is \(UntrustedText.quoted(use)), which forbids \(purpose.name); expected \"enc\"")
        }
        if let operations = try members.value("key_ops") {
            // RFC 7517 section 4.3: an array of distinct strings.
            guard case .array(let elements) = operations else {
                throw JWEError(.invalidKey, "the JWK's key_ops is not an array of strings")
            }
            var names: [String] = []
            for element in elements {
                guard case .string(let name) = element, !names.contains(name) else {
                    throw JWEError(.invalidKey, "the JWK's key_ops must be distinct strings")
                }
                names.append(name)
            }
            guard names.contains(where: purpose.operations.contains) else {
                let listed = names.map(UntrustedText.quoted).joined(separator: ",")
                throw JWEError(
                    .invalidKey,
                    "the JWK's key_ops [\(listed)] forbid \(purpose.name); it needs "
                        + purpose.operations.sorted().map { "\"\($0)\"" }.joined(separator: " or "))
            }
        }
        if members.contains("oth") {
            throw JWEError(.invalidKey, "multi-prime RSA keys (\"oth\") are not supported")
        }
        let kid = try string("kid")
        let n = try integer("n", required: true)!
        let e = try integer("e", required: true)!
        guard n[0] != 0 else {
            throw JWEError(.invalidKey, "JWK \"n\" has a leading zero octet (RFC 7518 section 6.3.1.1 forbids it)")
        }
        guard e[0] != 0 else { throw JWEError(.invalidKey, "JWK \"e\" has a leading zero octet") }
        let bits = (n.count - 1) * 8 + (8 - n[0].leadingZeroBitCount)
        guard bits >= RSAKeyLimits.minimumBits else {
            throw JWEError(
                .keyTooSmall, "the RSA key has \(bits) bits; at least \(RSAKeyLimits.minimumBits) are required")
        }
        guard bits <= RSAKeyLimits.maximumBits else {
            throw JWEError(
                .invalidKey, "the RSA key has \(bits) bits; at most \(RSAKeyLimits.maximumBits) are supported")
        }
        guard n[n.count - 1] & 1 == 1 else { throw JWEError(.invalidKey, "the RSA modulus is even") }
        guard e.count <= 8, e[e.count - 1] & 1 == 1, e.count > 1 || e[0] >= 3 else {
            throw JWEError(.invalidKey, "the RSA public exponent must be odd, at least 3 and at most 64 bits")
        }

        var components = RSAJWKComponents(n: n, e: e, kid: kid, d: nil, crt: nil)
        // A public import leaves the private members as they are: checked as JSON strings, never decoded.
        guard requirePrivate else { return components }
        components.d = try secret("d", required: true)
        // Decoded one by one; on any refusal every private value decoded so far is wiped in place.
        var factors: [[UInt8]] = []
        factors.reserveCapacity(5)
        do throws(JWEError) {
            // RFC 8017 section 3.2: 0 < d < n (a d past n still decrypts, but no conforming key has one).
            guard isBelow(components.d!, n), components.d!.contains(where: { $0 > 1 }) else {
                throw JWEError(.invalidKey, "the RSA private exponent d is not between 1 and n")
            }
            var absent = 0
            for name in ["p", "q", "dp", "dq", "qi"] {
                if let value = try secret(name, required: false) { factors.append(value) } else { absent += 1 }
            }
            guard absent == 0 || factors.isEmpty else {
                throw JWEError(.invalidKey, "JWK CRT members p, q, dp, dq, qi must be all present or all absent")
            }
        } catch {
            for index in factors.indices { Crypto.wipe(&factors[index]) }
            components.wipe()
            throw error
        }
        if factors.count == 5 {
            components.crt = (factors[0], factors[1], factors[2], factors[3], factors[4])
            // The tuple's arrays must be their buffers' only references, or its in-place wipe would copy them.
            factors.removeAll()
        }
        return components
    }
    /// Whether the big-endian unsigned integer `value` is less than `bound` (leading zero octets allowed).
    /// Runs in time that depends only on the two lengths.
    static func isBelow(_ value: [UInt8], _ bound: [UInt8]) -> Bool {
        let width = max(value.count, bound.count)
        // Scanned from the most significant octet: the first difference decides.
        var decided = false
        var below = false
        for position in 0..<width {
            let a = position < width - value.count ? 0 : value[position - (width - value.count)]
            let b = position < width - bound.count ? 0 : bound[position - (width - bound.count)]
            let differs = a != b
            below = decided ? below : (differs && a < b)
            decided = decided || differs
        }
        return below
    }
}

/// Where an RSA JWK's members are read from.
private enum JWKMembers {
    /// A value EGWWire already built: its strings, private members included, exist already (the caller's).
    case value(JSONValue)
    /// The JWK's text, scanned shallowly (every member checked, none built).
    case text(UnsafeBufferPointer<UInt8>, JSONShallowDocument)

    func contains(_ name: String) -> Bool {
        switch self {
        case .value(let value): value[member: name] != nil
        case .text(_, let document): document[name] != nil
        }
    }

    /// A public member's value, built alone.
    func value(_ name: String) throws(JWEError) -> JSONValue? {
        switch self {
        case .value(let value):
            return value[member: name]
        case .text(let bytes, let document):
            guard let range = document[name]?.valueRange else { return nil }
            do {
                return try StrictJSONParser.parse(UnsafeBufferPointer(rebasing: bytes[range]))
            } catch {
                throw JWEError(.malformed, "the JWK is not strict JSON: \(error.escapedDescription)")
            }
        }
    }

    /// A private member's bytes, base64url-decoded; nil when absent. From text, the characters go straight
    /// into a buffer reserved at their count and wiped once decoded.
    func secret(_ name: String) throws(JWEError) -> [UInt8]? {
        let notBase64URL = JWEError(
            .invalidKey, "JWK member \"\(name)\" is not unpadded base64url of a non-empty value")
        switch self {
        case .value(let value):
            switch value[member: name] {
            case nil: return nil
            case .string(let text)?:
                guard let bytes = Base64URL.decode(text) else { throw notBase64URL }
                return bytes
            case _?: throw JWEError(.invalidKey, "JWK member \"\(name)\" is not a string")
            }
        case .text(let bytes, let document):
            guard let member = document[name] else { return nil }
            guard let quote = member.stringStart, let range = member.valueRange else {
                throw JWEError(.invalidKey, "JWK member \"\(name)\" is not a string")
            }
            // The encoded length bounds the decoded characters (an escape only shrinks).
            var text = Base64URLCharacters(capacity: range.count - 2)
            defer { Crypto.wipe(&text.bytes) }
            do {
                try StrictJSONParser.decodeString(at: quote, in: bytes, into: &text)
            } catch {
                throw JWEError(.malformed, "the JWK is not strict JSON: \(error.escapedDescription)")
            }
            guard text.isASCII,
                let decoded = text.bytes.withUnsafeBufferPointer({ Base64URL.decode($0) })
            else { throw notBase64URL }
            return decoded
        }
    }
}

/// A base64url member's characters, kept in one buffer reserved at its final size.
private struct Base64URLCharacters: JSONScalarSink {
    var bytes: [UInt8]
    /// False once a character outside ASCII (never base64url) or past the reserved size arrived.
    var isASCII = true

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ scalar: Unicode.Scalar) {
        guard scalar.isASCII, bytes.count < bytes.capacity else {
            isASCII = false
            return
        }
        bytes.append(UInt8(scalar.value))
    }
}

/// Builds and checks `EVP_PKEY` values.
enum RSAKeyFactory {
    // EVP_PKEY_PUBLIC_KEY and EVP_PKEY_KEYPAIR are nested macros Swift cannot import.
    private static let selectPublic = Int32(OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
    private static let selectKeyPair = selectPublic | Int32(OSSL_KEYMGMT_SELECT_PRIVATE_KEY)

    /// An `EVP_PKEY` from JWK components: public when `includePrivate` is false or `d` is absent.
    static func makeKey(_ components: RSAJWKComponents, includePrivate: Bool) throws(JWEError) -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "OSSL_PARAM_BLD_new failed")
        }
        defer { OSSL_PARAM_BLD_free(builder) }
        var bignums: [OpaquePointer] = []
        defer { for bignum in bignums { BN_clear_free(bignum) } }

        // The builder keeps the name pointer until OSSL_PARAM_BLD_to_param: only static C strings will do.
        func push(_ name: StaticString, _ bytes: [UInt8]) throws(JWEError) {
            guard let bignum = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) })
            else { throw OpenSSLErrorQueue.error(.internalFailure, "BN_bin2bn failed") }
            bignums.append(bignum)
            let cName = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
            guard OSSL_PARAM_BLD_push_BN(builder, cName, bignum) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "OSSL_PARAM_BLD_push_BN failed")
            }
        }
        try push("n", components.n)
        try push("e", components.e)
        let isPrivate = includePrivate && components.d != nil
        if isPrivate, let d = components.d {
            try push("d", d)
            if let crt = components.crt {
                try push("rsa-factor1", crt.p)
                try push("rsa-factor2", crt.q)
                try push("rsa-exponent1", crt.dp)
                try push("rsa-exponent2", crt.dq)
                try push("rsa-coefficient1", crt.qi)
            }
        }
        guard let params = OSSL_PARAM_BLD_to_param(builder) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "OSSL_PARAM_BLD_to_param failed")
        }
        // The params hold copies of the private BIGNUMs: cleared before they are freed. (OSSL_PARAM_clear_free is
        // OpenSSL 3.2; Debian 12 ships 3.0, so each value is cleansed here, then the array is freed.)
        defer {
            var param = params
            while param.pointee.key != nil {
                if let data = param.pointee.data { OPENSSL_cleanse(data, param.pointee.data_size) }
                param += 1
            }
            OSSL_PARAM_free(params)
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_new_from_name(RSA) failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer? = nil
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &pkey, isPrivate ? selectKeyPair : selectPublic, params) == 1,
            let pkey
        else {
            throw OpenSSLErrorQueue.error(.invalidKey, "OpenSSL refused the RSA key parameters")
        }
        let key = EVPKey(taking: pkey, isPrivate: isPrivate)
        if isPrivate && components.crt == nil {
            // OpenSSL's pairwise check needs p and q; without them a trial round trip proves n, e, d agree.
            try trialRoundTrip(key)
        } else {
            try check(key)
        }
        return key
    }

    /// Encrypts 32 random bytes with the public half and decrypts them with the private half.
    static func trialRoundTrip(_ key: EVPKey) throws(JWEError) {
        let encryptor = try CryptoWorkspace(key: key, direction: .encrypt)
        let decryptor = try CryptoWorkspace(key: key, direction: .decrypt)
        let probe = try MessageSecrets.forEncryption()
        guard let count = encryptor.wrap(probe.cek, count: MessageSecrets.cekCount) else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the RSA public key cannot encrypt")
        }
        let unwrapped = decryptor.unwrap(
            UnsafeBufferPointer(
                start: encryptor.block.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count))
        let matches =
            unwrapped == MessageSecrets.cekCount
            && memcmp(probe.cek, decryptor.block.baseAddress!, MessageSecrets.cekCount) == 0
        probe.wipe()
        decryptor.wipe()
        guard matches else {
            throw JWEError(.invalidKey, "the private exponent does not match the public key")
        }
    }

    /// Refuses keys whose parameters are inconsistent (for key pairs: n = p·q, d·e ≡ 1, CRT values).
    static func check(_ key: EVPKey) throws(JWEError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        let result = key.isPrivate ? EVP_PKEY_pairwise_check(context) : EVP_PKEY_public_check(context)
        guard result == 1 else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the RSA key fails OpenSSL's consistency check")
        }
    }

    /// Checks type and size of a key read from PEM or generated.
    static func checkTypeAndSize(_ key: EVPKey) throws(JWEError) {
        guard EVP_PKEY_is_a(key.pointer, "RSA") == 1 else {
            throw JWEError(.invalidKey, "the key is not an RSA key (RSA-PSS and other types are refused)")
        }
        guard key.bitCount >= RSAKeyLimits.minimumBits else {
            throw JWEError(
                .keyTooSmall, "the RSA key has \(key.bitCount) bits; at least \(RSAKeyLimits.minimumBits) are required")
        }
        guard key.bitCount <= RSAKeyLimits.maximumBits else {
            throw JWEError(
                .invalidKey, "the RSA key has \(key.bitCount) bits; at most \(RSAKeyLimits.maximumBits) are supported")
        }
    }

    /// Reads a PEM block whose first `BEGIN` label must be `label`.
    static func readPEM(_ text: String, label: String, isPrivate: Bool) throws(JWEError) -> EVPKey {
        var bytes = Array(text.utf8)
        // Wiped on every path, refusals included (a private key may sit under the wrong label).
        defer { Crypto.wipe(&bytes) }
        return try readPEM(bytes, label: label, isPrivate: isPrivate)
    }

    /// Reads a PEM block from its bytes, in place (the caller wipes them); see ``readPEM(_:label:isPrivate:)``.
    static func readPEM(_ bytes: [UInt8], label: String, isPrivate: Bool) throws(JWEError) -> EVPKey {
        let expected = "-----BEGIN \(label)-----"
        let marker = Array("-----BEGIN ".utf8)
        guard let begin = bytes.indices.first(where: { bytes[$0...].starts(with: marker) }) else {
            throw JWEError(.malformed, "no PEM block found; expected \(expected)")
        }
        guard bytes[begin...].starts(with: expected.utf8) else {
            throw JWEError(.malformed, "the PEM block is not \(expected)")
        }
        // The memory BIO reads the array's storage in place: the whole read happens while it is pinned.
        let read: (bio: Bool, key: OpaquePointer?) = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return (false, nil) }
            defer { BIO_free(bio) }
            if isPrivate {
                // A non-nil passphrase (empty) so OpenSSL never prompts on a terminal.
                var empty: CChar = 0
                return (true, PEM_read_bio_PrivateKey(bio, nil, nil, &empty))
            }
            return (true, PEM_read_bio_PUBKEY(bio, nil, nil, nil))
        }
        guard read.bio else { throw OpenSSLErrorQueue.error(.internalFailure, "BIO_new_mem_buf failed") }
        guard let pkey = read.key else {
            throw OpenSSLErrorQueue.error(.malformed, "OpenSSL cannot read the \(label) PEM")
        }
        let key = EVPKey(taking: pkey, isPrivate: isPrivate)
        try checkTypeAndSize(key)
        try check(key)
        return key
    }

    /// PEM text of `key` (SPKI `PUBLIC KEY` or PKCS#8 `PRIVATE KEY`).
    static func writePEM(_ key: EVPKey, isPrivate: Bool) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        let ok =
            isPrivate
            ? PEM_write_bio_PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil)
            : PEM_write_bio_PUBKEY(bio, key.pointer)
        guard ok == 1 else {
            OpenSSLErrorQueue.discard()
            return ""
        }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard length > 0, let data else { return "" }
        let text = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        if isPrivate { OPENSSL_cleanse(data, length) }
        return text
    }

    /// A fresh RSA key pair of `bits` bits.
    static func generate(bits: Int) throws(JWEError) -> EVPKey {
        guard bits >= RSAKeyLimits.minimumBits else {
            throw JWEError(
                .keyTooSmall, "\(bits)-bit RSA keys are refused; at least \(RSAKeyLimits.minimumBits) are required")
        }
        guard RSAKeyLimits.generatableBits.contains(bits) else {
            throw JWEError(.invalidKey, "RSA keys are generated with 2048, 3072 or 4096 bits, not \(bits)")
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_new_from_name(RSA) failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1,
            EVP_PKEY_generate(context, &pkey) == 1,
            let pkey
        else {
            throw OpenSSLErrorQueue.error(.internalFailure, "RSA key generation failed")
        }
        return EVPKey(taking: pkey, isPrivate: true)
    }

    /// RFC 7638 thumbprint of an RSA public key: base64url(SHA-256(`{"e":…,"kty":"RSA","n":…}`)).
    static func thumbprint(n: [UInt8], e: [UInt8]) throws(JWEError) -> String {
        let canonical = "{\"e\":\"\(Base64URL.encode(e))\",\"kty\":\"RSA\",\"n\":\"\(Base64URL.encode(n))\"}"
        return Base64URL.encode(try Crypto.sha256(Array(canonical.utf8)))
    }
}
