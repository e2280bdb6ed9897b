import EGWWire
import Foundation
import FuzzSupport

/// EGWWire's fuzz targets; each folder `Fuzz/<name>/` holds the seed corpus, the regressions and the
/// dictionary.
enum EGWWireFuzz {
    static let targets: [FuzzTarget] = [
        FuzzTarget("json", check: checkJSON),
        FuzzTarget("base64url", check: checkBase64URL),
        FuzzTarget("form", check: checkForm),
    ]

    /// The strict parser against the reference recogniser (accepts exactly the same documents), its
    /// shallow scan (same verdict, same error code and offset, same top-level members), and a round trip
    /// through `JSONWriter` that must reparse to the same bytes and obey the escape policy.
    static func checkJSON(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let depth = 8  // small, so the fuzzer reaches the limit often
        let bytes = Array(input)
        var parsed: JSONValue?
        var parseError: JSONSyntaxError?
        do { parsed = try StrictJSONParser.parse(input, maximumDepth: depth) } catch { parseError = error }
        let reference = ReferenceJSON.accepts(bytes, maximumDepth: depth)
        try fuzzRequire(
            (parsed != nil) == reference,
            "strict parser \(parsed != nil ? "accepts" : "refuses (\(parseError!))") what the RFC reading "
                + (reference ? "accepts" : "refuses"))
        if let parseError {
            try fuzzRequire((0...bytes.count).contains(parseError.offset), "error offset outside the input")
        }

        var shallow: JSONShallowDocument?
        var shallowError: JSONSyntaxError?
        do { shallow = try StrictJSONParser.scanShallow(input, maximumDepth: depth) } catch { shallowError = error }
        try fuzzRequire(
            shallowError?.code == parseError?.code && shallowError?.offset == parseError?.offset,
            "scanShallow refuses with \(String(describing: shallowError)), parse with \(String(describing: parseError))"
        )
        guard let parsed, let shallow else { return }
        try fuzzRequire(shallow.kind == parsed.kind, "scanShallow reads a different top-level kind")
        if case .object(let members) = parsed {
            try fuzzRequire(shallow.members.count == members.count, "scanShallow reads a different member count")
            for (member, scanned) in zip(members, shallow.members) {
                try fuzzRequire(
                    member.name.unicodeScalars.elementsEqual(scanned.name.unicodeScalars)
                        && member.value.kind == scanned.kind,
                    "scanShallow reads member \(scanned.name) differently")
                if case .string(let text) = member.value, let start = scanned.stringStart {
                    var sink = ScalarCollector()
                    do { try StrictJSONParser.decodeString(at: start, in: input, into: &sink) } catch {
                        throw FuzzViolation("decodeString refuses a string parse accepted: \(error)")
                    }
                    try fuzzRequire(
                        sink.scalars.elementsEqual(text.unicodeScalars), "decodeString differs from parse")
                }
            }
        }

        let written = write(parsed)
        try fuzzRequire(followsEscapePolicy(written), "written JSON holds a character the policy escapes")
        let reparsed: JSONValue
        do { reparsed = try StrictJSONParser.parse(written, maximumDepth: depth) } catch {
            throw FuzzViolation("the writer's output does not parse: \(error)")
        }
        try fuzzRequire(write(reparsed) == written, "parse -> write -> parse -> write is not stable")
    }

    /// Strict base64url decoding against a hand-written reference and Foundation's decoder; every accepted
    /// text re-encodes to itself; every byte string round-trips through encode and decode.
    static func checkBase64URL(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let decoded = Base64URL.decode(input)
        let expected = referenceBase64URLDecode(Array(input))
        try fuzzRequire(decoded == expected, "decode disagrees with the reference decoder")
        if let decoded {
            try fuzzRequire(Array(Base64URL.encode(decoded).utf8) == Array(input), "accepted text is not canonical")
            var standard = String(decoding: input, as: UTF8.self)
                .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
            try fuzzRequire(
                Data(base64Encoded: standard).map { [UInt8]($0) } == decoded,
                "Foundation decodes the same text to other bytes")
        }
        let encoded = Base64URL.encode(input)
        try fuzzRequire(encoded.utf8.count == Base64URL.encodedCount(input.count), "encodedCount is wrong")
        try fuzzRequire(Base64URL.decode(encoded) == Array(input), "encode -> decode loses bytes")
    }

