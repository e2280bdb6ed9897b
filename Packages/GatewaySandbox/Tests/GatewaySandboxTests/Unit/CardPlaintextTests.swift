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

    static let refusals: [(String, String)] = [
        // Not a card object at all.
        ("not json", "the card data is not valid JSON (invalid literal)"),
        ("card", "the card data is not valid JSON (unexpected character)"),
        ("", "the card data is not valid JSON (unexpected end of input)"),
        (card() + " {}", "the card data is not valid JSON (unexpected data after the JSON value)"),
        (
            card(extra: #""cardNumber": "4111111111111111""#),
            #"the card data is not valid JSON (duplicated member "cardNumber")"#
        ),
        (card(number: #""4111111111111111"#), "the card data is not valid JSON (expected ',' or '}')"),
        (card(number: "\"4111\u{01}1111\""), "the card data is not valid JSON (control character in string)"),
        (card(number: #""4111\x1111""#), "the card data is not valid JSON (invalid escape)"),
        (card(number: #""\ud834""#), "the card data is not valid JSON (lone high surrogate)"),
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
        #expect(problem.reason == "the card data is not valid JSON (invalid UTF-8 in string)")
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
}
