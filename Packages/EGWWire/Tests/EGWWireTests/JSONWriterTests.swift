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

    @Test func everyScalarBelowU00A0IsEscapedOrPrintableASCII() {
        for value in UInt32(0)..<0xA0 {
            let scalar = Unicode.Scalar(value)!
            let printable = (0x20...0x7E).contains(value)
            #expect(JSONWriter.escapesAsHex(scalar) == !printable)
        }
    }
}
