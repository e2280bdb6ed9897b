import EGWWire
import Testing

@Suite struct Base64URLTests {
    /// RFC 4648 section 10's test vectors, with the padding removed (base64url without padding, RFC 7515
    /// section 2); none of them uses the two characters where the alphabets differ.
    static let rfc4648: [(plain: String, encoded: String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ]

    /// Bytes that land on `-` (62) and `_` (63), where base64url differs from base64 (`+`, `/`), worked out
    /// by hand from the 6-bit groups.
    static let urlAlphabet: [(bytes: [UInt8], encoded: String)] = [
        ([0xFB, 0xFF], "-_8"), ([0xFF, 0xFF, 0xFF], "____"), ([0xFB, 0xEF, 0xBE], "----"), ([0x00], "AA"),
    ]

    @Test(arguments: 0..<7)
    func rfc4648VectorsRoundTrip(index: Int) {
        let (plain, encoded) = Self.rfc4648[index]
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test(arguments: 0..<4)
    func urlSafeCharactersRoundTrip(index: Int) {
        let (bytes, encoded) = Self.urlAlphabet[index]
        #expect(Base64URL.encode(bytes) == encoded)
        #expect(Base64URL.decode(encoded) == bytes)
    }

    @Test(arguments: [
        "Zg==", "Zg=", "Zm8=",  // padding
        "Zm9v+", "Zm9v/", "Zm9+", "+/8",  // the standard alphabet
        "Zm 9v", "Zm9v\n", " Zm9v", "Zm9v\u{0}",  // whitespace and NUL
        "Zm9vé", "Zm9v\u{FF}",  // non-ASCII
        "Z", "Zm9vY",  // a length of 4k+1 encodes nothing
        "Zh", "Zm9", "Zm9vYh",  // non-canonical trailing bits ("Zg", "Zm8", "Zm9vYg" are canonical)
    ])
    func refusesWhatIsNotCanonicalUnpaddedBase64URL(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func pointerCodecAgreesWithTheStringOne() {
        let bytes: [UInt8] = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        for count in 0...bytes.count {
            let slice = Array(bytes[..<count])
            let length = Base64URL.encodedCount(count)
            var written = 0
            let encoded = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
                written = slice.withUnsafeBytes { Base64URL.encode($0, into: buffer.baseAddress!) }
                initialized = length
            }
            #expect(written == length)
            #expect(String(decoding: encoded, as: UTF8.self) == Base64URL.encode(slice))
            #expect(Base64URL.decodedCount(length) == count)
            #expect(encoded.withUnsafeBufferPointer { Base64URL.decode($0) } == slice)
        }
    }
}
