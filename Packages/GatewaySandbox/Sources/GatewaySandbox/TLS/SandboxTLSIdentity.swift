internal import CSandboxOpenSSL
import Foundation

/// What an HTTPS sandbox serves and what a client needs to trust it, as PEM text.
///
/// Make one with ``generate(hosts:lifetime:)`` (a fresh test certificate authority and a leaf
/// certificate it signs), or load one with ``load(certificateFile:keyFile:)``. The sandbox
/// makes a generated one itself when ``Sandbox/TLS`` asks for it; the type is public so that
/// tests and tools can make one ahead of time and hand it to several servers.
///
/// The private keys are test keys: ECDSA P-256, made for one run, never written to disk by the
/// sandbox. Do not use them for anything real.
public struct SandboxTLSIdentity: Sendable, Equatable {
    /// What the server sends: the leaf certificate first, then any certificates that lead to
    /// the certificate authority (a generated identity sends the leaf alone: a client holds
    /// the CA already).
    public let certificateChainPEM: String
    /// The leaf's private key (PKCS#8 PEM).
    public let privateKeyPEM: String
    /// The certificate a client trusts: the generated CA, or the last certificate of a loaded chain.
    public let certificateAuthorityPEM: String
    /// `sha256//BASE64`: the SHA-256 of the leaf's DER SubjectPublicKeyInfo, the form libcurl's
    /// `CURLOPT_PINNEDPUBLICKEY` (and `CurlTransport`'s pins) take.
    public let serverPublicKeyPin: String
    /// The same pin for the certificate authority's public key.
    public let certificateAuthorityPublicKeyPin: String
    /// The SHA-256 fingerprint of the CA certificate's DER, upper-case hex bytes joined by `:`
    /// (as `openssl x509 -fingerprint -sha256` prints it).
    public let certificateAuthoritySHA256: String

    /// The names a generated leaf certificate covers when none are given.
    public static let defaultHosts = ["127.0.0.1", "::1", "localhost"]

