import Testing

@testable import GatewaySandbox

/// The strict JSON reader. Valid inputs are RFC 8259's examples (section 13); the refused
/// inputs are the cases RFC 8259 leaves to implementations, decided strictly here.
@Suite struct JSONTests {
    @Test func readsRFC8259ObjectExample() throws {
        let text = """
            {"Image": {"Width": 800, "Height": 600, "Title": "View from 15th Floor",
              "Thumbnail": {"Url": "http://www.example.com/image/481989943", "Height": 125, "Width": 100},
              "Animated" : false, "IDs": [116, 943, 234, 38793]}}
            """
        let image = try #require(try JSONValue.parse(text).objectValue?["Image"]?.objectValue)
        #expect(image["Width"]?.intValue == 800)
        #expect(image["Title"]?.stringValue == "View from 15th Floor")
        #expect(image["Animated"] == .bool(false))
        #expect(image["IDs"] == .array([.number("116"), .number("943"), .number("234"), .number("38793")]))
        #expect(image.keys == ["Width", "Height", "Title", "Thumbnail", "Animated", "IDs"])
    }

    @Test func readsEscapesAndSurrogatePairs() throws {
        // U+1D11E MUSICAL SYMBOL G CLEF is the surrogate pair D834 DD1E (RFC 8259 section 7).
        let value = try JSONValue.parse(#"["a\"b\\c\/d\n", "\ud834\udd1e", "\u00e9"]"#)
        #expect(value == .array([.string("a\"b\\c/d\n"), .string("\u{1D11E}"), .string("é")]))
    }

    @Test(arguments: [
        #"{"a": 1, "a": 2}"#,  // duplicated member
        #"{"a": 1} x"#,  // trailing data
        #"["\ud834"]"#,  // lone high surrogate
        #"["\udd1e"]"#,  // lone low surrogate
        "[01]",  // leading zero
        "[1.]",  // empty fraction
        "{'a': 1}",  // single quotes
        "[1,]",  // trailing comma
        "\"tab\there\"",  // raw control character
        "",
        String(repeating: "[", count: 65) + String(repeating: "]", count: 65),  // deeper than 64
    ])
    func refuses(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func integersAreExact() throws {
        #expect(try JSONValue.parse("9007199254740993").intValue == 9_007_199_254_740_993)
        #expect(try JSONValue.parse("12.0").intValue == nil)
        #expect(try JSONValue.parse("1e3").intValue == nil)
        #expect(try JSONValue.parse("1e3").doubleValue == 1000)
    }

    @Test func writesEscapedCompactJSONInMemberOrder() {
        let value = JSONValue.object(
            JSONObject(["b": .string("q\"\n\u{01}"), "a": .array([.int(1), .null, .bool(true)])]))
        // EGWWire's one escape policy: every control as \uXXXX, no short forms such as \n.
        #expect(value.serialized == #"{"b":"q\"\u000a\u0001","a":[1,null,true]}"#)
    }
}

/// Form decoding (base64url moved to EGWWire, with its RFC 4648 vectors), checked against the
/// WHATWG URL standard's application/x-www-form-urlencoded rules.
@Suite struct WireEncodingTests {
    @Test func formDecoding() throws {
        let pairs = try #require(
            FormEncoding.decode(Array("choice=pay&method=click-to-pay&note=a+b%26c%3D&empty=".utf8)))
        #expect(pairs.map(\.name) == ["choice", "method", "note", "empty"])
        #expect(pairs.map(\.value) == ["pay", "click-to-pay", "a b&c=", ""])
        #expect(FormEncoding.decode(Array("a=%zz".utf8)) == nil)
        #expect(FormEncoding.decode(Array("a=%C3%28".utf8)) == nil)
    }

    @Test func htmlEscaping() {
        #expect(HTML.escape(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    }
}

/// The shallow reader that the card parser uses on plaintext: the same checks as `parse`, no value built.
@Suite struct JSONShallowScanTests {
    static func scan(_ bytes: [UInt8]) throws(JSONParseError) -> JSONShallowDocument {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) in try JSONValue.scanShallow(buffer) }
    }

    static func outcome<T>(_ body: () throws(JSONParseError) -> T) -> JSONParseError? {
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
            Self.outcome { () throws(JSONParseError) in try Self.scan(bytes) }
                == Self.outcome { () throws(JSONParseError) in try JSONValue.parse(bytes) })
    }

    @Test(
        arguments: [
            [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
            [0x22, 0x80, 0x22], [0x22, 0x61, 0xE2, 0x82, 0x22],
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D],
        ] as [[UInt8]])
    func invalidUTF8IsRefusedByBoth(_ bytes: [UInt8]) {
        let parsed = Self.outcome { () throws(JSONParseError) in try JSONValue.parse(bytes) }
        #expect(parsed?.reason == "invalid UTF-8 in string")
        #expect(Self.outcome { () throws(JSONParseError) in try Self.scan(bytes) } == parsed)
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
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) in
            try JSONValue.decodeString(at: start, in: buffer, into: &sink)
        }
        #expect(String(String.UnicodeScalarView(sink.all)) == "x\u{e9}\u{1D11E}\n")
        #expect(try Self.scan(Array("[1]".utf8)) == JSONShallowDocument(kind: .array, members: []))
    }
}
