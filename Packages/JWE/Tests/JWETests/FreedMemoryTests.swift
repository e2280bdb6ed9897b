import EGWWire
import Foundation
import FreedMemoryScan
import Testing

@testable import JWE
@testable import egw_jwe

/// What key import gives back to the allocator: under FuzzSupport's ``FreedMemoryScan`` (the test binary
/// interposes `free` and `realloc` and counts and searches every block the test's thread releases), no
/// released block holds 16 consecutive bytes of a private member in any form. The needles come from the
/// fixture through Foundation, never from the package.
@Suite(
    "Freed memory", .serialized,
    .enabled(if: FreedMemoryScan.isAvailable, "free() is not interposed under a sanitizer"))
struct FreedMemoryTests {
    /// A secret's forms a copy could take: its base64url text (the JWK member), its big-endian bytes (the
    /// decoded member), and those bytes reversed (an OpenSSL BIGNUM's little-endian limbs).
    static func forms(ofBase64url text: String) throws -> [[UInt8]] {
        let bytes = try #require(Vectors.unbase64url(text))
        return [Array(text.utf8), bytes, bytes.reversed()]
    }

    /// The fixture's private JWK text and its private members, read with Foundation.
    static func privateJWK() throws -> (text: String, secrets: [(name: String, value: String)]) {
        let fixture = try Vectors.object("rsa2048_fixture_jwcrypto.json")
        let object = try #require(fixture["jwk_private"] as? [String: Any])
        let secrets = try ["d", "p", "q", "dp", "dq", "qi"].map { name in
            (name, try #require(object[name] as? String))
        }
        return (try Vectors.jsonText(object), secrets)
    }

    /// The scan finds a plain copy of `p` in this binary (so a zero below means something).
    @Test func theScanSeesAnUnwipedCopyOfP() throws {
        let (_, secrets) = try Self.privateJWK()
        let needles = try Self.forms(ofBase64url: secrets[1].value)
        let seen = FreedMemoryScan.scan(for: needles) {
            #expect((Array(needles[1]) + [0]).count == needles[1].count + 1)
        }
        #expect(seen.hits == 1)
    }

    /// Runs `body` (an import: a throw fails the test) under the scan for `secret`'s forms, and expects no released
    /// block to hold part of it. `knownIssue` records an OpenSSL copy as known (a copy of ours never is);
    /// `input` (the key text, released only by the caller) outlives the scan.
    static func expectNoCopy(
        of name: String, _ secret: String, keeping input: String, releasesAtLeast minimum: Int,
        knownIssue: (comment: Comment, intermittent: Bool)? = nil, importing body: () throws -> Void
    ) throws {
        let seen = try withExtendedLifetime(input) {
            try FreedMemoryScan.scan(for: try forms(ofBase64url: secret), body)
        }
        #expect(seen.releases >= minimum, "the interposed free saw \(seen.releases) releases")
        let check = { #expect(seen.hits == 0, "\(seen.hits) released blocks held part of \(name)") }
        if let knownIssue {
            withKnownIssue(knownIssue.comment, isIntermittent: knownIssue.intermittent, check)
        } else {
            check()
        }
    }

    /// A private JWK import gives back no block holding part of `p` (or any other private member): the JSON
    /// scratch is never regrown (which left unwiped prefixes behind) and no private member becomes a `String`.
    @Test func aJWKImportUnderACountingAllocatorLeavesNoUnwipedCopyOfP() throws {
        let (text, secrets) = try Self.privateJWK()
        for (name, secret) in secrets {
            // OpenSSL 3.0's pairwise check recomputes d mod (p-1), d mod (q-1) and q^-1 mod p in BIGNUMs it
            // frees with BN_free, unwiped (backtrace: EVP_PKEY_pairwise_check ... BN_free ... free).
            let known: (Comment, Bool)? =
                Self.recomputedByOpenSSL.contains(name)
                ? ("OpenSSL's pairwise check releases its recomputed CRT values unwiped", true) : nil
            try Self.expectNoCopy(of: name, secret, keeping: text, releasesAtLeast: 50, knownIssue: known) {
                _ = try RSAPrivateKey(jwk: text)
            }
        }
    }

    /// `egw-jwe decrypt --key FILE` reads the key file into a buffer wiped as it grows and imports it from
    /// those bytes: no `String` of the file, so no released block holds part of `p`, `q` or `d` from a JWK
    /// file. From a PEM file OpenSSL's own decoder still leaves copies (a known issue, not ours to wipe).
    @Test(arguments: ["jwk", "pem"])
    func egwJWEReadsAKeyFileIntoWipedBuffers(_ format: String) throws {
        let (jwk, secrets) = try Self.privateJWK()
        let contents = format == "jwk" ? jwk : try Vectors.text("rsa2048_pkcs8.pem")
        let pemKey = try Vectors.object("rsa2048_fixture_jwcrypto.json")["jwk_private"] as? [String: Any]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("egw-jwe-key-\(getpid()).\(format)")
        try Data(contents.utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        // Our bytes are read in place, but OpenSSL 3.0's PEM and DER decoders release their base64 and ASN.1
        // INTEGER copies unwiped (12 blocks per member, from PEM_read_bio_PrivateKey).
        let known: (Comment, Bool)? =
            format == "pem" ? ("OpenSSL's PEM reader releases decoded copies of the key unwiped", false) : nil
        for (name, secret) in secrets where ["d", "p", "q"].contains(name) {
            // The PEM fixture is the same key as the JWK fixture (Vectors/README.md), so the needles serve both.
            #expect(pemKey?[name] as? String == secret)
            try Self.expectNoCopy(of: name, secret, keeping: contents, releasesAtLeast: 50, knownIssue: known) {
                _ = try readFile(path.path).privateKey()
            }
        }
    }

    /// The CRT members OpenSSL's own consistency check recomputes and releases unwiped (not this package's copies:
    /// every buffer of ours is wiped, and `p`, `q` and `d` leave nothing).
    static let recomputedByOpenSSL: Set<String> = ["dp", "dq", "qi"]

    /// A public import of a private JWK ignores the private members without decoding them: no released block
    /// holds any part of them.
    @Test func aPublicImportOfAPrivateJWKDecodesNoPrivateMember() throws {
        let (text, secrets) = try Self.privateJWK()
        for (name, secret) in secrets {
            try Self.expectNoCopy(of: name, secret, keeping: text, releasesAtLeast: 10) {
                _ = try RSAPublicKey(jwk: text)
            }
        }
    }
}
