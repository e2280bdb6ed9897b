import EGWWire
import Testing

@testable import GatewaySandbox

/// The sandbox reads JSON with EGWWire's strict parser: RFC 8259's examples (section 13) read as the sandbox's
/// handlers read them; the refused inputs are the cases RFC 8259 leaves to implementations, decided strictly.
/// Its answers are written by EGWWire's writer: the expected bytes below are written by hand.
@Suite struct JSONTests {
    private func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try StrictJSONParser.parse(Array(text.utf8))
    }

    @Test func readsRFC8259ObjectExample() throws {
        let text = """
            {"Image": {"Width": 800, "Height": 600, "Title": "View from 15th Floor",
              "Thumbnail": {"Url": "http://www.example.com/image/481989943", "Height": 125, "Width": 100},
              "Animated" : false, "IDs": [116, 943, 234, 38793]}}
            """
        let image = try #require(try parse(text)[member: "Image"])
        #expect(image[member: "Width"]?.intValue == 800)
        #expect(image[member: "Title"]?.stringValue == "View from 15th Floor")
        #expect(image[member: "Animated"]?.boolValue == false)
        #expect(image[member: "IDs"] == .array([.number("116"), .number("943"), .number("234"), .number("38793")]))
        #expect(image.memberNames == ["Width", "Height", "Title", "Thumbnail", "Animated", "IDs"])
        #expect(image[member: "Thumbnail"]?.typeName == "object")
        #expect(image[member: "Animated"]?.typeName == "boolean")
        #expect(image[member: "Width"]?.boolValue == nil)
    }

    @Test func namesThatAreOnlyCanonicallyEquivalentAreTwoMembers() throws {
        // RFC 8259 section 8.3 compares names code unit by code unit: U+212A KELVIN SIGN is not "K",
        // and "e" + U+0301 is not U+00E9. The parser keeps both; so must the sandbox's lookups and builder.
        let object = try parse(#"{"K":1,"\u212a":2,"\u00e9":3,"e\u0301":4}"#)
        #expect(object.memberNames.count == 4)
        #expect(object[member: "K"]?.intValue == 1)
        #expect(object[member: "\u{212A}"]?.intValue == 2)
        #expect(object[member: "\u{E9}"]?.intValue == 3)
        #expect(object[member: "e\u{301}"]?.intValue == 4)
    }

    @Test func readsEscapesAndSurrogatePairs() throws {
        // U+1D11E MUSICAL SYMBOL G CLEF is the surrogate pair D834 DD1E (RFC 8259 section 7).
        let value = try parse(#"["a\"b\\c\/d\n", "\ud834\udd1e", "\u00e9"]"#)
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
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONSyntaxError.self) { try StrictJSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func integersAreExact() throws {
        #expect(try parse("9007199254740993").intValue == 9_007_199_254_740_993)
        #expect(try parse("12.0").intValue == nil)
        #expect(try parse("1e3").intValue == nil)
        #expect(try parse("1e3").doubleValue == 1000)
        #expect(try parse("-0.25").doubleValue == -0.25)
        #expect(try parse(#""1""#).doubleValue == nil)
    }

    @Test func anErrorAnswerIsCompactInOrderAndEscaped() {
        let response = HTTPResponse.error(400, "INVALID_REQUEST", "q\"\n\u{01}\u{202E}é")
        // EGWWire's one escape policy: every control and bidi override as \uXXXX, no short forms such as \n.
        #expect(
            response.body
                == Array(#"{"error":{"code":"INVALID_REQUEST","message":"q\"\u000a\u0001\u202eé"}}"#.utf8))
        #expect(response.headers.first?.value == "application/json; charset=utf-8")
    }

    @Test func aFaultIsListedWithItsMembersInTheDocumentedOrder() {
        // Amounts, statuses and counts are integers; a probability is the shortest decimal that reads back.
        let status = SandboxFault(
            endpoint: .any, kind: .status(503, errorCode: "BUSY", message: nil), schedule: .next(3))
        #expect(
            status.json.value.jsonText
                == #"{"endpoint":"any","kind":"status","status":503,"errorCode":"BUSY","next":3,"processesRequest":false}"#
        )
        let latency = SandboxFault(
            endpoint: .any, kind: .latency(.milliseconds(250)), schedule: .probability(0.25, seed: 9))
        #expect(
            latency.json.value.jsonText
                == #"{"endpoint":"any","kind":"latency","milliseconds":250,"probability":0.25,"seed":9,"processesRequest":true}"#
        )
    }
}

/// The sandbox's pages escape with EGWWire's one HTML escaper (its vectors are in EGWWire's
/// HTMLEscapingTests); this pins that a page uses it, scalar by scalar. Expected text by hand.
@Suite struct WireEncodingTests {
    @Test func aPageEscapesAQuoteBeforeACombiningMarkInAnAttributeAndInText() {
        let page = Pages.document(page: "p\"\u{301}>", title: "t'\u{301}", meta: [("m", "a\u{0}b\u{2028}")], body: "")
        #expect(
            page == """
                <!DOCTYPE html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <meta name="egw-page" content="p&quot;\u{301}&gt;">
                <meta name="m" content="a&#xFFFD;b&#x2028;">
                <title>t&#39;\u{301}</title>
                </head>
                <body>

                </body>
                </html>

                """)
    }
}
