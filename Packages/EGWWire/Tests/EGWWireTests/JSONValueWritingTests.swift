import EGWWire
import Testing

/// The one JSON serialiser: expected texts written by hand from RFC 8259 and JSONWriter's documented
/// escape policy, and the strict parser as the second reader.
@Suite struct JSONValueWritingTests {
    @Test func writesCompactInOrderWithTheOneEscapePolicy() {
        let value = JSONValue.members([
            ("b", .int(-12)), ("a", .array([.bool(true), .null, .string("x\"\n")])), ("c", .object([])),
        ])
        #expect(value.jsonText == #"{"b":-12,"a":[true,null,"x\"\u000a"],"c":{}}"#)
    }

    @Test(arguments: [
        #"{"k":[1,-0.5e3,"\u0007",{"z":false}],"e":""}"#, "[]", #""\u2028""#, "0", "{\"\u{212A}\":1,\"K\":2}",
    ])
    func whatTheStrictParserReadsIsWrittenBackAsIs(text: String) throws {
        let parsed = try StrictJSONParser.parse(Array(text.utf8))
        #expect(parsed.jsonText == text)
        #expect(try StrictJSONParser.parse(parsed.jsonBytes) == parsed)
    }

    @Test func theBuilderKeepsOrderAndReplacesInPlace() {
        var builder = JSONObjectBuilder([("a", .int(1)), ("b", .int(2))])
        builder["a"] = .string("one")
        builder["c"] = .null
        builder["b"] = nil
        #expect(builder.value.jsonText == #"{"a":"one","c":null}"#)
        // KELVIN SIGN is its own name, as the parser tells them apart.
        builder["\u{212A}"] = .int(3)
        #expect(builder.members.count == 3)
        #expect(JSONValue.int(7).intValue == 7)
        #expect(JSONValue.string("7").intValue == nil)
    }

    @Test func theLiteralFormLeavesOutNilAndKeepsOrder() {
        let optional: JSONValue? = nil
        let builder = JSONObjectBuilder([
            "b": .string("q\"\n\u{01}"), "gone": optional, "a": .array([.int(1), .null, .bool(true)]),
            // `.null` here is JSON null (a value), not a missing one.
            "n": .null, "b": .int(2),
        ])
        #expect(builder.value.jsonText == #"{"b":2,"a":[1,null,true],"n":null}"#)
        #expect(JSONObjectBuilder(["only": nil]).value.jsonText == "{}")
    }
}
