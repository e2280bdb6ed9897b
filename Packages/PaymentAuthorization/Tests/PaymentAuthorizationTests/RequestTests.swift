import Foundation
import XCTest

@testable import PaymentAuthorization

/// Every rule of `validationError()`, the ISO 4217 exponent table, the seed's statuses and the
/// `canMakePayments` matrix.
final class RequestTests: XCTestCase {
    private func rule(_ change: (inout PaymentAuthorizationRequest) -> Void) -> PaymentAuthorizationRequestError.Rule? {
        var request = Fixtures.request()
        change(&request)
        return request.validationError()?.rule
    }

    func testTheFixtureIsValid() {
        XCTAssertNil(Fixtures.request().validationError())
        // The Objective-C-style names are the same types.
        XCTAssertTrue(EGWPaymentAuthorizationController.self == PaymentAuthorizationController.self)
        XCTAssertTrue(EGWPaymentAuthorizationStatus.self == PaymentAuthorizationStatus.self)
    }

    func testEveryRule() {
        let d = { (text: String) in Decimal(string: text)! }
        let cases: [(PaymentAuthorizationRequestError.Rule, (inout PaymentAuthorizationRequest) -> Void)] = [
            (.merchantIdentifierBlank, { $0.merchantIdentifier = "  " }),
            (.countryCodeInvalid, { $0.countryCode = "lv" }),
            (.countryCodeInvalid, { $0.countryCode = "LVA" }),
            (.currencyUnknown, { $0.currencyCode = "eur" }),
            (.currencyUnknown, { $0.currencyCode = "XYZ" }),
            (.networksEmpty, { $0.supportedNetworks = [] }),
            (.networkUnknown, { $0.supportedNetworks = [.visa, .unknown] }),
            (.capabilityMissing, { $0.merchantCapabilities = [.credit, .debit] }),
            (.summaryItemsEmpty, { $0.paymentSummaryItems = [] }),
            (
                .totalNotFinal,
                { $0.paymentSummaryItems = [PaymentSummaryItem(label: "Shop", amount: 0, type: .pending)] }
            ),
            (.amountNegative, { $0.paymentSummaryItems = [PaymentSummaryItem(label: "Shop", amount: d("-1"))] }),
            // Issue 21 Why "Smaller": a zero total ran a card payment of 0 minor units; now refused.
            (.totalZero, { $0.paymentSummaryItems = [PaymentSummaryItem(label: "Shop", amount: 0)] }),
            (.itemUnlabelled, { $0.paymentSummaryItems.insert(PaymentSummaryItem(label: " ", amount: 1), at: 0) }),
            (
                .pendingItemNotZero,
                { $0.paymentSummaryItems.insert(PaymentSummaryItem(label: "Tip", amount: 1, type: .pending), at: 0) }
            ),
            (.tooManyFractionDigits, { $0.paymentSummaryItems[0].amount = d("1.005") }),
            (
                .shippingMethodIdentifierDuplicated,
                { $0.shippingMethods.append(ShippingMethod(identifier: "standard", label: "Again", amount: 1)) }
            ),
            (.amountNegative, { $0.shippingMethods[1].amount = d("-0.01") }),
            (.tooManyFractionDigits, { $0.shippingMethods[1].amount = d("4.999") }),
        ]
        for (expected, change) in cases {
            XCTAssertEqual(rule(change), expected)
        }
        // A pending line of zero before a final total is fine; so is EMV without 3-D Secure.
        XCTAssertNil(
            rule { $0.paymentSummaryItems.insert(PaymentSummaryItem(label: "Tip", amount: 0, type: .pending), at: 0) })
        XCTAssertNil(rule { $0.merchantCapabilities = [.emv] })
        XCTAssertEqual(
            Set(cases.map(\.0)), Set(PaymentAuthorizationRequestError.Rule.allCases), "every rule has a case")
    }

