import Testing

@testable import PaymentAuthorization

/// What crosses to a presenter is values: an error names its field, a refusal its reason. The
/// English descriptions are the terminal's (egw-repl prints them); written by hand from its README.
@Suite struct SheetSeamTests {
    struct ShopClosed: Error, CustomStringConvertible { var description: String { "the shop is closed" } }

    @Test func everyDelegateErrorNamesTheFieldItBelongsTo() {
        let rows: [(any Error, SheetError, SheetField)] = [
            (
                PaymentRequestError.shippingContactInvalid(.postalAddress),
                .request(.shippingContactInvalid(.postalAddress)), .contact
            ),
            (PaymentRequestError.billingContactInvalid(nil), .request(.billingContactInvalid(nil)), .contact),
            (PaymentRequestError.shippingAddressUnserviceable, .request(.shippingAddressUnserviceable), .contact),
            (PaymentRequestError.couponCodeInvalid, .request(.couponCodeInvalid), .coupon),
            (PaymentRequestError.couponCodeExpired, .request(.couponCodeExpired), .coupon),
            (
                PaymentRequestError.unknown("coupon invalid, says the shop"),
                .request(.unknown("coupon invalid, says the shop")), .general
            ),
            (WalletCardError.declined, .card(.declined), .card),
            (WalletCardError.brandNotAccepted, .card(.brandNotAccepted), .card),
            (WalletCardError.authenticationFailed, .card(.authenticationFailed), .card),
            (ShopClosed(), .other("the shop is closed"), .general),
        ]
        for (error, value, field) in rows {
            #expect(SheetError(error) == value)
            #expect(SheetError(error).field == field, "\(value)")
        }
        #expect(Set(rows.map(\.2)) == Set(SheetField.allCases))
    }

    /// An unknown error whose words start like a known one stays general: the field comes from the
    /// value, not from a prefix of its text.
    @Test func anErrorIsPlacedByItsValueNotByItsWords() {
        #expect(SheetError.request(.unknown("card declined by the shop")).field == .general)
        #expect(SheetError.other("coupon expired").field == .general)
    }

    @Test func theDescriptionsAreTheTerminalsWords() {
        #expect(
            SheetError.request(.shippingContactInvalid(.postalAddress)).description
                == "shipping contact invalid (postalAddress)")
        #expect(SheetError.card(.declined).description == "card declined")
        #expect(SheetError.other("the shop is closed").description == "the shop is closed")
        let refusals: [(SheetRefusal, String)] = [
            (.noSheet, "no sheet"), (.sheetNotShown, "sheet not shown"), (.sheetClosed, "sheet closed"),
            (.finishing, "finishing"), (.noContact(3), "no contact 3"),
            (.noShippingMethod("overnight"), "no shipping method overnight"), (.noCard(2), "no card 2"),
            (.cardNotAccepted, "card not accepted"), (.noCouponCodes, "no coupon codes"),
            (.noCardSelected, "no card selected"), (.contactHasErrors, "contact has errors"),
            (.lastChangeFailed, "the last change failed"), (.contactRequired, "contact required"),
        ]
        for (refusal, words) in refusals {
            #expect(SheetBuyerReply.refused(refusal).description == "refused: \(words)")
        }
    }

    /// The sheet lists contacts redacted: no name, street, e-mail or phone reaches a presenter.
    @Test func theSheetsContactsAreRedacted() {
        let full = Contact(
            name: "Ann Buyer", street: "Brivibas 1", city: "Riga", state: nil, postalCode: "LV-1010", countryCode: "LV",
            emailAddress: "ann@example.com", phoneNumber: "+371 2000000")
        let machine = SheetMachine(request: Fixtures.request(), cards: [], contacts: [full])
        #expect(machine.sheet.contacts == [Contact(city: "Riga", postalCode: "LV-1010", countryCode: "LV")])
        #expect(machine.sheet.contacts.map(\.description) == ["Contact(Riga, LV)"])
    }
}
