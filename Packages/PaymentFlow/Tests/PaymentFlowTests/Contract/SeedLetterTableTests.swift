import Foundation
import PaymentFlow
import Testing

/// The seeds' fixed names and numbers: the error domain and code table, and the
/// Objective-C (`EGW`) names, through `import PaymentFlow` alone.
@Suite struct SeedLetterTableTests {
    /// CONTRACT.md section 2 (PaymentError): "Domain `"com.egw.egwpay"`."
    /// Seed 000 (PaymentError): "`PaymentError.domain` | `"com.egw.egwpay"`".
    @Test func theErrorDomainIsComEgwEgwpay() {
        #expect(PaymentError.domain == "com.egw.egwpay")
    }

    /// CONTRACT.md section 2 (PaymentError), the table: code, name.
    static let codeTable: [(PaymentError.Code, String, Int)] = [
        (.invalidRequest, "invalidRequest", 1),
        (.presentationFailed, "presentationFailed", 2),
        (.pageLoadFailed, "pageLoadFailed", 3),
        (.networkError, "networkError", 4),
        (.statusLookupFailed, "statusLookupFailed", 5),
        (.invalidResponse, "invalidResponse", 6),
        (.cardValidationFailed, "cardValidationFailed", 7),
        (.encryptionKeyUnavailable, "encryptionKeyUnavailable", 8),
        (.encryptionFailed, "encryptionFailed", 9),
        (.cardSessionFailed, "cardSessionFailed", 10),
        (.authenticationFailed, "authenticationFailed", 11),
        (.cardBrandNotAccepted, "cardBrandNotAccepted", 12),
    ]

    /// CONTRACT.md section 2 (PaymentError): "| 1 | `invalidRequest` | ... | 12 | `cardBrandNotAccepted` |";
    /// each case by its Swift name has the table's raw value and reads as that name.
    @Test(arguments: SeedLetterTableTests.codeTable)
    func eachCodeHasTheTablesRawValue(code: PaymentError.Code, name: String, raw: Int) {
        #expect(code.rawValue == raw)
        #expect(PaymentError.Code(rawValue: raw) == code)
        #expect("\(code)" == name)
        #expect(EGWPaymentErrorCode(rawValue: raw) == code)
    }

    /// CONTRACT.md section 2 (PaymentError): "`PaymentError.Code` is an `Int` enum of twelve codes."
    /// Seed 000: "`PaymentError.Code` | Ar `Int`balstīts uzskaitījums no divpadsmit kļūdu kodiem".
    @Test func thereAreExactlyTwelveCodesNumberedOneToTwelve() {
        #expect(PaymentError.Code.allCases.count == 12)
        #expect(PaymentError.Code.allCases.map(\.rawValue) == Array(1...12))
        #expect(PaymentError.Code(rawValue: 0) == nil)
        #expect(PaymentError.Code(rawValue: 13) == nil)
    }

    /// Seed 000 (CardInput): "Atgriež `nil` ja lauks ir derīgs, un citādi `NSError` iekš `com.egw.egwpay`
    /// domēnā ar kodu `7` (`cardValidationFailed`)" — the one number the seeds fix, as the card model
    /// reports it.
    @Test func aCardValidationErrorIsCodeSevenInTheSDKDomain() throws {
        let card = CardInput(
            cardholderName: "Jane Doe", cardNumber: "4111 1111 1111 1112", expiryMonth: "12", expiryYear: "35",
            securityCode: "123")
        let error = try #require(card.validationError(for: .cardNumber))
        #expect(error.domain == PaymentError.domain)
        #expect(error.code == 7)
        #expect(error.paymentErrorCode == .cardValidationFailed)
    }

    /// CONTRACT.md: "Objective-C names (`EGW` prefix) have no runtime on Linux; provide them as `typealias`es
    /// (`EGWPaymentKit = PaymentKit`, ...) so code written against either name reads the same." — every name
    /// in the headings of section 2: `EGWPaymentKit`, `EGWConfiguration`, `EGWPaymentRequest`,
    /// `EGWCardPaymentRequest`, `EGWPaymentResult`, `EGWPaymentOutcome`, `EGWCardInput`,
    /// `EGWPaymentStatusResolving`, `EGWPaymentDelegate`.
    @Test func everyEGWNameOfTheContractIsTheSwiftType() {
        #expect(EGWPaymentKit.self == PaymentKit.self)
        #expect(EGWConfiguration.self == Configuration.self)
        #expect(EGWPaymentRequest.self == PaymentRequest.self)
        #expect(EGWCardPaymentRequest.self == CardPaymentRequest.self)
        #expect(EGWPaymentResult.self == PaymentResult.self)
        #expect(EGWPaymentOutcome.self == PaymentOutcome.self)
        #expect(EGWCardInput.self == CardInput.self)
        #expect((any EGWPaymentStatusResolving).self == (any PaymentStatusResolving).self)
        #expect((any EGWPaymentDelegate).self == (any PaymentDelegate).self)
    }

    /// Seed 000: "Objective-C valodā tiem pašiem tipiem ir `EGW` prefikss. Katram tipam ir uzskaitīti abi
    /// nosaukumi." — the seed's other names whose Swift type exists on Linux under the same name:
    /// `EGWPaymentMethodHint`, `EGWCardField`, `EGWCardBrand`.
    @Test func theSeedsOtherEGWNamesAreTheSwiftTypes() {
        #expect(EGWPaymentMethodHint.self == PaymentRequest.MethodHint.self)
        #expect(EGWCardField.self == CardField.self)
        #expect(EGWCardBrand.self == CardBrand.self)
        #expect(EGWPaymentMethodHint.card == "card")
        #expect(EGWPaymentMethodHint.bank == "bank")
        #expect(EGWPaymentMethodHint.clickToPay == "click-to-pay")
    }

    /// "code written against either name reads the same": an `EGW`-typed value passes where the Swift type is
    /// expected, and back.
    @Test func codeWrittenAgainstEitherNameInterchanges() {
        let configuration: EGWConfiguration = Configuration(environment: .sandbox)
        let kit: PaymentKit = EGWPaymentKit(configuration: configuration)
        let request: EGWCardPaymentRequest = CardPaymentRequest(paymentId: "p_1", verificationKey: "vk")
        let card: EGWCardInput = CardInput()
        let outcome: EGWPaymentOutcome = .unresolved
        #expect(kit.configuration.environment == .sandbox)
        #expect(request.paymentId == "p_1")
        #expect(card.cardNumber.isEmpty)
        #expect(outcome == PaymentOutcome.unresolved)
        #expect(!kit.isPaymentInProgress)
    }
}
