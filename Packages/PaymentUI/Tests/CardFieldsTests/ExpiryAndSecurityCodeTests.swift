import CGtk4
import CPaymentUIGtk
import CPaymentUITestHooks
import CardFields
import CardValidation
import XCTest

// Expected values by hand from the contract's expiry rules (MM/YY, the slash once the month is complete,
// a first digit above 1 is a month 0N, months 01-12 only) and the brand code lengths (Amex 4, else 3).
final class CardExpiryEntryTests: XCTestCase {
    func testTypingFormatsMMYY() throws {
        try onMain {
            let expiry = CardExpiryEntry()
            let harness = try Harness([expiry.widgetReference])
            defer { harness.close() }
            let steps: [(Character, String, Int, String, String)] = [
                ("1", "1", 1, "", ""), ("2", "12/", 3, "12", ""), ("3", "12/3", 4, "12", "3"),
                ("0", "12/30", 5, "12", "30"), ("1", "12/30", 5, "12", "30"),
            ]
            for (key, text, caret, month, year) in steps {
                egwui_key_insert(Harness.gtk(expiry.widgetReference), String(key))
                XCTAssertEqual(shown(expiry.widgetReference), text)
                XCTAssertEqual(position(expiry.widgetReference), caret)
                XCTAssertEqual(expiry.month, month)
                XCTAssertEqual(expiry.year, year)
            }
        }
    }

    func testAFirstDigitAbove1IsAMonthAndImpossibleMonthsAreRefused() throws {
        try onMain {
            let expiry = CardExpiryEntry()
            let harness = try Harness([expiry.widgetReference])
            defer { harness.close() }
            type("4", into: expiry.widgetReference)
            XCTAssertEqual(shown(expiry.widgetReference), "04/")
            XCTAssertEqual(position(expiry.widgetReference), 3)
            expiry.clear()
            type("13", into: expiry.widgetReference)
            XCTAssertEqual(shown(expiry.widgetReference), "1")
            XCTAssertEqual(position(expiry.widgetReference), 1)
        }
    }

    func testBackspaceOverTheSlashDeletesTheMonthsLastDigit() throws {
        try onMain {
            let expiry = CardExpiryEntry()
            let harness = try Harness([expiry.widgetReference])
            defer { harness.close() }
            type("123", into: expiry.widgetReference)
            egwui_key_backspace(Harness.gtk(expiry.widgetReference))
            XCTAssertEqual(shown(expiry.widgetReference), "12/")
            XCTAssertEqual(position(expiry.widgetReference), 3)
            egwui_key_backspace(Harness.gtk(expiry.widgetReference))
            XCTAssertEqual(shown(expiry.widgetReference), "1")
            XCTAssertEqual(position(expiry.widgetReference), 1)
            XCTAssertEqual(expiry.month, "")
        }
    }

    func testPastingADate() throws {
        try onMain {
            let expiry = CardExpiryEntry()
            let harness = try Harness([expiry.widgetReference])
            defer { harness.close() }
            for (pasted, expected) in [("12/2030", "12/30"), ("1/30", "01/30"), (" 12 / 30\n", "12/30")] {
                expiry.clear()
                paste(pasted, into: expiry.widgetReference, harness: harness)
                XCTAssertEqual(shown(expiry.widgetReference), expected, "pasted \(pasted.debugDescription)")
                XCTAssertEqual(position(expiry.widgetReference), 5)
            }
        }
    }

    func testErrorStateIsSetAndClearedThroughGTKsAccessibleAPI() throws {
        try onMain {
            let expiry = CardExpiryEntry()
            let harness = try Harness([expiry.widgetReference])
            defer { harness.close() }
            let widget = Harness.gtk(expiry.widgetReference)
            type("0120", into: expiry.widgetReference)
            let card = CardInput(
                cardNumber: "4242424242424242", expiryMonth: expiry.month, expiryYear: expiry.year,
                securityCode: "123", clock: .fixed(Date(timeIntervalSince1970: 1_795_000_000)))
            let error = try XCTUnwrap(card.validationError(for: .expiry))
            XCTAssertFalse(CardNumberEntry().showValidationError(error), "an expiry error is not the number's")
            XCTAssertTrue(expiry.showValidationError(error))
            XCTAssertEqual(expiry.validationMessage, "The card has expired.")
            XCTAssertNil(accessibleMismatch(egwui_accessible_check_invalid(widget, 1)))
            XCTAssertNil(accessibleMismatch(egwui_accessible_check_description(widget, "The card has expired.")))
            XCTAssertEqual(egwui_widget_has_class(widget, "error"), 1)
            harness.spin(0.2)
            try saveScreenshot(harness.window, "card-form-invalid-expiry-only")

            XCTAssertTrue(expiry.showValidationError(nil))
            XCTAssertNil(accessibleMismatch(egwui_accessible_check_invalid(widget, 0)))
            XCTAssertNotNil(accessibleMismatch(egwui_accessible_check_invalid(widget, 1)))
            XCTAssertEqual(egwui_accessible_has_description(widget), 0)
            XCTAssertEqual(egwui_widget_has_class(widget, "error"), 0)

            XCTAssertTrue(expiry.showValidationError(error))
            type("1", into: expiry.widgetReference)  // a full field does not change: the error stays
            XCTAssertNotNil(expiry.validationMessage)
            egwui_key_backspace(widget)  // an edit that changes the text clears it
            XCTAssertNil(expiry.validationMessage)
            XCTAssertNil(accessibleMismatch(egwui_accessible_check_invalid(widget, 0)))
        }
    }
}