    /// Setting `status` folds a seed status 2–4 as the initializer does (issue 21 Why "porting friction":
    /// before the change the setter stored `.invalidShippingContact` as it was, with no error).
    func testSettingAStatusFoldsItLikeTheInitializer() {
        var result = PaymentAuthorizationResult(status: .success, errors: nil)
        result.status = .invalidShippingContact
        XCTAssertEqual(result.status, .failure)
        XCTAssertEqual(result.errors as? [PaymentRequestError], [.shippingContactInvalid(nil)])
        var update = PaymentRequestUpdate(errors: nil, paymentSummaryItems: Fixtures.request().paymentSummaryItems)
        update.status = .invalidBillingPostalAddress
        XCTAssertEqual(update.status, .failure)
        XCTAssertEqual(update.errors as? [PaymentRequestError], [.billingContactInvalid(.postalAddress)])
    }

    /// ISO 4217: EUR and USD have 2 fraction digits, JPY and KRW 0, BHD, KWD and TND 3.
    func testCurrencyExponents() {
        XCTAssertEqual(CurrencyExponent.of("EUR"), 2)
        XCTAssertEqual(CurrencyExponent.of("USD"), 2)
        XCTAssertEqual(CurrencyExponent.of("JPY"), 0)
        XCTAssertEqual(CurrencyExponent.of("KRW"), 0)
        XCTAssertEqual(CurrencyExponent.of("BHD"), 3)
        XCTAssertEqual(CurrencyExponent.of("KWD"), 3)
        XCTAssertEqual(CurrencyExponent.of("TND"), 3)
        XCTAssertNil(CurrencyExponent.of("ABC"))
        let d = { (text: String) in Decimal(string: text)! }
        func check(_ currency: String, _ amount: String) -> PaymentAuthorizationRequestError.Rule? {
            rule {
                $0.currencyCode = currency
                $0.shippingMethods = []
                $0.paymentSummaryItems = [PaymentSummaryItem(label: "Shop", amount: d(amount))]
            }
        }
        XCTAssertNil(check("EUR", "12.34"))
        XCTAssertEqual(check("EUR", "12.345"), .tooManyFractionDigits)
        XCTAssertNil(check("JPY", "1500"))
        XCTAssertEqual(check("JPY", "1500.5"), .tooManyFractionDigits)
        XCTAssertNil(check("BHD", "1.234"))
        XCTAssertEqual(check("BHD", "1.2345"), .tooManyFractionDigits)
        // Minor units, by hand: 12.50 EUR = 1250 cents; 1500 JPY = 1500 yen; 1.234 BHD = 1234 fils.
        XCTAssertEqual(CurrencyExponent.minorUnits(d("12.50"), exponent: 2), 1250)
        XCTAssertEqual(CurrencyExponent.minorUnits(d("1500"), exponent: 0), 1500)
        XCTAssertEqual(CurrencyExponent.minorUnits(d("1.234"), exponent: 3), 1234)
        XCTAssertNil(CurrencyExponent.minorUnits(d("0.001"), exponent: 2))
        // Shown with exactly the currency's digits.
        XCTAssertEqual(CurrencyExponent.format(d("12.5"), currencyCode: "EUR"), "12.50 EUR")
        XCTAssertEqual(CurrencyExponent.format(d("0"), currencyCode: "EUR"), "0.00 EUR")
        XCTAssertEqual(CurrencyExponent.format(d("-1.25"), currencyCode: "EUR"), "-1.25 EUR")
        XCTAssertEqual(CurrencyExponent.format(d("1500"), currencyCode: "JPY"), "1500 JPY")
        XCTAssertEqual(CurrencyExponent.format(d("1.2"), currencyCode: "BHD"), "1.200 BHD")
    }