    /// Issues a test certificate authority and a leaf certificate for `hosts`.
    ///
    /// Both keys are fresh ECDSA P-256 keys. The CA certificate is `CA:TRUE, pathlen:0`, may
    /// only sign certificates, and is name-constrained to `hosts` (each address alone, each DNS
    /// name and its subdomains), so trusting it cannot let it vouch for any other host; the leaf is `CA:FALSE`, for `serverAuth`, with every host as a
    /// subjectAltName (an IP address entry for a numeric address, a DNS entry otherwise). Both
    /// are valid from five minutes ago (clock skew) for `lifetime`.
    ///
    /// - Parameters:
    ///   - hosts: numeric addresses and DNS names; default ``defaultHosts``.
    ///   - lifetime: how long the certificates stay valid; default one day, at most 30 days.
    /// - Throws: `SandboxError` `.invalidConfiguration` for no host, a host with a comma or a
    ///   control character, or a lifetime out of range; `.tlsUnavailable` when libcrypto fails.
    public static func generate(
        hosts: [String] = defaultHosts, lifetime: Duration = .seconds(86_400)
    ) throws(SandboxError) -> SandboxTLSIdentity {
        let seconds = lifetime.components.seconds
        guard seconds >= 60, seconds <= 30 * 86_400 else {
            throw SandboxError(.invalidConfiguration, "a test certificate lives 1 minute to 30 days")
        }
        guard !hosts.isEmpty,
            hosts.allSatisfy({ host in
                !host.isEmpty && !host.unicodeScalars.contains { $0 == "," || $0.value < 0x21 || $0.value == 0x7F }
            })
        else {
            throw SandboxError(.invalidConfiguration, "a test certificate needs host names without commas or spaces")
        }
        let alternativeNames = hosts.map { (isNumericAddress($0) ? "IP:" : "DNS:") + $0 }.joined(separator: ",")
        // The CA may vouch for exactly the names it serves (RFC 5280 name constraints): trusted by
        // mistake beyond the sandbox, it still cannot stand in for any other host.
        let permitted = hosts.map { host -> String in
            guard isNumericAddress(host) else { return "permitted;DNS:" + host }
            let mask = host.contains(":") ? "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" : "255.255.255.255"
            return "permitted;IP:\(host)/\(mask)"
        }.joined(separator: ",")

        let authorityKey = try ECKey.generate()
        let leafKey = try ECKey.generate()
        let authority = try Certificate.issue(
            subject: "EGWPay sandbox test CA", publicKey: authorityKey, lifetimeSeconds: Int(seconds),
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_name_constraints, "critical," + permitted),
                (NID_subject_key_identifier, "hash"),
            ],
            issuer: nil, issuerKey: authorityKey)
        let leaf = try Certificate.issue(
            subject: hosts[0], publicKey: leafKey, lifetimeSeconds: Int(seconds),
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_alt_name, alternativeNames),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ],
            issuer: authority, issuerKey: authorityKey)
        return try SandboxTLSIdentity(chain: [leaf], authority: authority, key: leafKey)
    }

    /// Loads a certificate chain (PEM, leaf first; the last certificate is the one clients are
    /// told to trust) and the leaf's private key (PEM, unencrypted).
    ///
    /// - Throws: `SandboxError` `.invalidConfiguration` when a file cannot be read, holds no
    ///   certificate or no key, or the key does not belong to the first certificate.
    public static func load(certificateFile: String, keyFile: String) throws(SandboxError) -> SandboxTLSIdentity {
        let certificates = try Certificate.readAll(try readText(certificateFile), from: certificateFile)
        let key = try ECKey.read(try readText(keyFile), from: keyFile)
        guard X509_check_private_key(certificates[0].pointer, key.pointer) == 1 else {
            ERR_clear_error()
            throw SandboxError(
                .invalidConfiguration, "\(keyFile) is not the key of the first certificate in \(certificateFile)")
        }
        return try SandboxTLSIdentity(chain: certificates, authority: certificates[certificates.count - 1], key: key)
    }

    private init(chain: [Certificate], authority: Certificate, key: ECKey) throws(SandboxError) {
        guard let leaf = chain.first else { throw SandboxError(.invalidConfiguration, "no certificate") }
        var pem = ""
        for certificate in chain { pem += try certificate.pem() }
        certificateChainPEM = pem
        privateKeyPEM = try key.privatePEM()
        certificateAuthorityPEM = try authority.pem()
        serverPublicKeyPin = try Self.pin(of: leaf)
        certificateAuthorityPublicKeyPin = try Self.pin(of: authority)
        guard let digest = RequestDigest.sha256(try authority.der()) else {
            throw SandboxError(.tlsUnavailable, "libcrypto could not hash the certificate")
        }
        certificateAuthoritySHA256 = digest.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    private static func pin(of certificate: Certificate) throws(SandboxError) -> String {
        guard let digest = RequestDigest.sha256(try certificate.publicKeyDER()) else {
            throw SandboxError(.tlsUnavailable, "libcrypto could not hash a public key")
        }
        return "sha256//" + Data(digest).base64EncodedString()
    }

    private static func readText(_ file: String) throws(SandboxError) -> String {
        guard let data = FileManager.default.contents(atPath: file), data.count <= 1 << 20,
            let text = String(data: data, encoding: .utf8)
        else { throw SandboxError(.invalidConfiguration, "cannot read \(file)") }
        return text
    }

    /// Whether `host` is a numeric IPv4 or IPv6 address (a subjectAltName IP entry).
    static func isNumericAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}

/// An owned `EVP_PKEY`.
private final class ECKey {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    static func generate() throws(SandboxError) -> ECKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw failure("an EC key context") }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else { throw failure("a P-256 key") }
        return ECKey(key)
    }

    static func read(_ pem: String, from file: String) throws(SandboxError) -> ECKey {
        let key = MemoryBIO.reading(pem) { bio in PEM_read_bio_PrivateKey(bio, nil, nil, nil) }
        ERR_clear_error()
        guard let key else { throw SandboxError(.invalidConfiguration, "\(file) holds no unencrypted PEM private key") }
        return ECKey(key)
    }

    func privatePEM() throws(SandboxError) -> String {
        guard let text = MemoryBIO.writing({ PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) == 1 })
        else { throw failure("the key's PEM") }
        return text
    }
}

