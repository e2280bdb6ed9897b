import CGtk4
import CPaymentUIGtk
import CPaymentUITestHooks
import CardFields
import CardValidation
import PaymentUITesting
import XCTest

// Expected texts and carets are worked out by hand from the grouping the contract states (4-4-4-4, Amex
// 4-6-5, one space between groups), the brand lengths (Visa 19, Mastercard 16, Amex 15) and the caret
// rule (after the last inserted digit, before the next one). Every edit below reaches the entry through
// the signal GTK's key bindings emit for that key.
final class CardNumberEntryTests: XCTestCase {
    func testTypingGroupsAsItGoes() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            let expected: [(String, Int)] = [
                ("4", 1), ("42", 2), ("424", 3), ("4242", 4), ("4242 4", 6), ("4242 42", 7), ("4242 424", 8),
                ("4242 4242", 9), ("4242 4242 4", 11),
            ]
            for (key, step) in zip("424242424", expected) {
                egwui_key_insert(Harness.gtk(number.widgetReference), String(key))
                XCTAssertEqual(shown(number.widgetReference), step.0)
                XCTAssertEqual(position(number.widgetReference), step.1, "caret after \(step.0)")
            }
            XCTAssertEqual(number.digits, "424242424")
            XCTAssertEqual(number.brand, .visa)
        }
    }

    /// The app's reference is a reference of its own (GLib's count says so): the widget outlives the entry
    /// object while the app holds it, and the reference names the entry's very widget.
    func testTheWidgetReferenceHoldsTheWidgetBeyondTheEntry() throws {
        try onMain {
            guard UITest.initialize() else { throw XCTSkip("no display") }
            var number: CardNumberEntry? = CardNumberEntry()
            let reference = try XCTUnwrap(number?.widgetReference)
            XCTAssertTrue(number?.widgetReference === reference, "one reference per entry")
            let widget = UITest.pointer(reference)
            let count = { widget.assumingMemoryBound(to: GObject.self).pointee.ref_count }
            XCTAssertEqual(count(), 2, "the entry's own reference and the app's")
            type("4242", into: reference)
            XCTAssertEqual(number?.text, "4242", "the reference names the entry's widget")
            number = nil
            XCTAssertEqual(count(), 1, "the entry gave its own back; the app's holds the widget")
            XCTAssertEqual(shown(reference), "4242")
        }
    }

    func testVisaStopsAt19Digits() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            type("4242424242424242424", into: number.widgetReference)
            XCTAssertEqual(shown(number.widgetReference), "4242 4242 4242 4242 424")
            XCTAssertEqual(position(number.widgetReference), 23)
            type("9", into: number.widgetReference)
            XCTAssertEqual(shown(number.widgetReference), "4242 4242 4242 4242 424")
            XCTAssertEqual(position(number.widgetReference), 23)
        }
    }

    func testAmexGroups465StopsAt15AndTheBrandIsObservable() throws {
        try onMain {
            let number = CardNumberEntry()
            var brands: [CardBrand] = []
            number.onBrandChange = { brands.append($0) }
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            type("3782822463100051", into: number.widgetReference)
            XCTAssertEqual(shown(number.widgetReference), "3782 822463 10005")
            XCTAssertEqual(position(number.widgetReference), 17)
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
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            type("55555555555544441", into: number.widgetReference)
            XCTAssertEqual(shown(number.widgetReference), "5555 5555 5555 4444")
            XCTAssertEqual(position(number.widgetReference), 19)
        }
    }

    func testBackspaceInTheMiddleRegroups() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            type("4242424242424242", into: number.widgetReference)
            moveCaret(number.widgetReference, to: 7)  // "4242 42|42 ..."
            egwui_key_backspace(Harness.gtk(number.widgetReference))
            XCTAssertEqual(shown(number.widgetReference), "4242 4424 2424 242")
            XCTAssertEqual(position(number.widgetReference), 6)
        }
    }

    func testBackspaceOverASpaceDeletesTheDigitBeforeIt() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            type("42424242", into: number.widgetReference)
            moveCaret(number.widgetReference, to: 5)  // "4242 |4242"
            egwui_key_backspace(Harness.gtk(number.widgetReference))
            XCTAssertEqual(shown(number.widgetReference), "4244 242")
            XCTAssertEqual(position(number.widgetReference), 3)
        }
    }

    func testForwardDeleteSkipsTheSpace() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            type("42424242", into: number.widgetReference)
            moveCaret(number.widgetReference, to: 4)  // "4242| 4242"
            egwui_key_delete(Harness.gtk(number.widgetReference))
            XCTAssertEqual(shown(number.widgetReference), "4242 242")
            XCTAssertEqual(position(number.widgetReference), 5)
        }
    }

    func testPastingAFormattedNumber() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            for pasted in ["4242-4242-4242-4242", " 4242 4242 4242 4242\n", "4242\u{00A0}4242\u{00A0}4242\u{00A0}4242"]
            {
                number.clear()
                paste(pasted, into: number.widgetReference, harness: harness)
                XCTAssertEqual(
                    shown(number.widgetReference), "4242 4242 4242 4242", "pasted \(pasted.debugDescription)")
                XCTAssertEqual(position(number.widgetReference), 19)
            }
        }
    }

    func testPastingGarbageChangesNothing() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            type("424242", into: number.widgetReference)
            moveCaret(number.widgetReference, to: 2)
            paste("4242abc", into: number.widgetReference, harness: harness)
            XCTAssertEqual(shown(number.widgetReference), "4242 42")
            XCTAssertEqual(position(number.widgetReference), 2)
            XCTAssertEqual(number.digits, "424242")
        }
    }

    func testPastingInTheMiddle() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            type("42424242", into: number.widgetReference)
            moveCaret(number.widgetReference, to: 4)
            paste("1111", into: number.widgetReference, harness: harness)
            XCTAssertEqual(shown(number.widgetReference), "4242 1111 4242")
            XCTAssertEqual(position(number.widgetReference), 10)
        }
    }

    /// Typing over a selection: GTK deletes the selection, then inserts the key.
    func testTypingOverTheFirstDigitsMakesAnAmex() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            type("4242424242424242", into: number.widgetReference)
            egwui_editable_select(Harness.gtk(number.widgetReference), 0, 2)
            egwui_key_backspace(Harness.gtk(number.widgetReference))
            XCTAssertEqual(shown(number.widgetReference), "4242 4242 4242 42")
            XCTAssertEqual(position(number.widgetReference), 0)
            type("37", into: number.widgetReference)
            // 37 + the 14 digits left is 16 digits: an Amex has 15, so the last is dropped.
            XCTAssertEqual(shown(number.widgetReference), "3742 424242 42424")
            XCTAssertEqual(position(number.widgetReference), 2)
            XCTAssertEqual(number.brand, .amex)
        }
    }

    func testTheAppSettingTheTextIsFormattedToo() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            egwui_editable_set_text(Harness.gtk(number.widgetReference), "5555-5555-5555-4444")
            XCTAssertEqual(shown(number.widgetReference), "5555 5555 5555 4444")
            XCTAssertEqual(number.brand, .mastercard)
        }
    }

    func testInputPurposeAndAccessibleName() throws {
        try onMain {
            let number = CardNumberEntry()
            let harness = try Harness([number.widgetReference])
            defer { harness.close() }
            XCTAssertEqual(egwui_entry_input_purpose(Harness.gtk(number.widgetReference)), GTK_INPUT_PURPOSE_DIGITS)
            XCTAssertEqual(egwui_entry_visibility(Harness.gtk(number.widgetReference)), 1)
            XCTAssertNil(
                accessibleMismatch(egwui_accessible_check_label(Harness.gtk(number.widgetReference), "Card number")))
        }
    }
}
