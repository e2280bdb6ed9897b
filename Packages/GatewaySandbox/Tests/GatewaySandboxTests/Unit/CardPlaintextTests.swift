import JWE
import Testing

@testable import GatewaySandbox

/// The card plaintext parser, fed hand-written JSON. The refusal reasons are pinned word for word:
/// they are what the sandbox answered before the parser stopped building `String`s from the plaintext,
/// and must stay the same.
@Suite struct CardPlaintextTests {
    /// Card JSON with the members in GATEWAY.md's order; each value is raw JSON text, `nil` leaves the
    /// member out, `extra` is appended as raw member text.
    static func card(
        name: String? = #""Ada Lovelace""#, number: String? = #""4111111111111111""#, month: String? = #""12""#,
        year: String? = #""34""#, code: String? = #""123""#, extra: String? = nil
    ) -> String {
        let members: [(String, String?)] = [
            ("cardholderName", name), ("cardNumber", number), ("expiryMonth", month), ("expiryYear", year),
            ("securityCode", code),
        ]
        let written =
            members.compactMap { key, value in value.map { "\"\(key)\": \($0)" } } + (extra.map { [$0] } ?? [])
        return "{" + written.joined(separator: ", ") + "}"
    }

    /// The JSON reasons are EGWWire's strict parser's (the sandbox's own parser is gone).
    static let refusals: [(String, String)] = [
        // Not a card object at all.
        ("not json", "the card data is not valid JSON (invalid literal)"),
        ("card", "the card data is not valid JSON (unexpected character)"),
        ("", "the card data is not valid JSON (unexpected end of input)"),
        (card() + " {}", "the card data is not valid JSON (unexpected bytes after the JSON value)"),
        (
            card(extra: #""cardNumber": "4111111111111111""#),
            #"the card data is not valid JSON (duplicate member "cardNumber")"#
        ),
        (card(number: #""4111111111111111"#), "the card data is not valid JSON (expected ',' or '}')"),
        (card(number: "\"4111\u{01}1111\""), "the card data is not valid JSON (control character in string)"),
        (card(number: #""4111\x1111""#), "the card data is not valid JSON (invalid escape)"),
        (card(number: #""\ud834""#), "the card data is not valid JSON (lone surrogate escape)"),
        (#"["4111111111111111"]"#, "the card data is not a JSON object"),
        (#""4111111111111111""#, "the card data is not a JSON object"),
        ("4111111111111111", "the card data is not a JSON object"),
        // Missing and unexpected members: the first in sorted order is named.
        (card(code: nil), #"the card data has no "securityCode""#),
        (card(year: nil, code: nil), #"the card data has no "expiryYear""#),
        ("{}", #"the card data has no "cardNumber""#),
        (card(extra: #""brand": "visa""#), #"the card data has an unexpected member "brand""#),
        // Wrong types.
        (card(name: "null"), #""cardholderName" must be a string, not null"#),
        (card(number: "4111111111111111"), #""cardNumber" must be a string, not number"#),
        (card(number: #"["4111111111111111"]"#), #""cardNumber" must be a string, not array"#),
        (card(month: "12"), #""expiryMonth" must be a string, not number"#),
        (card(year: "true"), #""expiryYear" must be a string, not boolean"#),
        (card(code: #"{"value": "123"}"#), #""securityCode" must be a string, not object"#),
        // Not digits, or the wrong number of them.
        (card(number: #""4111-1111-1111-1111""#), #""cardNumber" must be 12 to 19 digits"#),
        (card(number: #""4111 1111 1111 1111""#), #""cardNumber" must be 12 to 19 digits"#),
        (card(number: #""411111111111111A""#), #""cardNumber" must be 12 to 19 digits"#),
        (card(number: #""\u0041111111111111111""#), #""cardNumber" must be 12 to 19 digits"#),
        // U+0664 ARABIC-INDIC DIGIT FOUR is a digit to Unicode, not to the card number.
        (card(number: "\"\u{0664}111111111111111\""), #""cardNumber" must be 12 to 19 digits"#),
        (card(number: #""41111111111""#), #""cardNumber" must be 12 to 19 digits"#),
        (card(number: #""41111111111111111111""#), #""cardNumber" must be 12 to 19 digits"#),
        (card(number: "\"" + String(repeating: "4", count: 5000) + "\""), #""cardNumber" must be 12 to 19 digits"#),
        (card(number: #""""#), #""cardNumber" must be 12 to 19 digits"#),
        (card(month: #""1""#), #""expiryMonth" must be 2 digits"#),
        (card(month: #""123""#), #""expiryMonth" must be 2 digits"#),
        (card(month: #""1a""#), #""expiryMonth" must be 2 digits"#),
        (card(month: #""13""#), #""expiryMonth" must be 01 to 12"#),
        (card(month: #""00""#), #""expiryMonth" must be 01 to 12"#),
        (card(year: #""2034""#), #""expiryYear" must be 2 digits"#),
        (card(year: #""3-""#), #""expiryYear" must be 2 digits"#),
        (card(code: #""12""#), #""securityCode" must be 3 to 4 digits"#),
        (card(code: #""12345""#), #""securityCode" must be 3 to 4 digits"#),
        (card(code: #""12a""#), #""securityCode" must be 3 to 4 digits"#),
        // The name: present, not blank, at most 45 characters, no control characters.
        (card(name: #""""#), #""cardholderName" is blank"#),
        (card(name: #"" \t ""#), #""cardholderName" is blank"#),
        (
            card(name: "\"" + String(repeating: "A", count: 46) + "\""),
            #""cardholderName" is longer than 45 characters"#
        ),
        (card(name: #""Ada\u0007""#), #""cardholderName" contains a control character"#),
        // The first problem in member order is the one reported.
        (card(name: "1", number: "2"), #""cardholderName" must be a string, not number"#),
        (card(number: #""1""#, code: #""1""#), #""cardNumber" must be 12 to 19 digits"#),
    ]

    @Test(arguments: refusals)
    func refusesWithTheSameReasonAsBefore(_ text: String, _ reason: String) throws {
        let problem = try #require(throws: CardData.Problem.self) { try CardData.parse(Array(text.utf8)) }
        #expect(problem.reason == reason)
        #expect(!problem.reason.contains("4111"))
    }

    /// Invalid UTF-8 inside the number's string (0xC3 0x28: a lead byte without its continuation).
    @Test func refusesInvalidUTF8InTheNumber() throws {
        let bytes = Array(Self.card(number: #""4111111111111111""#).utf8)
        let numberStart = try #require(bytes.firstRange(of: Array("4111".utf8))?.lowerBound)
        var broken = bytes
        broken.replaceSubrange(numberStart..<numberStart + 2, with: [0xC3, 0x28])
        let problem = try #require(throws: CardData.Problem.self) { try CardData.parse(broken) }
        #expect(problem.reason == "the card data is not valid JSON (not valid UTF-8)")
    }

    @Test(arguments: [
        card(number: #""\u0034111111111111111""#),  // an escaped digit is still that digit
        card(name: "\"" + String(repeating: "A", count: 45) + "\""),
        card(name: "\"" + String(repeating: "e\u{0301}", count: 45) + "\""),  // 45 characters, 90 scalars
        card(number: #""411111111111""#, code: #""1234""#),  // 12 digits, a 4-digit code
        card(number: #""4111111111111111116""#),  // 19 digits
        card(month: #""01""#, year: #""00""#),
    ])
    func accepts(_ text: String) throws {
        _ = try CardData.parse(Array(text.utf8))
    }

    /// Each card of GATEWAY.md's table read from bytes: what the sandbox keeps of it.
    @Test(arguments: [
        ("4111111111111111", "1111", CardBehaviour.frictionless(transStatus: "Y")),
        ("5555555555554444", "4444", .challenge), ("6759649826438453", "8453", .challenge),
        ("4000000000003063", "3063", .frictionless(transStatus: "A")), ("5200828282828210", "8210", .noThreeDS),
        ("4000000000000002", "0002", .declined), ("6011111111111117", "1117", .frictionless(transStatus: "R")),
        ("378282246310005", "0005", .brandNotAccepted),
        // Not in the table: any other Amex-prefixed 15 digits is refused, anything else is frictionless Y.
        ("371449635398431", "8431", .brandNotAccepted), ("4242424242424242", "4242", .frictionless(transStatus: "Y")),
        // One digit away from a table number (its Luhn check fails): not that card's behaviour.
        ("4000000000000003", "0003", .frictionless(transStatus: "Y")),
    ])
    func keepsLastFourAndBehaviour(_ number: String, _ last4: String, _ behaviour: CardBehaviour) throws {
        let card = try CardData.parse(Array(Self.card(number: "\"\(number)\"", code: #""1234""#).utf8))
        #expect(card.last4 == last4)
        #expect(card.behaviour == behaviour)
        #expect(card.isLuhnValid == (number != "4000000000000003"))
        #expect(card.expiryMonth == 12)
        #expect(card.expiryYear == 2034)
        #expect(card.securityCodeLength == 4)
        #expect(card.description == "card •••• \(last4)")
    }

    @Test func cardDigitsKeepDigitsAndCountPastTheirCapacity() {
        // (Values are read into locals first: #expect cannot take a noncopyable operand.)
        var digits = CardDigits(capacity: 4)
        for scalar in "1234".unicodeScalars { digits.append(scalar) }
        let fourAreACode = digits.isDigits(3...4)
        let stored = digits.withDigits { Array($0) }
        let value = digits.value
        #expect(fourAreACode)
        #expect(stored == Array("1234".utf8))
        #expect(value == 1234)
        digits.append("5")  // over-long: counted, not stored
        let fiveAreACode = digits.isDigits(3...4)
        let counted = digits.utf8Count
        let kept = digits.withDigits { $0.count }
        #expect(!fiveAreACode)
        #expect(counted == 5)
        #expect(kept == 4)

        var mixed = CardDigits(capacity: 4)
        for scalar in "1\u{0664}3".unicodeScalars { mixed.append(scalar) }  // U+0664 is two UTF-8 bytes
        let (onlyDigits, mixedCount, mixedIsACode) = (mixed.onlyDigits, mixed.utf8Count, mixed.isDigits(3...4))
        #expect(!onlyDigits)
        #expect(mixedCount == 4)
        #expect(!mixedIsACode)
    }

    @Test func wipingThePlaintextZeroesItInPlace() {
        var plaintext = Array(Self.card().utf8)
        let count = plaintext.count
        CardMemory.wipe(&plaintext)
        #expect(plaintext.count == count)
        #expect(plaintext.allSatisfy { $0 == 0 })
    }

    /// The decrypted plaintext reaches the parser as bytes, and the key service gives nothing else back.
    @Test func keysHandThePlaintextToTheParserOnly() throws {
        let keys = JWECardKeys(key: TestKeys.shared)
        let token = try JWEEncrypter(recipient: TestKeys.shared.publicKey.withKid(keys.currentKid)).encrypt(
            Array(Self.card().utf8))
        let parsed = keys.withPlaintext(of: token) { plaintext in
            Result { () throws(CardData.Problem) in try CardData.parse(plaintext) }
        }
        #expect((try? parsed.get().get())?.last4 == "1111")
        var called = false
        let refused = keys.withPlaintext(of: "a.b.c.d.e") { _ in called = true }
        #expect(!called)
        guard case .failure(.decryptionFailed) = refused else {
            Issue.record("a broken token was not DECRYPTION_FAILED")
            return
        }
    }

    /// Token text never reaches an answer raw: a `kid` carrying an ANSI escape and a C1 control is escaped.
    @Test func anUnknownKidIsEscapedBeforeItIsEchoed() throws {
        let keys = JWECardKeys(key: TestKeys.shared)
        let hostile = "evil\u{1B}[31m\u{9B}kid"
        let token = try JWEEncrypter(recipient: TestKeys.shared.publicKey.withKid(hostile)).encrypt(
            Array(Self.card().utf8))
        let refused = keys.withPlaintext(of: token) { _ in 0 }
        guard case .failure(.unknownKey(let kid)) = refused else {
            Issue.record("expected UNKNOWN_KEY, got \(refused)")
            return
        }
        #expect(!kid.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B })
        #expect(kid.contains("\\u001b") || kid.contains("\\u001B"))
    }
}
