import EGWWire
import Testing

/// Every expected output below is written by hand from the policy in ``JSONWriter``'s documentation, one
/// case per escape class, not produced by the writer.
@Suite struct JSONWriterTests {
    static let cases: [(input: String, expected: String, why: String)] = [
        ("", #""""#, "empty"),
        ("plain ASCII 123", #""plain ASCII 123""#, "printable ASCII is itself"),
        ("a\"b", #""a\"b""#, "quotation mark"),
        ("a\\b", #""a\\b""#, "reverse solidus"),
        ("/", #""/""#, "solidus is not escaped"),
        ("\u{0}", #""\u0000""#, "NUL"),
        ("\u{1}\u{8}\u{9}", #""\u0001\u0008\u0009""#, "C0: no short forms (\\b, \\t)"),
        ("\n\r\u{C}", #""\u000a\u000d\u000c""#, "C0: no short forms (\\n, \\r, \\f)"),
        ("\u{1B}[31m", #""\u001b[31m""#, "ESC, the start of a terminal sequence"),
        ("\u{1F}", #""\u001f""#, "last C0"),
        (" ~", #"" ~""#, "U+0020 and U+007E are printable"),
        ("\u{7F}", #""\u007f""#, "DEL"),
        ("\u{80}\u{85}\u{9B}\u{9F}", #""\u0080\u0085\u009b\u009f""#, "C1 (NEL, CSI)"),
        ("\u{A0}é", "\"\u{A0}é\"", "U+00A0 and Latin-1 letters are themselves"),
        ("\u{2028}\u{2029}", #""\u2028\u2029""#, "line and paragraph separators"),
        (
            "\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}",
            #""\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069""#,
            "bidi embeddings, overrides and isolates (they reorder what a terminal shows)"
        ),
        ("\u{2027}\u{202F}\u{2065}\u{206A}", "\"\u{2027}\u{202F}\u{2065}\u{206A}\"", "their neighbours are themselves"),
        ("€😀", "\"€😀\"", "other non-ASCII as UTF-8, astral plane included"),
    ]

    @Test(arguments: 0..<18)
    func eachEscapeClass(index: Int) {
        let (input, expected, why) = Self.cases[index]
        #expect(JSONWriter.quoted(input) == expected, Comment(rawValue: why))
        var bytes: [UInt8] = [UInt8(ascii: "x")]
        JSONWriter.appendQuoted(input, to: &bytes)
        #expect(bytes == [UInt8(ascii: "x")] + Array(expected.utf8), Comment(rawValue: why))
        var text = "x"
        JSONWriter.appendQuoted(input, to: &text)
        #expect(text == "x" + expected, Comment(rawValue: why))
    }

    @Test func objectKeepsMemberOrder() {
        #expect(JSONWriter.object([]) == "{}")
        #expect(JSONWriter.object([("n", "x\u{7F}"), ("e", "AQAB")]) == #"{"n":"x\u007f","e":"AQAB"}"#)
    }

    /// One scalar at a time, as a caller writing into its own wiped buffer sees it: the bytes written by hand
    /// from RFC 8259 section 7 (two-character escapes for `"` and `\\`, `\\u` with four hex digits) and the
    /// UTF-8 of RFC 3629 for what is written as itself.
    static let scalarCases: [(scalar: Unicode.Scalar, bytes: [UInt8])] = [
        ("a", [0x61]),
        ("/", [0x2F]),
        ("\"", [0x5C, 0x22]),
        ("\\", [0x5C, 0x5C]),
        ("\u{0}", [0x5C, 0x75, 0x30, 0x30, 0x30, 0x30]),
        ("\u{1F}", [0x5C, 0x75, 0x30, 0x30, 0x31, 0x66]),
        ("\u{7F}", [0x5C, 0x75, 0x30, 0x30, 0x37, 0x66]),
        ("\u{85}", [0x5C, 0x75, 0x30, 0x30, 0x38, 0x35]),
        ("\u{A0}", [0xC2, 0xA0]),
        ("\u{E9}", [0xC3, 0xA9]),
        ("\u{2028}", [0x5C, 0x75, 0x32, 0x30, 0x32, 0x38]),
        ("\u{202E}", [0x5C, 0x75, 0x32, 0x30, 0x32, 0x65]),
        ("\u{2069}", [0x5C, 0x75, 0x32, 0x30, 0x36, 0x39]),
        ("\u{20AC}", [0xE2, 0x82, 0xAC]),
        ("\u{1F600}", [0xF0, 0x9F, 0x98, 0x80]),
    ]

    @Test(arguments: 0..<15)
    func oneScalarIsWrittenAsTheStandardsSay(index: Int) {
        let (scalar, expected) = Self.scalarCases[index]
        var bytes: [UInt8] = []
        JSONWriter.writeEscaped(scalar) { bytes.append($0) }
        #expect(bytes == expected)
        #expect(JSONWriter.escapedByteCount(of: scalar) == expected.count)
    }

    /// Every scalar of the Basic Multilingual Plane and a sample of the others: the count matches what is
    /// written, and the strict parser (its own decoder) reads the written literal back as that one scalar.
    @Test func everyScalarWrittenAloneIsReadBackAsItself() throws {
        let values = Array(UInt32(0)..<0xD800) + Array(UInt32(0xE000)...0xFFFF) + [0x10000, 0x1F600, 0x10FFFF]
        for value in values {
            let scalar = try #require(Unicode.Scalar(value))
            var literal: [UInt8] = [UInt8(ascii: "\"")]
            JSONWriter.writeEscaped(scalar) { literal.append($0) }
            literal.append(UInt8(ascii: "\""))
            guard literal.count == JSONWriter.escapedByteCount(of: scalar) + 2,
                try StrictJSONParser.parse(literal) == .string(String(Character(scalar)))
            else {
                Issue.record("U+\(String(value, radix: 16, uppercase: true)) is not written as itself")
                return
            }
        }
    }

    @Test func everyScalarBelowU00A0IsEscapedOrPrintableASCII() {
        for value in UInt32(0)..<0xA0 {
            let scalar = Unicode.Scalar(value)!
            let printable = (0x20...0x7E).contains(value)
            #expect(JSONWriter.escapesAsHex(scalar) == !printable)
        }
    }
}
