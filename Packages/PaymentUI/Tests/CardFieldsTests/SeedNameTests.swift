import CardFields
import Testing

/// Issue 30 (0): the seed's three field names answer to the GTK entries (the same types, not copies).
@Suite struct SeedNameTests {
    @Test func theSeedsFieldNamesAreTheEntries() {
        #expect(ObjectIdentifier(CardNumberTextField.self) == ObjectIdentifier(CardNumberEntry.self))
        #expect(ObjectIdentifier(CardExpiryTextField.self) == ObjectIdentifier(CardExpiryEntry.self))
        #expect(ObjectIdentifier(CardSecurityCodeTextField.self) == ObjectIdentifier(CardSecurityCodeEntry.self))
    }
}
