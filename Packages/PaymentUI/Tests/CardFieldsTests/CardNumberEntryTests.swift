import CGtk4
import CPaymentUIGtk
import CPaymentUITestHooks
import CardFields
import CardValidation
import XCTest

// Expected texts and carets are worked out by hand from the grouping the contract states (4-4-4-4, Amex
// 4-6-5, one space between groups), the brand lengths (Visa 19, Mastercard 16, Amex 15) and the caret
// rule (after the last inserted digit, before the next one). Every edit below reaches the entry through
// the signal GTK's key bindings emit for that key.
final class CardNumberEntryTests: XCTestCase {
    func testTypingGroupsAsItGoes() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            let expected: [(String, Int)] = [
                ("4", 1), ("42", 2), ("424", 3), ("4242", 4), ("4242 4", 6), ("4242 42", 7), ("4242 424", 8),
                ("4242 4242", 9), ("4242 4242 4", 11),
            ]
            for (key, step) in zip("424242424", expected) {
                egwui_key_insert(Harness.gtk(number.widget), String(key))
                XCTAssertEqual(shown(number.widget), step.0)
                XCTAssertEqual(position(number.widget), step.1, "caret after \(step.0)")
            }
            XCTAssertEqual(number.digits, "424242424")
            XCTAssertEqual(number.brand, .visa)
        }
    }

    func testVisaStopsAt19Digits() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            type("4242424242424242424", into: number.widget)
            XCTAssertEqual(shown(number.widget), "4242 4242 4242 4242 424")
            XCTAssertEqual(position(number.widget), 23)
            type("9", into: number.widget)
            XCTAssertEqual(shown(number.widget), "4242 4242 4242 4242 424")
            XCTAssertEqual(position(number.widget), 23)
        }
    }

    func testAmexGroups465StopsAt15AndTheBrandIsObservable() throws {
        try onMain {
            let number = CardNumberEntry()
            var brands: [CardBrand] = []
            number.onBrandChange = { brands.append($0) }
            let harness = try Harness([number.widget])
            defer { harness.close() }
            type("3782822463100051", into: number.widget)
            XCTAssertEqual(shown(number.widget), "3782 822463 10005")
            XCTAssertEqual(position(number.widget), 17)
            XCTAssertEqual(number.digits, "378282246310005")
            XCTAssertEqual(number.brand, .amex)
            XCTAssertEqual(brands.last, .amex)
            XCTAssertEqual(
                brands,
                brands.enumerated().filter { $0.offset == 0 || brands[$0.offset - 1] != $0.element }
                    .map(\.element), "told only when the brand changes")
            number.clear()
            XCTAssertEqual(brands.last, .unknown)
        }
    }

    func testMastercardStopsAt16() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            type("55555555555544441", into: number.widget)
            XCTAssertEqual(shown(number.widget), "5555 5555 5555 4444")
            XCTAssertEqual(position(number.widget), 19)
        }
    }

    func testBackspaceInTheMiddleRegroups() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            type("4242424242424242", into: number.widget)
            moveCaret(number.widget, to: 7)  // "4242 42|42 ..."
            egwui_key_backspace(Harness.gtk(number.widget))
            XCTAssertEqual(shown(number.widget), "4242 4424 2424 242")
            XCTAssertEqual(position(number.widget), 6)
        }
    }

    func testBackspaceOverASpaceDeletesTheDigitBeforeIt() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            type("42424242", into: number.widget)
            moveCaret(number.widget, to: 5)  // "4242 |4242"
            egwui_key_backspace(Harness.gtk(number.widget))
            XCTAssertEqual(shown(number.widget), "4244 242")
            XCTAssertEqual(position(number.widget), 3)
        }
    }

    func testForwardDeleteSkipsTheSpace() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            type("42424242", into: number.widget)
            moveCaret(number.widget, to: 4)  // "4242| 4242"
            egwui_key_delete(Harness.gtk(number.widget))
            XCTAssertEqual(shown(number.widget), "4242 242")
            XCTAssertEqual(position(number.widget), 5)
        }
    }

    func testPastingAFormattedNumber() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            for pasted in ["4242-4242-4242-4242", " 4242 4242 4242 4242\n", "4242\u{00A0}4242\u{00A0}4242\u{00A0}4242"]
            {
                number.clear()
                paste(pasted, into: number.widget, harness: harness)
                XCTAssertEqual(shown(number.widget), "4242 4242 4242 4242", "pasted \(pasted.debugDescription)")
                XCTAssertEqual(position(number.widget), 19)
            }
        }
    }

    func testPastingGarbageChangesNothing() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            type("424242", into: number.widget)
            moveCaret(number.widget, to: 2)
            paste("4242abc", into: number.widget, harness: harness)
            XCTAssertEqual(shown(number.widget), "4242 42")
            XCTAssertEqual(position(number.widget), 2)
            XCTAssertEqual(number.digits, "424242")
        }
    }

    func testPastingInTheMiddle() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            type("42424242", into: number.widget)
            moveCaret(number.widget, to: 4)
            paste("1111", into: number.widget, harness: harness)
            XCTAssertEqual(shown(number.widget), "4242 1111 4242")
            XCTAssertEqual(position(number.widget), 10)
        }
    }

    /// Typing over a selection: GTK deletes the selection, then inserts the key.
    func testTypingOverTheFirstDigitsMakesAnAmex() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            type("4242424242424242", into: number.widget)
            egwui_editable_select(Harness.gtk(number.widget), 0, 2)
            egwui_key_backspace(Harness.gtk(number.widget))
            XCTAssertEqual(shown(number.widget), "4242 4242 4242 42")
            XCTAssertEqual(position(number.widget), 0)
            type("37", into: number.widget)
            // 37 + the 14 digits left is 16 digits: an Amex has 15, so the last is dropped.
            XCTAssertEqual(shown(number.widget), "3742 424242 42424")
            XCTAssertEqual(position(number.widget), 2)
            XCTAssertEqual(number.brand, .amex)
        }
    }

    func testTheAppSettingTheTextIsFormattedToo() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            egwui_editable_set_text(Harness.gtk(number.widget), "5555-5555-5555-4444")
            XCTAssertEqual(shown(number.widget), "5555 5555 5555 4444")
            XCTAssertEqual(number.brand, .mastercard)
        }
    }

    func testInputPurposeAndAccessibleName() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widget])
            defer { harness.close() }
            XCTAssertEqual(egwui_entry_input_purpose(Harness.gtk(number.widget)), GTK_INPUT_PURPOSE_DIGITS)
            XCTAssertEqual(egwui_entry_visibility(Harness.gtk(number.widget)), 1)
            XCTAssertNil(accessibleMismatch(egwui_accessible_check_label(Harness.gtk(number.widget), "Card number")))
        }
    }
}
