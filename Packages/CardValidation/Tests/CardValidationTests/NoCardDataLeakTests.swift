import CardValidation
import Foundation
import Testing

/// Proves that nothing this package produces as text — descriptions, debug
/// descriptions, `dump` output, error messages, NSError descriptions — holds
/// a card number or a security code.
@Suite("No card data in descriptions or messages")
struct NoCardDataLeakTests {
    /// Security codes chosen so that none is part of the numbers' last four
    /// digits (which may be shown).
    static let samples: [(number: String, code: String)] = [
        ("4242 4242 4242 4242", "737"),
        ("4242424242424242", "7373"),
        ("378282246310005", "9191"),
        ("5555-5555-5555-4444", "868"),
        ("6799998900000099990", "515"),
        ("4242424242424241", "373"),  // invalid (Luhn)
        ("4242 4242 4242 424a", "12x"),  // invalid characters
        ("42424242424242424242", "73737"),  // too long
        ("4242 4242", "95"),  // partial
    ]

    /// Every run of 5 or more consecutive digits of the number, and the
    /// security code: none may appear in `text`.
    private func assertClean(_ text: String, number: String, code: String, _ what: String) {
        let digits = number.filter { $0.isASCII && $0.isNumber }
        #expect(!text.contains(number), "\(what) contains the number")
        if digits.count >= 5 {
            let characters = Array(digits)
            for start in 0...(characters.count - 5) {
                let window = String(characters[start..<start + 5])
                #expect(!text.contains(window), "\(what) contains \(window)")
            }
        }
        #expect(!text.contains(code), "\(what) contains the security code")
    }

    private func everything(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped]
    }

    @Test("CardInput", arguments: samples)
    func cardInput(_ number: String, _ code: String) {
        let card = CardInput(
            cardholderName: "Jane Doe", cardNumber: number, expiryMonth: "12", expiryYear: "30", securityCode: code,
            clock: .fixed(Instant.nov29_2026))
        for (index, text) in everything(card).enumerated() {
            assertClean(text, number: number, code: code, "CardInput text #\(index)")
        }
        for field in CardField.allCases {
            if let error = card.validationError(for: field) {
                assertClean(error.localizedDescription, number: number, code: code, "\(field) message")
                assertClean(String(describing: error), number: number, code: code, "\(field) NSError")
                assertClean(String(describing: error.userInfo), number: number, code: code, "\(field) userInfo")
            }
            if let issue = card.validationIssue(for: field) {
                assertClean(issue.description, number: number, code: code, "\(field) issue")
            }
        }
        #expect(String(describing: card).contains("CardInput("))
    }

    @Test func aNumberTypedIntoTheWrongFieldIsNotShownEither() {
        let number = "4242424242424242"
        let card = CardInput(
            cardholderName: number, cardNumber: "", expiryMonth: number, expiryYear: number, securityCode: number)
        for text in everything(card) {
            assertClean(text, number: number, code: "4242424", "misplaced number")
        }
        for field in CardField.allCases {
            if let error = card.validationError(for: field) {
                assertClean(error.localizedDescription, number: number, code: "4242424", "\(field) message")
            }
        }
    }

    @Test("editors", arguments: samples)
    func editors(_ number: String, _ code: String) {
        var numberField = CardNumberEditor()
        numberField.insert(number.filter { $0.isASCII && $0.isNumber })
        for text in everything(numberField) {
            assertClean(text, number: number, code: code, "number editor")
        }
        var codeField = CardSecurityCodeEditor(brand: .unknown)
        codeField.insert(code.filter { $0.isASCII && $0.isNumber })
        for text in everything(codeField) where !codeField.digits.isEmpty {
            #expect(!text.contains(codeField.digits), "code editor shows the code")
        }
        #expect(codeField.displayText.allSatisfy { $0 == "•" })
    }

    @Test func maskedShowsOnlyTheLastFour() {
        let masked = CardNumber.masked("5555 5555 5555 4444")
        #expect(masked == "•••• 4444")
        #expect(!masked.contains("5555"))
    }
}