final class CardSecurityCodeEntryTests: XCTestCase {
    func testMaskedPINEntryLimitedByBrand() throws {
        try onMain {
            let code = CardSecurityCodeEntry(brand: .visa)
            let harness = try Harness([code.widgetReference])
            defer { harness.close() }
            let widget = Harness.gtk(code.widgetReference)
            XCTAssertEqual(egwui_entry_input_purpose(widget), GTK_INPUT_PURPOSE_PIN)
            XCTAssertEqual(egwui_entry_visibility(widget), 0)
            XCTAssertNil(accessibleMismatch(egwui_accessible_check_label(widget, "Security code")))
            type("7373", into: code.widgetReference)
            XCTAssertEqual(code.digits, "737")
            XCTAssertEqual(position(code.widgetReference), 3)
            type("a", into: code.widgetReference)
            XCTAssertEqual(code.digits, "737")
        }
    }

    func testTheLengthFollowsTheNumbersBrand() throws {
        try onMain {
            let number = CardNumberEntry()
            let code = CardSecurityCodeEntry()
            number.onBrandChange = { code.brand = $0 }
            let harness = try Harness([number.widgetReference, code.widgetReference])
            defer { harness.close() }
            type("3782", into: number.widgetReference)
            XCTAssertEqual(code.maximumLength, 4)
            type("9173", into: code.widgetReference)
            XCTAssertEqual(code.digits, "9173")
            number.clear()
            type("4242", into: number.widgetReference)
            XCTAssertEqual(code.brand, .visa)
            XCTAssertEqual(code.maximumLength, 3)
            XCTAssertEqual(code.digits, "917", "a lower limit drops the digits past it")
            XCTAssertEqual(shown(code.widgetReference), "917")
        }
    }

    /// Seed 001 reads each field's text: `card.securityCode = securityCodeField.text`. The text is the
    /// code typed (a valid card), while the entry itself still shows a mask (visibility off).
    func testTheSeedsTextReadingGivesAValidCard() throws {
        try onMain {
            let numberField = CardNumberTextField()
            let expiryField = CardExpiryTextField()
            let securityCodeField = CardSecurityCodeTextField()
            numberField.onBrandChange = { securityCodeField.brand = $0 }
            let harness = try Harness([
                numberField.widgetReference, expiryField.widgetReference, securityCodeField.widgetReference,
            ])
            defer { harness.close() }
            type("4242424242424242", into: numberField.widgetReference)
            type("1230", into: expiryField.widgetReference)
            type("737", into: securityCodeField.widgetReference)
            let card = CardInput(clock: .fixed(Date(timeIntervalSince1970: 1_795_000_000)))
            card.cardholderName = "Jane Doe"
            card.cardNumber = numberField.text
            card.expiryMonth = expiryField.month
            card.expiryYear = expiryField.year
            card.securityCode = securityCodeField.text
            XCTAssertNil(card.validationError(for: .securityCode))
            XCTAssertTrue(card.isValid)
            XCTAssertEqual(
                egwui_entry_visibility(Harness.gtk(securityCodeField.widgetReference)), 0, "the display stays masked")
        }
    }

    func testTheEntriesFillACardInputInOneCall() throws {
        try onMain {
            let number = CardNumberEntry()
            let expiry = CardExpiryEntry()
            let code = CardSecurityCodeEntry()
            number.onBrandChange = { code.brand = $0 }
            let harness = try Harness([number.widgetReference, expiry.widgetReference, code.widgetReference])
            defer { harness.close() }
            type("378282246310005", into: number.widgetReference)
            type("1230", into: expiry.widgetReference)
            type("9173", into: code.widgetReference)
            let card = CardInput(clock: .fixed(Date(timeIntervalSince1970: 1_795_000_000)))
            card.fill(number: number, expiry: expiry, securityCode: code, cardholderName: "Jane Doe")
            XCTAssertEqual(card.cardNumber, "378282246310005")
            XCTAssertEqual(card.expiryMonth, "12")
            XCTAssertEqual(card.expiryYear, "30")
            XCTAssertEqual(card.securityCode, "9173")
            XCTAssertEqual(card.cardholderName, "Jane Doe")
            XCTAssertTrue(card.showValidationErrors(number: number, expiry: expiry, securityCode: code))
            XCTAssertTrue(card.isValid)
        }
    }
}
