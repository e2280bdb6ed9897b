import EGWWire
import Testing

/// The shallow reader (what the sandbox's card parser uses on plaintext): the same checks as `parse`, no
/// value built. Moved here from the sandbox's tests with the reader.
@Suite struct JSONShallowScanTests {
    static func scan(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONShallowDocument {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) in
            try StrictJSONParser.scanShallow(buffer)
        }
    }

    static func outcome<T>(_ body: () throws(JSONSyntaxError) -> T) -> JSONSyntaxError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// Valid and invalid documents, the latter from RFC 8259's open cases; invalid UTF-8 from the Unicode
    /// standard's table 3-7 of well-formed byte sequences (an overlong "/", a surrogate, past U+10FFFF, a
    /// lone continuation byte, a truncated sequence).
    @Test(arguments: [
        #"{"a": "x", "b": [1, {"c": null}], "d": {"e": "f"}, "g": -1.5e3, "h": true}"#, #"["a", 1]"#, #""s""#, "12",
        "null", #"{"a": 1, "a": 2}"#, #"{"a": {"b": 1, "b": 2}}"#, #"{"a": 1} x"#, #"{"a": "\ud834"}"#, "[01]",
        "[1.]", "{'a': 1}", "[1,]", "\"tab\there\"", "", #"{"a" 1}"#, #"{"a": tru}"#, #"{"a": "\q"}"#,
        String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
    ])
    func refusesExactlyWhatParseRefuses(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(
            Self.outcome { () throws(JSONSyntaxError) in try Self.scan(bytes) }
                == Self.outcome { () throws(JSONSyntaxError) in try StrictJSONParser.parse(bytes) })
    }

    @Test(
        arguments: [
            [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0x80, 0x22], [0x22, 0x61, 0xE2, 0x82, 0x22],
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D],
        ] as [[UInt8]])
    func invalidUTF8IsRefusedByBoth(_ bytes: [UInt8]) {
        let parsed = Self.outcome { () throws(JSONSyntaxError) in try StrictJSONParser.parse(bytes) }
        #expect(parsed?.code == .invalidUTF8)
        #expect(Self.outcome { () throws(JSONSyntaxError) in try Self.scan(bytes) } == parsed)
    }

    @Test func readsKindsAndDecodesStringsOnRequest() throws {
        let bytes = Array(#" {"a": "x\u00e9\ud834\udd1e\n", "b": [1], "c": {}, "d": 2, "e": false, "f": null} "#.utf8)
        let document = try Self.scan(bytes)
        #expect(document.kind == .object)
        #expect(document.members.map(\.name) == ["a", "b", "c", "d", "e", "f"])
        #expect(document.members.map(\.kind) == [.string, .array, .object, .number, .bool, .null])
        #expect(document.members.map { $0.stringStart != nil } == [true, false, false, false, false, false])
        struct Scalars: JSONScalarSink {
            var all: [Unicode.Scalar] = []
            mutating func append(_ scalar: Unicode.Scalar) { all.append(scalar) }
        }
        var sink = Scalars()
        let start = try #require(document["a"]?.stringStart)
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) in
            try StrictJSONParser.decodeString(at: start, in: buffer, into: &sink)
        }
        #expect(String(String.UnicodeScalarView(sink.all)) == "x\u{e9}\u{1D11E}\n")
        #expect(try Self.scan(Array("[1]".utf8)) == JSONShallowDocument(kind: .array, members: []))
    }

    /// Raw UTF-8 of every length reaches a sink as the same scalars `parse` puts in its `String`.
    @Test func rawUTF8DecodesToTheSameScalars() throws {
        let text = "\"aé€😀\u{10FFFF}\""
        var sink = Collect()
        try Array(text.utf8).withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) in
            try StrictJSONParser.decodeString(at: 0, in: buffer, into: &sink)
        }
        #expect(String(String.UnicodeScalarView(sink.all)) == "aé€😀\u{10FFFF}")
        #expect(try StrictJSONParser.parse(Array(text.utf8)) == .string("aé€😀\u{10FFFF}"))
    }

    private struct Collect: JSONScalarSink {
        var all: [Unicode.Scalar] = []
        mutating func append(_ scalar: Unicode.Scalar) { all.append(scalar) }
    }
}
