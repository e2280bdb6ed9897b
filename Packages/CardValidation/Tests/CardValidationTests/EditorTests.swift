import CardValidation
import Testing

// Expected texts and carets are worked out by hand from the behaviour the
// contract and issue 2 describe (grouping 4-4-4-4 / Amex 4-6-5, caret after
// the last inserted digit, backspace over a space deletes the digit before).

@Suite("Card number editor")
struct CardNumberEditorTests {
    @Test func typingGroupsAsItGoes() {
        var field = CardNumberEditor()
        let expected: [(String, Int)] = [
            ("4", 1), ("42", 2), ("424", 3), ("4242", 4), ("4242 4", 6), ("4242 42", 7), ("4242 424", 8),
            ("4242 4242", 9), ("4242 4242 4", 11),
        ]
        for (typed, step) in zip("424242424", expected) {
            #expect(field.insert(String(typed)) == .applied)
            #expect(field.text == step.0)
            #expect(field.caret == step.1)
        }
        #expect(field.digits == "424242424")
        #expect(field.brand == .visa)
    }

    @Test func visaGoesTo19DigitsAndStops() {
        var field = CardNumberEditor()
        for digit in "4242424242424242" { field.insert(String(digit)) }
        #expect(field.text == "4242 4242 4242 4242")
        #expect(field.caret == 19)
        for digit in "424" { field.insert(String(digit)) }
        #expect(field.text == "4242 4242 4242 4242 424")
        #expect(field.caret == 23)
        #expect(field.insert("9") == .truncated)
        #expect(field.text == "4242 4242 4242 4242 424")
        #expect(field.caret == 23)
    }

    @Test func amexGroups465AndStopsAt15() {
        var field = CardNumberEditor()
        for digit in "378282246310005" { field.insert(String(digit)) }
        #expect(field.text == "3782 822463 10005")
        #expect(field.caret == 17)
        #expect(field.brand == .amex)
        #expect(field.insert("1") == .truncated)
        #expect(field.digits == "378282246310005")
    }

    @Test func mastercardStopsAt16() {
        var field = CardNumberEditor()
        #expect(field.insert("5555 5555 5555 4444 1") == .truncated)
        #expect(field.text == "5555 5555 5555 4444")
        #expect(field.caret == 19)
    }

    @Test func deleteInTheMiddle() {
        var field = CardNumberEditor(text: "4242 4242 4242 4242")
        field.moveCaret(to: 7)  // "4242 42|42 ..."
        #expect(field.deleteBackward() == .applied)
        // The sixth digit (a 2) is gone; the rest regroups.
        #expect(field.text == "4242 4424 2424 242")
        #expect(field.caret == 6)  // "4242 4|424 ..."
    }

    @Test func backspaceOverASpaceDeletesTheDigitBeforeIt() {
        var field = CardNumberEditor(text: "4242 4242")
        field.moveCaret(to: 5)  // "4242 |4242"
        field.deleteBackward()
        #expect(field.text == "4244 242")
        #expect(field.caret == 3)
    }

    @Test func forwardDeleteSkipsTheSpace() {
        var field = CardNumberEditor(text: "4242 4242")
        field.moveCaret(to: 4)  // "4242| 4242"
        field.deleteForward()
        #expect(field.text == "4242 242")
        #expect(field.caret == 5)  // "4242 |242"
    }

    @Test func deleteEverything() {
        var field = CardNumberEditor(text: "4242 42")
        for _ in 0..<10 { field.deleteBackward() }
        #expect(field.text == "")
        #expect(field.caret == 0)
        #expect(field.deleteBackward() == .applied)
        #expect(field.deleteForward() == .applied)
    }

    @Test(
        "pasting a formatted number",
        arguments: [
            "4242-4242-4242-4242", "4242 4242 4242 4242", "4242424242424242", " 4242 4242 4242 4242\n",
            "4242\u{00A0}4242\u{00A0}4242\u{00A0}4242", "4242–4242–4242–4242",
        ])
    func pasteFormatted(_ pasted: String) {
        var field = CardNumberEditor()
        #expect(field.insert(pasted) == .applied)
        #expect(field.text == "4242 4242 4242 4242")
        #expect(field.caret == 19)
    }

    @Test("pasting garbage changes nothing", arguments: ["hello", "4242abc", "4242/4242", "💳", "4242.4242", "١٢٣"])
    func pasteGarbage(_ pasted: String) {
        var field = CardNumberEditor(text: "4242 42", caret: 2)
        let before = field
        #expect(field.insert(pasted) == .rejected)
        #expect(field == before)
        #expect(field.text == "4242 42")
        #expect(field.caret == 2)
    }