    /// Form and percent decoding against a reference decoder; encode -> decode round trips; the encoders
    /// write only their allowed characters.
    static func checkForm(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let bytes = Array(input)
        for plus in [false, true] {
            let decoded = PercentEncoding.decode(bytes, plusAsSpace: plus)
            let expected = referencePercentDecode(bytes, plusAsSpace: plus)
            try fuzzRequire(
                decoded.map { Array($0.utf8) } == expected.map { Array($0.utf8) },
                "percent decoding (plusAsSpace \(plus)) disagrees with the reference decoder")
        }
        if let pairs = FormEncoding.decode(bytes) {
            let again = FormEncoding.decode(Array(FormEncoding.encode(pairs).utf8))
            try fuzzRequire(
                again.map { $0.map { Array(($0.name + "=" + $0.value).utf8) } }
                    == pairs.map { Array(($0.name + "=" + $0.value).utf8) } && again?.count == pairs.count,
                "form encode -> decode does not give the same pairs")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let escaped = FormEncoding.escape(text)
        try fuzzRequire(
            escaped.utf8.allSatisfy { isAlphanumeric($0) || Array("*-._%+".utf8).contains($0) },
            "form escape writes a character it should escape")
        try fuzzRequire(
            PercentEncoding.decode(Array(escaped.utf8), plusAsSpace: true).map { Array($0.utf8) } == Array(text.utf8),
            "form escape -> decode loses the text")
        let segment = PercentEncoding.pathSegment(text)
        try fuzzRequire(
            segment.utf8.allSatisfy { isAlphanumeric($0) || Array("-._~%".utf8).contains($0) },
            "pathSegment writes a character it should escape")
        try fuzzRequire(
            PercentEncoding.decode(Array(segment.utf8)).map { Array($0.utf8) } == Array(text.utf8),
            "pathSegment -> decode loses the text")
    }
}

/// Collects the scalars `decodeString` produces.
struct ScalarCollector: JSONScalarSink {
    var scalars: [Unicode.Scalar] = []
    mutating func append(_ scalar: Unicode.Scalar) { scalars.append(scalar) }
}

/// Compact JSON for `value`, strings through `JSONWriter`, numbers as written.
func write(_ value: JSONValue) -> [UInt8] {
    var output: [UInt8] = []
    write(value, to: &output)
    return output
}

private func write(_ value: JSONValue, to output: inout [UInt8]) {
    switch value {
    case .null: output += Array("null".utf8)
    case .bool(let flag): output += Array((flag ? "true" : "false").utf8)
    case .number(let text): output += Array(text.utf8)
    case .string(let text): JSONWriter.appendQuoted(text, to: &output)
    case .array(let elements):
        output.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            write(element, to: &output)
        }
        output.append(UInt8(ascii: "]"))
    case .object(let members):
        output.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            JSONWriter.appendQuoted(member.name, to: &output)
            output.append(UInt8(ascii: ":"))
            write(member.value, to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }
}

/// No raw C0, DEL, C1, U+2028, U+2029 or bidi control (U+202A to U+202E, U+2066 to U+2069) in `bytes`.
private func followsEscapePolicy(_ bytes: [UInt8]) -> Bool {
    String(decoding: bytes, as: UTF8.self).unicodeScalars.allSatisfy {
        !(0x00...0x1F).contains($0.value) && !(0x7F...0x9F).contains($0.value) && $0.value != 0x2028
            && $0.value != 0x2029 && !(0x202A...0x202E).contains($0.value) && !(0x2066...0x2069).contains($0.value)
    }
}

private func isAlphanumeric(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
}

/// RFC 4648 section 5 decoding, written from the RFC's table: 6 bits per character, no padding, the
/// leftover bits of the last character must be zero, a length of 4k+1 has no meaning.
private func referenceBase64URLDecode(_ text: [UInt8]) -> [UInt8]? {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    var bits: UInt32 = 0
    var bitCount = 0
    var output: [UInt8] = []
    for character in text {
        guard let index = alphabet.firstIndex(of: character) else { return nil }
        bits = bits << 6 | UInt32(index)
        bitCount += 6
        if bitCount >= 8 {
            bitCount -= 8
            output.append(UInt8(truncatingIfNeeded: bits >> UInt32(bitCount)))
            bits &= (1 << UInt32(bitCount)) - 1
        }
    }
    guard bitCount < 6, bits == 0 else { return nil }  // 4k+1 leaves 6 bits; leftovers must be zero
    return output
}

/// `%XX` (either case of hex) to the byte, `+` to a space when asked, the result must be UTF-8.
private func referencePercentDecode(_ bytes: [UInt8], plusAsSpace: Bool) -> String? {
    var output: [UInt8] = []
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "%") {
            guard index + 2 < bytes.count,
                let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16),
                bytes[index + 1...index + 2].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
            else { return nil }
            output.append(value)
            index += 3
        } else {
            output.append(plusAsSpace && bytes[index] == UInt8(ascii: "+") ? UInt8(ascii: " ") : bytes[index])
            index += 1
        }
    }
    return String(validating: output, as: UTF8.self)
}
