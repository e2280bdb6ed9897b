import EGWWire
import Testing

/// Expected strings are written by hand from the policy in HTMLEscaping's documentation and the
/// WHATWG HTML tokenizer (a `"` ends a double-quoted attribute value whatever follows it).
@Suite struct HTMLEscapingTests {
    /// A quote followed by U+0301 is one `Character` that is not `"`; the tokenizer still sees the
    /// quote. The escaper must write `&quot;` and keep the mark after it.
    @Test func aQuoteBeforeACombiningMarkIsStillEscaped() {
        #expect(HTMLEscaping.escape("\"\u{301} onload=alert(1) x=\"") == "&quot;\u{301} onload=alert(1) x=&quot;")
        #expect(HTMLEscaping.escape("'\u{301}") == "&#39;\u{301}")
        #expect(HTMLEscaping.escape("<\u{338}") == "&lt;\u{338}")  // "≮" as two scalars
        #expect(HTMLEscaping.escape("&\u{20DD}") == "&amp;\u{20DD}")
        #expect(HTMLEscaping.escape(">\u{301}\u{302}") == "&gt;\u{301}\u{302}")
    }

    /// Every ASCII scalar, one at a time: the five specials and NUL become their references, all
    /// others pass as themselves.
    @Test func everyASCIIScalarIsEscapedOrKeptByThePolicy() {
        let references: [UInt8: String] = [
            0x00: "&#xFFFD;", 0x22: "&quot;", 0x26: "&amp;", 0x27: "&#39;", 0x3C: "&lt;", 0x3E: "&gt;",
        ]
        for byte in UInt8(0)...UInt8(127) {
            let text = String(Unicode.Scalar(byte))
            #expect(HTMLEscaping.escape(text) == references[byte] ?? text, "U+\(String(byte, radix: 16))")
        }
    }

    @Test func theLineAndParagraphSeparatorsAreWrittenAsReferences() {
        #expect(HTMLEscaping.escape("a\u{2028}b\u{2029}c") == "a&#x2028;b&#x2029;c")
    }

    @Test func nulIsWrittenAsTheReplacementCharacterTheParserWouldMakeOfIt() {
        #expect(HTMLEscaping.escape("a\u{0}b") == "a&#xFFFD;b")
    }

    @Test func aWholeAttributeBreakoutIsNeutralised() {
        #expect(
            HTMLEscaping.escape(#""><script>alert('x')</script>&amp;"#)
                == "&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;")
        #expect(HTMLEscaping.escape("") == "")
        #expect(HTMLEscaping.escape("é日本\u{1F600}") == "é日本\u{1F600}")  // non-ASCII kept as itself
    }

    /// Lone surrogates (U+D800–U+DFFF) need no rule: `Unicode.Scalar` has no value for them, so no
    /// `String` can hold one. This pins that premise.
    @Test func noStringCanHoldALoneSurrogate() {
        #expect(Unicode.Scalar(UInt32(0xD800)) == nil)
        #expect(Unicode.Scalar(UInt32(0xDFFF)) == nil)
        #expect(String(decoding: [0xED, 0xA0, 0x80] as [UInt8], as: UTF8.self) == "\u{FFFD}\u{FFFD}\u{FFFD}")
    }
}