    /// The seed's enum lists Success, Failure, InvalidBillingPostalAddress, InvalidShippingPostalAddress,
    /// InvalidShippingContact in that order: raw values 0–4. Ours adds `unresolved`, raw value 100 (outside
    /// PassKit's 0–7: 5–7 are its PIN statuses, which read as nothing here).
    func testSeedStatusesAndTheirModernForm() {
        XCTAssertEqual(
            PaymentAuthorizationStatus.allCases.map(\.rawValue), [0, 1, 2, 3, 4, 100])
        XCTAssertEqual(PaymentAuthorizationStatus(rawValue: 2), .invalidBillingPostalAddress)
        XCTAssertEqual(PaymentAuthorizationStatus(rawValue: 3), .invalidShippingPostalAddress)
        XCTAssertEqual(PaymentAuthorizationStatus(rawValue: 4), .invalidShippingContact)
        for pin in 5...7 { XCTAssertNil(PaymentAuthorizationStatus(rawValue: pin)) }
        XCTAssertEqual(PaymentAuthorizationStatus(rawValue: 100), .unresolved)
        let expected: [(PaymentAuthorizationStatus, PaymentAuthorizationStatus, [PaymentRequestError])] = [
            (.success, .success, []),
            (.failure, .failure, []),
            (.unresolved, .unresolved, []),
            (.invalidBillingPostalAddress, .failure, [.billingContactInvalid(.postalAddress)]),
            (.invalidShippingPostalAddress, .failure, [.shippingContactInvalid(.postalAddress)]),
            (.invalidShippingContact, .failure, [.shippingContactInvalid(nil)]),
        ]
        for (seed, status, errors) in expected {
            let result = PaymentAuthorizationResult(status: seed)
            XCTAssertEqual(result.status, status, "\(seed)")
            XCTAssertEqual(result.errors.compactMap { $0 as? PaymentRequestError }, errors, "\(seed)")
        }
    }

    /// Cards: Visa credit, Mastercard debit, Amex credit.
    func testCanMakePaymentsMatrix() {
        let wallet = Fixtures.wallet()
        let empty = SimulatedWallet()
        let unsupported = Fixtures.wallet()
        unsupported.isDeviceSupported = false
        XCTAssertTrue(PaymentAuthorizationController.canMakePayments(in: wallet))
        XCTAssertTrue(PaymentAuthorizationController.canMakePayments(in: empty))
        XCTAssertFalse(PaymentAuthorizationController.canMakePayments(in: unsupported))
        let rows: [([CardBrand], MerchantCapabilities?, Bool, String)] = [
            ([.visa], nil, true, "visa card present"),
            ([.discover], nil, false, "no discover card"),
            ([.amex], nil, true, "amex card present"),
            ([.visa], [.threeDSecure, .credit], true, "visa is credit"),
            ([.visa], [.threeDSecure, .debit], false, "visa is not debit"),
            ([.mastercard], [.threeDSecure, .debit], true, "mastercard is debit"),
            ([.mastercard], [.emv, .credit], false, "mastercard is not credit"),
            ([.visa, .mastercard], [.threeDSecure], true, "no funding filter"),
            ([.visa], [.credit], false, "neither 3DS nor EMV"),
        ]
        for (networks, capabilities, expected, why) in rows {
            let actual =
                capabilities.map {
                    PaymentAuthorizationController.canMakePayments(
                        usingNetworks: networks, capabilities: $0, in: wallet)
                } ?? PaymentAuthorizationController.canMakePayments(usingNetworks: networks, in: wallet)
            XCTAssertEqual(actual, expected, why)
            XCTAssertFalse(
                PaymentAuthorizationController.canMakePayments(usingNetworks: networks, in: unsupported), why)
            XCTAssertFalse(PaymentAuthorizationController.canMakePayments(usingNetworks: networks, in: empty), why)
        }
    }

    func testControllerRefusesAnInvalidRequestOrAnUnsupportedDevice() {
        var request = Fixtures.request()
        request.paymentSummaryItems = []
        XCTAssertNil(PaymentAuthorizationController(paymentRequest: request, presenter: ScriptedWalletSheet()))
        let unsupported = Fixtures.wallet()
        unsupported.isDeviceSupported = false
        XCTAssertNil(
            PaymentAuthorizationController(
                paymentRequest: Fixtures.request(), presenter: ScriptedWalletSheet(), wallet: unsupported))
    }

    func testRedactionAndCardDisplay() {
        let redacted = Fixtures.home.redacted
        XCTAssertEqual(redacted, Contact(city: "Riga", state: "Riga", postalCode: "LV-1010", countryCode: "LV"))
        let card = WalletCard(Fixtures.card("4111111111111111"))
        XCTAssertEqual(card.displayName, "Visa •••• 1111")
        XCTAssertEqual("\(card)", "Visa •••• 1111")
        let method = PaymentMethod(card, redacted: true)
        XCTAssertNil(method.network)
        XCTAssertNil(method.displayName)
        XCTAssertEqual(method.type, .credit)
    }
}