    @Test func pasteInTheMiddle() {
        var field = CardNumberEditor(text: "4242 4242")
        field.moveCaret(to: 4)
        #expect(field.insert("1111") == .applied)
        #expect(field.text == "4242 1111 4242")
        #expect(field.caret == 10)  // after the pasted digits, before the next one: "4242 1111 |4242"
    }

    @Test func replacingTheFirstDigitsChangesBrandAndGrouping() {
        var field = CardNumberEditor(text: "4242 4242 4242 4242")
        // Select "42" and type "37": an Amex prefix, so 15 digits at most.
        #expect(field.replace(0..<2, with: "37") == .truncated)
        #expect(field.brand == .amex)
        #expect(field.text == "3742 424242 42424")
        #expect(field.caret == 2)
    }

    @Test func replaceASelectionAcrossASpace() {
        var field = CardNumberEditor(text: "4242 4242 4242")
        #expect(field.replace(3..<6, with: "9") == .applied)  // "424|2 4|242..." -> digits 2,4 replaced by 9
        #expect(field.text == "4249 2424 242")
        #expect(field.caret == 5)  // "4249 |2424 242"
    }

    @Test func thePureFormTakesAnyUIText() {
        let (field, outcome) = CardNumberEditor.edit(text: "4242-4242", selection: 9..<9, replacement: "4")
        #expect(outcome == .applied)
        #expect(field.text == "4242 4242 4")
        #expect(field.caret == 11)
        let (deleted, _) = CardNumberEditor.edit(text: "4242 4242", selection: 4..<5, replacement: "")
        #expect(deleted.text == "4244 242")
        #expect(deleted.caret == 3)
        let (rejected, why) = CardNumberEditor.edit(text: "4242", selection: 2..<2, replacement: "x")
        #expect(why == .rejected)
        #expect(rejected.text == "4242")
    }

    @Test func outOfRangeSelectionsAreClamped() {
        var field = CardNumberEditor(text: "4242")
        #expect(field.replace(10..<20, with: "4") == .applied)
        #expect(field.text == "4242 4")
        #expect(field.replace(-3..<0, with: "5") == .applied)
        #expect(field.text == "5424 24")
        field.moveCaret(to: 99)
        #expect(field.caret == 7)
    }

    @Test func stateFollowsTheRules() {
        #expect(CardNumberEditor(text: "4242").state == .incomplete)
        #expect(CardNumberEditor(text: "4242424242424242").state == .valid)
        #expect(CardNumberEditor(text: "378282246310006").state == .invalid)
    }
}

@Suite("Expiry editor")
struct CardExpiryEditorTests {
    @Test func typingFormatsMMYY() {
        var field = CardExpiryEditor()
        let steps: [(String, String, Int, String, String)] = [
            // typed, text, caret, month, year
            ("1", "1", 1, "", ""),
            ("2", "12/", 3, "12", ""),
            ("3", "12/3", 4, "12", "3"),
            ("0", "12/30", 5, "12", "30"),
        ]
        for (typed, text, caret, month, year) in steps {
            #expect(field.insert(typed) == .applied)
            #expect(field.text == text)
            #expect(field.caret == caret)
            #expect(field.month == month)
            #expect(field.year == year)
        }
        #expect(field.insert("1") == .truncated)
        #expect(field.text == "12/30")
    }

    @Test("a first digit above 1 becomes 0N", arguments: ["2", "3", "4", "5", "6", "7", "8", "9"])
    func firstDigitPadded(_ digit: String) {
        var field = CardExpiryEditor()
        #expect(field.insert(digit) == .applied)
        #expect(field.text == "0\(digit)/")
        #expect(field.month == "0\(digit)")
        #expect(field.caret == 3)
    }

    @Test func impossibleMonthsAreRejected() {
        var field = CardExpiryEditor()
        field.insert("1")
        #expect(field.insert("3") == .rejected)
        #expect(field.text == "1")
        field = CardExpiryEditor()
        field.insert("0")
        #expect(field.insert("0") == .rejected)
        #expect(field.text == "0")
        #expect(field.insert("9") == .applied)
        #expect(field.text == "09/")
    }

    @Test func backspace() {
        var field = CardExpiryEditor(text: "12/3")
        field.deleteBackward()
        #expect(field.text == "12/")
        #expect(field.caret == 3)
        #expect(field.year == "")
        field.deleteBackward()  // over the slash: the month's last digit goes
        #expect(field.text == "1")
        #expect(field.caret == 1)
        #expect(field.month == "")
    }

    @Test(
        "pasting a date",
        arguments: [
            ("12/30", "12/30"), ("1230", "12/30"), ("12 / 30", "12/30"), ("12/2030", "12/30"),
            ("1/30", "01/30"), ("4/2031", "04/31"), ("12-30", "12/30"), ("12.30", "12/30"), (" 12/30\n", "12/30"),
        ])
    func paste(_ pasted: String, _ expected: String) {
        var field = CardExpiryEditor()
        #expect(field.insert(pasted) == .applied)
        #expect(field.text == expected)
        #expect(field.caret == 5)
    }

