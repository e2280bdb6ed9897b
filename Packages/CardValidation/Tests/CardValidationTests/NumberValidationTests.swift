import CardValidation
import EGWWire
import Foundation
import Testing

@Suite("Card number validation")
struct NumberValidationTests {
    typealias Reason = CardValidationIssue.Reason

    private func issue(_ number: String) -> CardValidationIssue? {
        validCard(number: number).validationIssue(for: .cardNumber)
    }

    @Test("every published test card is valid", arguments: publishedCards)
    func publishedCardIsValid(_ card: PublishedCard) {
        #expect(issue(card.number) == nil)
        #expect(CardNumber.isLuhnValid(card.number))
    }

    // Lengths 11 to 20, every number Luhn-valid (published cards where one
    // exists; otherwise the check digit was computed with the independent
    // Python Luhn named in TestData.swift).
    static let lengths: [(String, Int, Reason?)] = [
        ("79927398713", 11, .tooShort),  // Wikipedia "Luhn algorithm" example
        ("424242424242", 12, nil),
        ("501800000009", 12, nil),
        ("4929000000006", 13, nil),  // Opayo Visa
        ("36259600000004", 14, nil),  // Braintree Diners Club
        ("378282246310005", 15, nil),  // Stripe Amex
        ("4242424242424242", 16, nil),  // Stripe Visa
        ("42424242424242426", 17, nil),
        ("60110000000000001", 17, nil),
        ("424242424242424242", 18, nil),
        ("4242424242424242428", 19, nil),
        ("6799998900000099990", 19, nil),  // Adyen POS Maestro
        ("6000070736169237003", 19, nil),  // Adyen POS Maestro NL (not in our table: unknown brand, still valid)
        ("42424242424242424242", 20, .tooLong),
    ]

    @Test("every length from 11 to 20", arguments: lengths)
    func length(_ number: String, _ count: Int, _ expected: Reason?) {
        #expect(number.count == count)
        #expect(issue(number)?.reason == expected)
    }

    @Test func checkDigitFailures() {
        // Each is a valid published number with its last digit changed; a
        // single changed digit always breaks the Luhn sum.
        #expect(issue("4242424242424241")?.reason == .checksumFailed)
        #expect(issue("378282246310006")?.reason == .checksumFailed)
        #expect(issue("5555555555554445")?.reason == .checksumFailed)
        // Live state: a 16-digit Visa may still be a 19-digit one being typed;
        // an Amex at 15 and a Mastercard at 16 cannot grow.
        #expect(issue("4242424242424241")?.state == .incomplete)
        #expect(issue("378282246310006")?.state == .invalid)
        #expect(issue("5555555555554445")?.state == .invalid)
        #expect(issue("4242424242424242421")?.state == .invalid)  // 19 digits, the most there is
    }

    @Test(
        "formatting characters are accepted",
        arguments: [
            "4242 4242 4242 4242", "4242-4242-4242-4242", " 4242424242424242 ", "4242  4242 - 4242 4242",
            "4242\u{00A0}4242\u{00A0}4242\u{00A0}4242", "4242\u{2013}4242\u{2013}4242\u{2013}4242",
            "4242\u{202F}4242 4242 4242", "3782 822463 10005",
        ])
    func formattingAccepted(_ number: String) {
        #expect(issue(number) == nil)
    }

    @Test(
        "any other character is an error",
        arguments: [
            "4242 4242 4242 424a", "x4242424242424242", "4242/4242/4242/4242", "4242.4242.4242.4242",
            "4242_4242_4242_4242", "4242\u{200B}4242 4242 4242", "4242\n4242424242424", "+4242424242424242",
            "４２４２４２４２４２４２４２４２",  // fullwidth digits
            "٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢",  // Arabic-Indic digits
            "4242 4242 4242 4242 🙂", "4242424242424242\u{0}",
        ])
    func otherCharacters(_ number: String) {
        let found = issue(number)
        #expect(found?.reason == .invalidCharacters)
        #expect(found?.state == .invalid)
    }

    @Test("empty and blank input is missing", arguments: ["", " ", "    ", "-", " - - ", "\u{00A0}"])
    func emptyAndBlank(_ number: String) {
        let found = issue(number)
        #expect(found?.reason == .missing)
        #expect(found?.state == .incomplete)
    }

    @Test("partial numbers are incomplete, not invalid", arguments: ["4", "4242", "4242 4242 4", "37828224631"])
    func partial(_ number: String) {
        let card = validCard(number: number)
        #expect(card.fieldState(for: .cardNumber) == .incomplete)
        #expect(card.validationIssue(for: .cardNumber)?.reason == .tooShort)
        #expect(card.validationError(for: .cardNumber) != nil)
    }

    @Test func luhnAgreesWithTheTextbookAlgorithm() {
        var random = SplitMix64(seed: 0x5EED)
        for _ in 0..<3_000 {
            let length = Int.random(in: 1...19, using: &random)
            let digits = String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            #expect(CardNumber.isLuhnValid(digits) == referenceLuhn(digits), "\(digits)")
        }
        #expect(!CardNumber.isLuhnValid(""))
        #expect(!CardNumber.isLuhnValid("4242 4242 4242 4242"))  // digits only
        #expect(CardNumber.isLuhnValid("0"))
    }

    @Test func digitsOfANumber() {
        #expect(CardNumber.digits(of: "4242 4242-4242\u{00A0}4242") == "4242424242424242")
        #expect(CardNumber.digits(of: "") == "")
        #expect(CardNumber.digits(of: " - ") == "")
        #expect(CardNumber.digits(of: "4242x") == nil)
        #expect(CardNumber.digits(of: "４２") == nil)
    }

    @Test func formatting() {
        #expect(CardNumber.format("4242424242424242") == "4242 4242 4242 4242")
        #expect(CardNumber.format("4242-4242-4242-4242") == "4242 4242 4242 4242")
        #expect(CardNumber.format("378282246310005") == "3782 822463 10005")
        #expect(CardNumber.format("3782822") == "3782 822")
        #expect(CardNumber.format("4242424242424242428") == "4242 4242 4242 4242 428")
        #expect(CardNumber.format("42424") == "4242 4")
        #expect(CardNumber.format("4242") == "4242")
        #expect(CardNumber.format("") == "")
    }

    @Test func masking() {
        #expect(CardNumber.masked("4242 4242 4242 4242") == "•••• 4242")
        #expect(CardNumber.masked("378282246310005") == "•••• 0005")
        #expect(CardNumber.masked("4242") == "••••")
        #expect(CardNumber.masked("42424242") == "••••")
        #expect(CardNumber.masked("") == "")
    }

    @Test func theErrorIsTheContractsNSError() throws {
        let card = validCard(number: "4242424242424241")
        let error = try #require(card.validationError(for: .cardNumber))
        #expect(error.domain == "com.egw.egwpay")
        #expect(error.code == 7)
        #expect(error.localizedDescription.contains("card number"))
        #expect(error.userInfo[CardValidationIssue.fieldUserInfoKey] as? Int == CardField.cardNumber.rawValue)
        #expect(error.userInfo[CardValidationIssue.reasonUserInfoKey] as? String == "checksumFailed")
    }

    @Test func brandNeverRejects() {
        // A 16-digit number with an Amex prefix (check digit from the Python Luhn)
        // is valid: the brand
        // is for display only.
        #expect(issue("3400000000000000") == nil)
        #expect(CardNumber.isLuhnValid("3400000000000000"))
    }
}
