internal import EGWWire

/// Byte ranges of the five segments of a compact JWE (RFC 7516 section 7.1).
struct CompactSegments {
    var header: Range<Int>
    var encryptedKey: Range<Int>
    var iv: Range<Int>
    var ciphertext: Range<Int>
    var tag: Range<Int>

    /// Splits on `.`: exactly five segments (four dots), nothing else checked here.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>) throws(JWEError) -> CompactSegments {
        var dots: (Int, Int, Int, Int) = (0, 0, 0, 0)
        var found = 0
        for index in 0..<bytes.count where bytes[index] == UInt8(ascii: ".") {
            switch found {
            case 0: dots.0 = index
            case 1: dots.1 = index
            case 2: dots.2 = index
            case 3: dots.3 = index
            default: throw JWEError(.malformed, "compact serialization has more than five segments")
            }
            found += 1
        }
        guard found == 4 else {
            throw JWEError(.malformed, "compact serialization needs exactly five segments, found \(found + 1)")
        }
        return CompactSegments(
            header: 0..<dots.0,
            encryptedKey: (dots.0 + 1)..<dots.1,
            iv: (dots.1 + 1)..<dots.2,
            ciphertext: (dots.2 + 1)..<dots.3,
            tag: (dots.3 + 1)..<bytes.count
        )
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// The bytes in `range` as a buffer (no copy).
    @inline(__always)
    func slice(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: self[range])
    }
}

/// A decoded protected header: its JSON text, members and the three members the package reads.
struct ParsedProtectedHeader {
    /// The header's JSON text with every character outside printable ASCII as a `\u` escape (the same JSON
    /// value; see ``UntrustedText/escapedJSON(_:)``).
    var json: String
    var members: [JSONMember]
    var alg: String?
    var enc: String?
    var kid: String?

    /// Decodes the first segment: strict base64url, then a strict JSON object (valid UTF-8, no duplicate
    /// members, nothing after it); `alg`, `enc` and `kid`, when present, must be strings.
    static func parse(_ segment: UnsafeBufferPointer<UInt8>) throws(JWEError) -> ParsedProtectedHeader {
        guard !segment.isEmpty else { throw JWEError(.malformed, "the protected header is empty") }
        guard let bytes = Base64URL.decode(segment) else {
            throw JWEError(.malformed, "the protected header is not canonical unpadded base64url")
        }
        let value: JSONValue
        do {
            value = try StrictJSONParser.parse(bytes, wipe: { Crypto.wipe(&$0) })
        } catch {
            throw JWEError(.malformed, "the protected header is not strict JSON: \(error.escapedDescription)")
        }
        guard case .object(let members) = value else {
            throw JWEError(.malformed, "the protected header is not a JSON object")
        }
        func string(_ name: String) throws(JWEError) -> String? {
            switch value[member: name] {
            case nil: return nil
            case .string(let text)?: return text
            case _?: throw JWEError(.malformed, "header member \"\(name)\" is not a string")
            }
        }
        return ParsedProtectedHeader(
            json: UntrustedText.escapedJSON(String(decoding: bytes, as: UTF8.self)),
            members: members,
            alg: try string("alg"),
            enc: try string("enc"),
            kid: try string("kid")
        )
    }

    /// Header parameters registered by RFC 7515/7516, which may never appear in `crit`.
    private static let registeredNames: [String] = [
        "alg", "enc", "zip", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
    ]

    /// Whether the header has a member named `name`. Names, and every name `crit` lists, are compared scalar
    /// by scalar (``JSONMember/namesMatch(_:_:)``, as the parser compares them), never by `String ==`, whose
    /// canonical equivalence makes "K" and U+212A KELVIN SIGN one name where the JSON holds two.
    private func hasMember(_ name: String) -> Bool {
        members.contains { JSONMember.namesMatch($0.name, name) }
    }

    /// Applies `policy`: exact `alg` and `enc`, no `zip`, `crit` only with understood, present, unregistered
    /// names. `jwk`, `jku`, `x5u`, `x5c` are never read (the caller's key is the only key).
    func enforce(_ policy: JWEPolicy) throws(JWEError) {
        guard let alg else { throw JWEError(.malformed, "the protected header has no \"alg\"") }
        guard JSONMember.namesMatch(alg, policy.algorithm) else {
            throw JWEError(
                .unsupportedAlgorithm,
                "alg \(UntrustedText.quoted(alg)) is not allowed; the policy requires \(policy.algorithm)")
        }
        guard let enc else { throw JWEError(.malformed, "the protected header has no \"enc\"") }
        guard JSONMember.namesMatch(enc, policy.encryption) else {
            throw JWEError(
                .unsupportedAlgorithm,
                "enc \(UntrustedText.quoted(enc)) is not allowed; the policy requires \(policy.encryption)")
        }
        if hasMember("zip") {
            throw JWEError(.unsupportedAlgorithm, "compressed tokens (\"zip\") are refused")
        }
        if let crit = members.first(where: { JSONMember.namesMatch($0.name, "crit") })?.value {
            guard case .array(let elements) = crit, !elements.isEmpty else {
                throw JWEError(.malformed, "\"crit\" must be a non-empty array of strings (RFC 7515 section 4.1.11)")
            }
            var seen = Set<[Unicode.Scalar]>()
            for element in elements {
                guard case .string(let name) = element, seen.insert(Array(name.unicodeScalars)).inserted,
                    !Self.registeredNames.contains(where: { JSONMember.namesMatch($0, name) }),
                    hasMember(name)
                else {
                    throw JWEError(.malformed, "\"crit\" must list distinct, present, unregistered header names")
                }
                guard policy.understoodCriticalParameters.contains(where: { JSONMember.namesMatch($0, name) }) else {
                    throw JWEError(
                        .unsupportedAlgorithm,
                        "critical header parameter \(UntrustedText.quoted(name)) is not understood")
                }
            }
        }
    }
}

extension String {
    /// `withUTF8` for a body with typed throws (the standard one is `rethrows`, which erases the type).
    mutating func withUTF8Bytes<Result>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(JWEError) -> Result
    ) throws(JWEError) -> Result {
        let outcome: Swift.Result<Result, JWEError> = withUTF8 { bytes in
            do throws(JWEError) {
                return .success(try body(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a body with typed throws (the standard one is `rethrows`).
    func withUnsafeBytesTyped<Result>(
        _ body: (UnsafeRawBufferPointer) throws(JWEError) -> Result
    ) throws(JWEError) -> Result {
        let outcome: Swift.Result<Result, JWEError> = withUnsafeBytes { bytes in
            do throws(JWEError) {
                return .success(try body(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