    @Test("pasting garbage changes nothing", arguments: ["ab", "12/3x", "13/30", "00/30", "Dec 30"])
    func pasteGarbage(_ pasted: String) {
        var field = CardExpiryEditor()
        #expect(field.insert(pasted) == .rejected)
        #expect(field.text == "")
    }

    @Test func editsInTheYear() {
        var field = CardExpiryEditor(text: "12/30")
        field.moveCaret(to: 4)
        field.deleteBackward()
        #expect(field.text == "12/0")
        #expect(field.caret == 3)
        #expect(field.insert("4") == .applied)
        #expect(field.text == "12/40")
        #expect(field.caret == 4)
    }

    @Test func deletionsAreNeverRejected() {
        var field = CardExpiryEditor(text: "12/30")
        field.moveCaret(to: 1)
        #expect(field.deleteBackward() == .applied)
        #expect(field.text == "23/0")
        #expect(field.caret == 0)
        let card = CardInput(expiryMonth: field.month, expiryYear: field.year, clock: .fixed(Instant.nov29_2026))
        #expect(card.fieldState(for: .expiry) == .invalid)
    }

    @Test func feedsCardInput() {
        var field = CardExpiryEditor()
        field.insert("1230")
        let card = validCard(month: field.month, year: field.year)
        #expect(card.validationIssue(for: .expiry) == nil)
    }
}

@Suite("Security code editor")
struct CardSecurityCodeEditorTests {
    @Test func typingIsMaskedAndLimitedByBrand() {
        var field = CardSecurityCodeEditor(brand: .visa)
        for digit in "737" { #expect(field.insert(String(digit)) == .applied) }
        #expect(field.displayText == "•••")
        #expect(field.digits == "737")
        #expect(field.caret == 3)
        #expect(field.insert("3") == .truncated)
        #expect(field.digits == "737")

        var amex = CardSecurityCodeEditor(brand: .amex)
        amex.insert("73737")
        #expect(amex.digits == "7373")
        #expect(amex.displayText == "••••")

        var unknown = CardSecurityCodeEditor()
        unknown.insert("7373")
        #expect(unknown.digits == "7373")
    }

    @Test func loweringTheLimitDropsExtraDigits() {
        var field = CardSecurityCodeEditor(brand: .unknown, digits: "7373")
        field.brand = .mastercard
        #expect(field.digits == "737")
        #expect(field.caret == 3)
        field.brand = .amex
        #expect(field.digits == "737")
    }

    @Test func deleteInTheMiddle() {
        var field = CardSecurityCodeEditor(brand: .amex, digits: "1234")
        field.moveCaret(to: 2)
        field.deleteBackward()
        #expect(field.digits == "134")
        #expect(field.caret == 1)
        field.deleteForward()
        #expect(field.digits == "14")
        #expect(field.caret == 1)
    }

    @Test("non-digits are rejected", arguments: ["a", "12a", "1 2", "١٢٣", "•"])
    func garbage(_ pasted: String) {
        var field = CardSecurityCodeEditor(brand: .visa, digits: "7")
        #expect(field.insert(pasted) == .rejected)
        #expect(field.digits == "7")
    }

    @Test func thePureForm() {
        let (field, outcome) = CardSecurityCodeEditor.edit(
            digits: "77", selection: 1..<1, replacement: "3", brand: .visa)
        #expect(outcome == .applied)
        #expect(field.digits == "737")
        #expect(field.caret == 2)
    }

    /// Seed 001: `card.securityCode = securityCodeField.text` (the app reads the field's text, as with
    /// every other field) gives a valid card: the text is what the buyer typed; only the display is masked.
    @Test func theTextIsWhatTheBuyerTypedAndOnlyTheDisplayIsMasked() {
        var field = CardSecurityCodeEditor(brand: .visa)
        for digit in "737" { field.insert(String(digit)) }
        #expect(field.text == field.digits)
        #expect(field.text.allSatisfy { $0.isASCII && $0.isNumber } && field.text.count == 3)
        #expect(field.displayText.count == 3 && field.displayText.allSatisfy { $0 == "•" })
        let card = validCard(code: field.text)
        #expect(card.validationError(for: .securityCode) == nil)
        #expect(card.isValid)
        var number = CardNumberEditor()
        number.insert("4242424242424242")
        #expect(number.displayText == number.text)
    }

    @Test func numberFieldBrandDrivesTheCodeField() {
        var number = CardNumberEditor()
        number.insert("3782 822463 10005")
        var code = CardSecurityCodeEditor(brand: number.brand)
        code.insert("7373")
        #expect(code.digits == "7373")
        let card = validCard(number: number.text, code: code.digits)
        #expect(card.isValid)
    }
}
