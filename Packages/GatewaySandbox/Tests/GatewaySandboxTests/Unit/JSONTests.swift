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

    @Test func namesThatAreOnlyCanonicallyEquivalentAreTwoMembers() throws {
        // RFC 8259 section 8.3 compares names code unit by code unit: U+212A KELVIN SIGN is not "K",
        // and "e" + U+0301 is not U+00E9. The parser keeps both; so must the sandbox's object.
        let object = try #require(try JSONValue.parse(#"{"K":1,"\u212a":2,"\u00e9":3,"e\u0301":4}"#).objectValue)
        #expect(object.keys.count == 4)
        #expect(object["K"]?.intValue == 1)
        #expect(object["\u{212A}"]?.intValue == 2)
        #expect(object["\u{E9}"]?.intValue == 3)
        #expect(object["e\u{301}"]?.intValue == 4)
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

/// HTML escaping of the sandbox's pages (form decoding and base64url moved to EGWWire, with their vectors).
@Suite struct WireEncodingTests {
    @Test func htmlEscaping() {
        #expect(HTML.escape(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    }
}
