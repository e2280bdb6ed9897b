import FreedMemoryScan
import Testing

@testable import CardValidation

/// What typing a card gives back to the allocator (issue 29, item 6): under TestSupport's
/// ``FreedMemoryScan`` (this test binary interposes `free` and `realloc`; every block the test's thread
/// releases is searched before glibc gets it back), the SDK's own path from keystrokes to a validated
/// snapshot releases no block holding the number. Freed heap blocks are in a core dump too, so this is the
/// half of the dump proof an `madvise` cannot give.
@Suite(
    "Freed card data", .serialized,
    .enabled(if: FreedMemoryScan.isAvailable, "free() is not interposed under a sanitizer"))
struct FreedCardDataTests {
    static let number = "4111111145551142"
    static var needles: [[UInt8]] {
        [Array(number.utf8), Array(CardNumber.format(number).utf8), Array("4111 1111 4555".utf8)]
    }

    /// Types the number and the code one keystroke at a time (with a correction), fills a card from the
    /// editors and asks it everything a form asks.
    static func typeAndValidate(handOver: (CardInput, CardNumberEditor, CardSecurityCodeEditor) -> Void) -> Bool {
        var field = CardNumberEditor()
        for character in number.dropLast() { field.insert(String(character)) }
        field.insert("9")
        field.deleteBackward()
        field.insert(String(number.last!))
        field.moveCaret(to: 4)
        field.moveCaret(to: field.caret + 100)
        var code = CardSecurityCodeEditor(brand: field.brand)
        for character in "737" { code.insert(String(character)) }
        let card = CardInput(cardholderName: "Ada Lovelace", expiryMonth: "12", expiryYear: "34")
        handOver(card, field, code)
        let snapshot = card.snapshot()
        _ = (field.description, code.description, card.description, snapshot.description, field.state, code.state)
        return snapshot.isValid && card.isValid && field.brand == .visa
    }

    @Test func typingACardIntoTheEditorsAndHandingItOverReleasesNoCopyOfTheNumber() {
        var valid = false
        let seen = FreedMemoryScan.scan(for: Self.needles) {
            valid = Self.typeAndValidate { card, field, code in
                card.setCardNumber(from: field)
                card.setSecurityCode(from: code)
            }
        }
        #expect(valid)
        #expect(seen.releases >= 1, "the interposed free saw \(seen.releases) releases")
        #expect(seen.hits == 0, "\(seen.hits) released blocks held the number")
    }

    /// The control, and the documented limit: a number handed over as a `String` (the app's memory) comes
    /// back to the allocator unwiped when the app lets it go.
    @Test func aNumberHandedOverAsAStringIsTheAppsCopy() {
        var valid = false
        let seen = FreedMemoryScan.scan(for: Self.needles) {
            valid = Self.typeAndValidate { card, field, code in
                card.cardNumber = field.digits
                card.securityCode = code.digits
            }
        }
        #expect(valid)
        #expect(seen.hits >= 1)
    }
}