/// An owned `X509`.
private final class Certificate {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    /// Builds and signs an X.509 v3 certificate; `issuer == nil` makes it self-signed.
    static func issue(
        subject: String, publicKey: ECKey, lifetimeSeconds: Int, extensions: [(Int32, String)],
        issuer: Certificate?, issuerKey: ECKey
    ) throws(SandboxError) -> Certificate {
        guard let made = X509_new() else { throw failure("a certificate") }
        let certificate = Certificate(made)
        let x = certificate.pointer
        // A random 63-bit positive serial: two runs never issue the same (issuer, serial).
        guard let serial = BN_new() else { throw failure("a serial number") }
        defer { BN_free(serial) }
        guard X509_set_version(x, 2) == 1,
            BN_rand(serial, 63, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY) == 1,
            BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x)) != nil,
            X509_gmtime_adj(X509_getm_notBefore(x), -300) != nil,
            X509_gmtime_adj(X509_getm_notAfter(x), lifetimeSeconds) != nil,
            X509_set_pubkey(x, publicKey.pointer) == 1
        else { throw failure("the certificate's fields") }
        let name = X509_get_subject_name(x)
        guard X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "EGWPay sandbox", -1, -1, 0) == 1,
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, subject, -1, -1, 0) == 1,
            X509_set_issuer_name(x, issuer.map { X509_get_subject_name($0.pointer) } ?? name) == 1
        else { throw failure("the certificate's names") }

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? x, x, nil, nil, 0)
        for (nid, value) in extensions {
            guard let made = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw failure("the extension \(nid) = \(value)")
            }
            defer { X509_EXTENSION_free(made) }
            guard X509_add_ext(x, made, -1) == 1 else { throw failure("the extension \(nid)") }
        }
        guard X509_sign(x, issuerKey.pointer, EVP_sha256()) > 0 else { throw failure("the signature") }
        return withExtendedLifetime(issuer) { certificate }
    }

    /// Every certificate in a PEM text, in order; at least one.
    static func readAll(_ pem: String, from file: String) throws(SandboxError) -> [Certificate] {
        let pointers = MemoryBIO.reading(pem) { bio -> [OpaquePointer] in
            var found: [OpaquePointer] = []
            while found.count < 16, let next = PEM_read_bio_X509(bio, nil, nil, nil) { found.append(next) }
            return found
        }
        ERR_clear_error()  // the read that ends the loop leaves "no start line" queued
        guard let pointers, !pointers.isEmpty else {
            throw SandboxError(.invalidConfiguration, "\(file) holds no PEM certificate")
        }
        return pointers.map { Certificate($0) }
    }

    func pem() throws(SandboxError) -> String {
        guard let text = MemoryBIO.writing({ PEM_write_bio_X509($0, pointer) == 1 }) else {
            throw failure("the certificate's PEM")
        }
        return text
    }

    func der() throws(SandboxError) -> [UInt8] {
        try Self.encode { i2d_X509(pointer, $0) }
    }

    func publicKeyDER() throws(SandboxError) -> [UInt8] {
        guard let key = X509_get0_pubkey(pointer) else { throw failure("the certificate's public key") }
        return try Self.encode { i2d_PUBKEY(key, $0) }
    }

    /// Runs an OpenSSL `i2d_` function twice: once for the length, once into a buffer.
    private static func encode(
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws(SandboxError) -> [UInt8] {
        let length = body(nil)
        guard length > 0 else { throw failure("a DER encoding") }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return body(&cursor)
        }
        guard written == length else { throw failure("a DER encoding") }
        return bytes
    }
}

/// Memory BIOs for PEM in and out.
private enum MemoryBIO {
    static func reading<T>(_ text: String, _ body: (OpaquePointer) -> T?) -> T? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { raw -> T? in
            guard let base = raw.baseAddress, let bio = BIO_new_mem_buf(base, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    static func writing(_ body: (OpaquePointer) -> Bool) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard body(bio) else { return nil }
        var data: UnsafeMutableRawPointer?
        // BIO_get_mem_data is a macro over BIO_ctrl(BIO_CTRL_INFO).
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard length > 0, let data else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}

private func failure(_ what: String) -> SandboxError {
    ERR_clear_error()
    return SandboxError(.tlsUnavailable, "libcrypto could not make \(what)")
}
