import EGWWire
import Testing

@testable import PaymentFlow

/// The JWE plaintext is written with EGWWire's one escape policy; the expected bytes are written by hand
/// from that policy's documentation (RFC 8259 two-character escapes for `"` and `\`, lower-case `\uXXXX`
/// for controls, DEL, C1, U+2028/U+2029 and the bidi controls, everything else as UTF-8).
@Suite struct CardPlaintextTests {
    static func plaintext(name: String, number: String = "4242 4242-4242 4242") -> [UInt8] {
        let card = CardInput(
            cardholderName: name, cardNumber: number, expiryMonth: "12", expiryYear: "34", securityCode: "123"
        ).snapshot()
        return CardPlaintext.with(card) { Array($0) }
    }

    @Test func aPlainNameIsWrittenAsItselfAndTheNumberAsDigits() {
        #expect(
            Self.plaintext(name: "Ada Lovelace")
                == Array(
                    #"{"cardholderName":"Ada Lovelace","cardNumber":"4242424242424242","expiryMonth":"12","expiryYear":"34","securityCode":"123"}"#
                        .utf8))
    }

    @Test func theNameIsEscapedByTheSharedPolicy() throws {
        let bytes = Self.plaintext(name: "A\"d\\a\n\u{7F}\u{85}\u{2028}\u{202E}é€")
        #expect(
            bytes
                == Array(
                    #"{"cardholderName":"A\"d\\a\u000a\u007f\u0085\u2028\u202eé€","cardNumber":"4242424242424242","expiryMonth":"12","expiryYear":"34","securityCode":"123"}"#
                        .utf8))
        // The strict parser reads the name back unchanged.
        let parsed = try StrictJSONParser.parse(bytes)
        #expect(parsed[member: "cardholderName"]?.stringValue == "A\"d\\a\n\u{7F}\u{85}\u{2028}\u{202E}é€")
    }
}
