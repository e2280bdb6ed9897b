import Testing

@testable import EGWWire

/// Expected strings are written by hand from the WHATWG URL standard's
/// application/x-www-form-urlencoded serializer and RFC 3986 section 2.3 (unreserved characters).
@Suite struct FormEncodingTests {
    @Test func formEscapeKeepsOnlyTheWHATWGSetAndWritesSpaceAsPlus() {
        #expect(FormEncoding.escape("a b&c=d/é") == "a+b%26c%3Dd%2F%C3%A9")
        #expect(FormEncoding.escape("*-._~+") == "*-._%7E%2B")
        #expect(FormEncoding.encode([("creq", "eyJ0=="), ("x", "1 2")]) == "creq=eyJ0%3D%3D&x=1+2")
    }

    @Test func formDecodeReadsPairsInOrderAndRefusesBrokenInput() {
        let pairs = FormEncoding.decode(Array("choice=pay&note=a+b%2Bc&empty=&flag".utf8))
        #expect(pairs?.map(\.name) == ["choice", "note", "empty", "flag"])
        #expect(pairs?.map(\.value) == ["pay", "a b+c", "", ""])
        #expect(FormEncoding.value("note", in: pairs ?? []) == "a b+c")
        #expect(FormEncoding.decode(Array("a=%zz".utf8)) == nil)
        #expect(FormEncoding.decode(Array("a=%C3%28".utf8)) == nil)  // not UTF-8
        #expect(FormEncoding.decode(Array("a=%4".utf8)) == nil)
    }

    @Test func aPathSegmentKeepsOnlyTheUnreservedCharacters() {
        #expect(PercentEncoding.pathSegment("p 1/2") == "p%201%2F2")
        #expect(PercentEncoding.pathSegment("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.pathSegment("?#%+é") == "%3F%23%25%2B%C3%A9")
        #expect(PercentEncoding.decode(Array("p%201%2F2+".utf8)) == "p 1/2+")
    }
}
