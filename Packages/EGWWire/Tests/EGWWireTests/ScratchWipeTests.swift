import EGWWire
import FreedMemoryScan
import Testing

/// A string decoded by `parse(_:maximumDepth:wipe:)` leaves no unwiped scratch behind: under FuzzSupport's
/// ``FreedMemoryScan`` (the test binary's `free` searches every block this thread releases), no released block
/// holds 16 consecutive bytes of the string, in plain UTF-8 or written with escapes.
@Suite(
    "Parser scratch", .serialized,
    .enabled(if: FreedMemoryScan.isAvailable, "free() is not interposed under a sanitizer"))
struct ScratchWipeTests {
    /// 342 characters of base64url (a 2048-bit JWK's `d` is that long), none repeating within 64.
    static let secret: [UInt8] = {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        return (0..<342).map { alphabet[($0 &* 29 &+ $0 / 64) % 64] }
    }()

    static func zero(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }

    @Test(arguments: [false, true])
    func aWipedStringLeavesNoCopyInReleasedScratch(escaped: Bool) throws {
        // As an escape, each character is \u00XX: six input bytes per decoded byte.
        let body: [UInt8] =
            escaped
            ? Self.secret.flatMap { Array("\\u00\(String($0, radix: 16))".utf8) } : Self.secret
        let document = Array(#"{"kty":"RSA","d":""#.utf8) + body + Array(#""}"#.utf8)
        var value: JSONValue?
        let seen = try FreedMemoryScan.scan(for: [Self.secret]) { () throws(JSONSyntaxError) in
            value = try StrictJSONParser.parse(document, wipe: { Self.zero(&$0) })
        }
        // The value's own string (the caller's to keep or drop) is alive here: only scratch was released.
        #expect(value?[member: "d"] == .string(String(decoding: Self.secret, as: UTF8.self)))
        #expect(seen.releases >= 2, "\(seen.releases) releases")
        #expect(seen.hits == 0, "\(seen.hits) released blocks held part of the string")
    }
}

/// A shallow scan says where each member's value lies; parsing that slice alone builds the member's value.
@Suite struct ShallowValueRangeTests {
    @Test func eachMembersValueRangeParsesToItsValue() throws {
        let text = #"{"a": "x\u0041", "b": [1, {"c": null}], "d": {"e": "f"}, "g": -1.5e3, "h": true}"#
        let bytes = Array(text.utf8)
        let full = try StrictJSONParser.parse(bytes)
        let document = try bytes.withUnsafeBufferPointer { try StrictJSONParser.scanShallow($0) }
        #expect(document.members.map(\.name) == ["a", "b", "d", "g", "h"])
        for member in document.members {
            let range = try #require(member.valueRange)
            let alone = try bytes.withUnsafeBufferPointer {
                try StrictJSONParser.parse(UnsafeBufferPointer(rebasing: $0[range]))
            }
            #expect(alone == full[member: member.name], "\(member.name)")
        }
    }
}
