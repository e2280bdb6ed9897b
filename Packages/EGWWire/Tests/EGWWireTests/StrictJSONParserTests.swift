import EGWWire
import Testing

/// The strict parser. Valid inputs follow RFC 8259's grammar (section 13's example shapes); every refusal
/// below has its code and byte offset worked out by hand (offsets count bytes from 0).
@Suite struct StrictJSONParserTests {
    typealias Code = JSONSyntaxError.Code

    private func parse(
        _ bytes: [UInt8], maximumDepth: Int = StrictJSONParser.defaultMaximumDepth
    ) throws(JSONSyntaxError) -> JSONValue {
        try StrictJSONParser.parse(bytes, maximumDepth: maximumDepth)
    }

    @Test func parsesEveryKindOfValueInOrder() throws {
        let text = #" {"b": [1, -0.5e+3, 0, true, false, null], "a": "x\u00e9\ud834\udd1e\n\/", "c": {}} "#
        let value = try parse(Array(text.utf8))
        #expect(
            value
                == .object([
                    JSONMember(
                        name: "b",
                        value: .array([
                            .number("1"), .number("-0.5e+3"), .number("0"), .bool(true), .bool(false), .null,
                        ])
                    ),
                    JSONMember(name: "a", value: .string("x\u{E9}\u{1D11E}\n/")),
                    JSONMember(name: "c", value: .object([])),
                ]))
        #expect(value[member: "a"] == .string("x\u{E9}\u{1D11E}\n/"))
        #expect(value[member: "z"] == nil)
        #expect(value[member: "a"]?.stringValue == "x\u{E9}\u{1D11E}\n/")
        #expect(value[member: "b"]?.stringValue == nil)
        #expect(value[member: "b"]?[member: "x"] == nil)  // not an object
        #expect(try parse(Array("\"é€😀\"".utf8)) == .string("é€😀"))  // raw UTF-8 of 2, 3 and 4 bytes
    }

    /// RFC 8259 section 8.3: names compare code unit by code unit, so names that Swift's `String` calls
    /// equal (canonical equivalence) are two members: "K" and U+212A KELVIN SIGN, "\u00e9" and "e" + U+0301.
    @Test func namesThatAreOnlyCanonicallyEquivalentAreDistinct() throws {
        let value = try parse(Array(#"{"K":1,"\u212a":2,"\u00e9":3,"e\u0301":4}"#.utf8))
        guard case .object(let members) = value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map { $0.name.unicodeScalars.map(\.value) } == [[0x4B], [0x212A], [0xE9], [0x65, 0x301]])
        #expect(value[member: "K"] == .number("1"))
        #expect(value[member: "\u{212A}"] == .number("2"))
        #expect(value[member: "e\u{301}"] == .number("4"))
        let shallow = try Array(#"{"\u212a":2,"K":1}"#.utf8).withUnsafeBufferPointer {
            try StrictJSONParser.scanShallow($0)
        }
        #expect(shallow["K"]?.kind == .number)
        #expect(shallow.members.count == 2)
        #expect(shallow["K"]?.name.unicodeScalars.first?.value == 0x4B)
    }

    static let refusals: [(bytes: [UInt8], code: Code, offset: Int)] = [
        (Array("".utf8), .unexpectedEnd, 0),
        (Array("[1,2".utf8), .unexpectedEnd, 4),
        (Array("01".utf8), .leadingZero, 1),
        (Array("-01".utf8), .leadingZero, 2),
        (Array("[00]".utf8), .leadingZero, 2),
        (Array("-".utf8), .unexpectedEnd, 1),
        (Array("-a".utf8), .invalidNumber, 1),
        (Array("1.".utf8), .unexpectedEnd, 2),
        (Array("1.x".utf8), .invalidNumber, 2),
        (Array("1e+".utf8), .unexpectedEnd, 3),
        (Array(".5".utf8), .unexpectedCharacter, 0),
        (Array(#"{"a":1,"a":2}"#.utf8), .duplicateMember, 7),
        (Array(#"{"a":1,"\u0061":2}"#.utf8), .duplicateMember, 7),  // compared after unescaping
        (Array(#"{"a" 1}"#.utf8), .unexpectedCharacter, 5),
        (Array("{1:2}".utf8), .unexpectedCharacter, 1),
        (Array(#"{"a":1,}"#.utf8), .unexpectedCharacter, 7),
        (Array("[1,]".utf8), .unexpectedCharacter, 3),
        (Array("[1 2]".utf8), .unexpectedCharacter, 3),
        ([0x22, 0x61, 0x01, 0x22], .controlCharacter, 2),  // raw U+0001 in a string
        (Array(#""\x""#.utf8), .invalidEscape, 1),
        (Array(#""\u12G4""#.utf8), .invalidEscape, 5),
        (Array(#""\ud800""#.utf8), .loneSurrogate, 1),
        (Array(#""\ud800\u0041""#.utf8), .loneSurrogate, 1),
        (Array(#""\udc00""#.utf8), .loneSurrogate, 1),
        (Array(#""abc"#.utf8), .unexpectedEnd, 4),
        ([0x22, 0x61, 0xFF, 0x22], .invalidUTF8, 2),
        ([0x22, 0xC0, 0x80, 0x22], .invalidUTF8, 1),  // overlong NUL
        ([0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, 1),  // an encoded surrogate
        ([0x22, 0xE2, 0x82, 0x22], .invalidUTF8, 1),  // truncated sequence
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, 1),  // above U+10FFFF
        ([0x5B, 0xFF, 0x5D], .unexpectedCharacter, 1),  // a non-ASCII byte outside a string
        (Array("tru".utf8), .unexpectedEnd, 3),
        (Array("trux".utf8), .unexpectedCharacter, 3),
        (Array("1 2".utf8), .trailingBytes, 2),
        (Array("{} x".utf8), .trailingBytes, 3),
    ]

    @Test(arguments: 0..<35)
    func refusesWithCodeAndExactOffset(index: Int) {
        let (bytes, code, offset) = Self.refusals[index]
        #expect(throws: JSONSyntaxError.self) { try parse(bytes) }
        do {
            _ = try parse(bytes)
        } catch {
            #expect(error.code == code, "\(error)")
            #expect(error.offset == offset, "\(error)")
        }
    }

    @Test func nestingLimitIs64UnlessTold() throws {
        let deepest = Array(String(repeating: "[", count: 64).utf8) + Array(String(repeating: "]", count: 64).utf8)
        _ = try parse(deepest)
        let tooDeep = Array(String(repeating: "[", count: 65).utf8) + Array(String(repeating: "]", count: 65).utf8)
        let error = #expect(throws: JSONSyntaxError.self) { try parse(tooDeep) }
        #expect(error?.code == .tooDeep)
        #expect(error?.offset == 64)
        let objects = Array(#"{"a":{"b":{}}}"#.utf8)
        _ = try parse(objects, maximumDepth: 3)
        #expect(throws: JSONSyntaxError.self) { try parse(objects, maximumDepth: 2) }
    }

    @Test func everyStringScratchIsWiped() throws {
        var wiped = 0
        _ = try StrictJSONParser.parse(Array(#"{"k":["v","w"]}"#.utf8)) { scratch in
            wiped += 1
            for index in scratch.indices { scratch[index] = 0 }
        }
        #expect(wiped == 3)
    }

    @Test func aDuplicateMembersReasonDoesNotEchoTheName() {
        let error = #expect(throws: JSONSyntaxError.self) {
            try parse(Array(#"{"\u001b[2J":1,"\u001b[2J":2}"#.utf8))
        }
        #expect(error?.code == .duplicateMember)
        #expect(error?.reason.contains("\u{1B}") == false)
        #expect(error?.duplicateName == "\u{1B}[2J")
    }
}
