import CardValidation
import Foundation
import Synchronization
import Testing

@Suite("Expiry validation with an injected clock")
struct ExpiryTests {
    typealias Reason = CardValidationIssue.Reason

    private func reason(_ month: String, _ year: String, at date: Date, zone: TimeZone = .gmt) -> Reason? {
        let card = validCard(month: month, year: year)
        let judged = CardInput(
            cardNumber: card.cardNumber, expiryMonth: month, expiryYear: year,
            clock: CardClock(timeZone: zone, now: { date }))
        return judged.validationIssue(for: .expiry)?.reason
    }

    // Today is 2026-11-29 (UTC).
    static let aroundNovember2026: [(String, String, Reason?)] = [
        ("10", "26", .expired),  // last month
        ("11", "26", nil),  // this month: valid through November 30
        ("12", "26", nil),  // next month
        ("01", "27", nil),  // January next year
        ("11", "27", nil),  // same month next year
        ("12", "25", .expired),  // last year
        ("01", "26", .expired),
        ("12", "75", nil),  // 2075: the window reaches 49 years ahead
        ("01", "76", .expired),  // 1976: 50 years back
        ("12", "99", .expired),  // 1999
        ("01", "00", .expired),  // 2000
    ]

    @Test("months around November 2026", arguments: aroundNovember2026)
    func aroundNow(_ month: String, _ year: String, _ expected: Reason?) {
        #expect(reason(month, year, at: Instant.nov29_2026) == expected)
    }

    @Test func validThroughTheLastSecondOfTheMonth() {
        #expect(reason("11", "26", at: Instant.nov30_2026_lastSecond) == nil)
        #expect(reason("11", "26", at: Instant.dec01_2026_midnight) == .expired)
        #expect(reason("12", "26", at: Instant.dec01_2026_midnight) == nil)
    }

    @Test func decemberJanuaryWrap() {
        #expect(reason("12", "26", at: Instant.dec31_2026_lastSecond) == nil)
        #expect(reason("01", "27", at: Instant.dec31_2026_lastSecond) == nil)
        #expect(reason("12", "26", at: Instant.jan01_2027_midnight) == .expired)
        #expect(reason("01", "27", at: Instant.jan01_2027_midnight) == nil)
        #expect(reason("12", "27", at: Instant.jan01_2027_midnight) == nil)
    }

    @Test func theMonthIsTheClocksTimeZones() throws {
        // 2026-11-30T23:30Z is already December 1 at UTC+2, still November at UTC-5.
        let plusTwo = try #require(TimeZone(secondsFromGMT: 2 * 3600))
        let minusFive = try #require(TimeZone(secondsFromGMT: -5 * 3600))
        #expect(reason("11", "26", at: Instant.nov30_2026_2330, zone: .gmt) == nil)
        #expect(reason("11", "26", at: Instant.nov30_2026_2330, zone: plusTwo) == .expired)
        #expect(reason("11", "26", at: Instant.nov30_2026_2330, zone: minusFive) == nil)
    }

    @Test func theCenturyWindowFollowsTheClock() {
        // In 2099, "00" is 2100 and "98" is 2098.
        #expect(reason("01", "00", at: Instant.jun15_2099) == nil)
        #expect(reason("12", "98", at: Instant.jun15_2099) == .expired)
        #expect(reason("06", "99", at: Instant.jun15_2099) == nil)
        #expect(reason("05", "99", at: Instant.jun15_2099) == .expired)
    }

    @Test func aCardWatchedAcrossMidnightExpires() {
        // The same CardInput caches the month; the cache must end with it.
        let time = MovableClock(Instant.nov30_2026_lastSecond)
        let card = CardInput(expiryMonth: "11", expiryYear: "26", clock: time.clock)
        #expect(card.validationIssue(for: .expiry) == nil)
        time.set(Instant.dec01_2026_midnight)
        #expect(card.validationIssue(for: .expiry)?.reason == .expired)
        time.set(Instant.nov29_2026)  // clocks can go back too
        #expect(card.validationIssue(for: .expiry) == nil)
    }

    static let malformed: [(String, String, Reason, FieldState)] = [
        ("", "", .missing, .incomplete),
        ("1", "", .incomplete, .incomplete),
        ("0", "30", .incomplete, .incomplete),
        ("", "30", .incomplete, .incomplete),
        ("12", "", .incomplete, .incomplete),
        ("12", "3", .incomplete, .incomplete),  // 2030-2039 still possible
        ("12", "2", .incomplete, .incomplete),  // 2026-2029 still possible
        ("12", "1", .expired, .invalid),  // 2010-2019: expired however completed
        ("00", "30", .invalidMonth, .invalid),
        ("13", "30", .invalidMonth, .invalid),
        ("99", "30", .invalidMonth, .invalid),
        ("123", "30", .invalidMonth, .invalid),
        ("012", "30", .invalidMonth, .invalid),
        ("12", "2030", .invalidYear, .invalid),
        ("12", "030", .invalidYear, .invalid),
        ("1a", "30", .invalidCharacters, .invalid),
        ("12", "3o", .invalidCharacters, .invalid),
        (" 1", "30", .invalidCharacters, .invalid),
        ("12", "30 ", .invalidCharacters, .invalid),
        ("١٢", "30", .invalidCharacters, .invalid),  // Arabic-Indic digits
        ("-1", "30", .invalidCharacters, .invalid),
    ]

    @Test("malformed months and years", arguments: malformed)
    func malformedInput(_ month: String, _ year: String, _ expected: Reason, _ state: FieldState) {
        let card = CardInput(expiryMonth: month, expiryYear: year, clock: .fixed(Instant.nov29_2026))
        let found = card.validationIssue(for: .expiry)
        #expect(found?.reason == expected)
        #expect(found?.state == state)
        #expect(card.fieldState(for: .expiry) == state)
    }

    @Test func everyMonthIsAccepted() {
        for month in 1...12 {
            let text = month < 10 ? "0\(month)" : "\(month)"
            #expect(reason(text, "30", at: Instant.jan15_2026) == nil, "\(text)")
        }
    }
}

@Suite("Security code validation")
struct SecurityCodeTests {
    static let cases: [(String, CardValidationIssue.Reason?, FieldState)] = [
        ("", .missing, .incomplete),
        ("7", .tooShort, .incomplete),
        ("73", .tooShort, .incomplete),
        ("737", nil, .valid),
        ("7373", nil, .valid),
        ("000", nil, .valid),
        ("73737", .tooLong, .invalid),
        ("737373", .tooLong, .invalid),
        ("73a", .invalidCharacters, .invalid),
        (" 737", .invalidCharacters, .invalid),
        ("7 37", .invalidCharacters, .invalid),
        ("७३७", .invalidCharacters, .invalid),  // Devanagari digits
        ("   ", .invalidCharacters, .invalid),
    ]

    @Test("lengths and characters", arguments: cases)
    func code(_ code: String, _ expected: CardValidationIssue.Reason?, _ state: FieldState) {
        let card = validCard(code: code)
        #expect(card.validationIssue(for: .securityCode)?.reason == expected)
        #expect(card.fieldState(for: .securityCode) == state)
    }

    @Test func theRuleIsBrandAgnostic() {
        // 4 digits on a Visa and 3 on an Amex both pass validation; the brand
        // only limits what the editor lets a buyer type.
        #expect(validCard(number: "4242424242424242", code: "7373").validationIssue(for: .securityCode) == nil)
        #expect(validCard(number: "378282246310005", code: "737").validationIssue(for: .securityCode) == nil)
    }
}

@Suite("Cardholder name validation")
struct CardholderNameTests {
    static let fortyFive = String(repeating: "a", count: 45)

    static let cases: [(String, CardValidationIssue.Reason?)] = [
        ("Jane Doe", nil),
        ("José Müller-Łukasiewicz", nil),
        ("Jose\u{301} Mu\u{308}ller", nil),  // combining accents
        ("Ærøskøbing Ñandú", nil),
        ("李小龍", nil),
        ("محمد", nil),
        ("O'Brien, Jr.", nil),
        ("J", nil),
        (" Jane ", nil),
        (fortyFive, nil),
        (fortyFive + "a", .tooLong),
        (String(repeating: "é", count: 45), nil),
        (String(repeating: "e\u{301}", count: 45), nil),  // 45 characters, 90 scalars
        (String(repeating: "e\u{301}", count: 46), .tooLong),
        (String(repeating: "👩‍👩‍👧", count: 45), nil),  // 45 characters, many scalars
        ("", .missing),
        (" ", .missing),
        ("     ", .missing),
        ("\u{00A0}\u{3000}", .missing),  // no-break and ideographic spaces
        ("Jane\nDoe", .invalidCharacters),
        ("Jane\tDoe", .invalidCharacters),
        ("Jane\rDoe", .invalidCharacters),
        ("Jane\u{0}", .invalidCharacters),
        ("Jane\u{7F}", .invalidCharacters),
        ("Jos\u{E9}\u{85}", .invalidCharacters),  // NEL, a C1 control
        ("Jane\u{2028}Doe", .invalidCharacters),
        ("\n", .invalidCharacters),
    ]

    @Test("names", arguments: cases)
    func name(_ name: String, _ expected: CardValidationIssue.Reason?) {
        #expect(validCard(name: name).validationIssue(for: .cardholderName)?.reason == expected)
    }

    @Test func blankIsIncompleteNotInvalid() {
        #expect(validCard(name: "  ").fieldState(for: .cardholderName) == .incomplete)
        #expect(validCard(name: "Jane\n").fieldState(for: .cardholderName) == .invalid)
    }
}

@Suite("CardInput as a whole")
struct CardInputTests {
    @Test func aCompleteCardIsValid() {
        let card = validCard()
        #expect(card.isValid)
        #expect(card.firstIssue == nil)
        for field in CardField.allCases {
            #expect(card.validationError(for: field) == nil)
            #expect(card.fieldState(for: field) == .valid)
        }
        #expect(card.brand == .visa)
    }

    @Test func oneBadFieldMakesItInvalid() {
        #expect(!validCard(name: "").isValid)
        #expect(!validCard(number: "4242424242424241").isValid)
        #expect(!validCard(month: "10", year: "26").isValid)
        #expect(!validCard(code: "12").isValid)
        #expect(validCard(month: "11", year: "26").isValid)
    }

    @Test func defaultsAreEmptyAndIncomplete() {
        let card = CardInput()
        #expect(card.cardholderName == "")
        #expect(card.cardNumber == "")
        #expect(card.expiryMonth == "")
        #expect(card.expiryYear == "")
        #expect(card.securityCode == "")
        #expect(card.brand == .unknown)
        #expect(!card.isValid)
        for field in CardField.allCases {
            #expect(card.fieldState(for: field) == .incomplete)
            #expect(card.validationIssue(for: field)?.reason == .missing)
        }
    }

    @Test func firstIssueFollowsFormOrder() {
        let card = validCard(number: "4242", code: "")
        #expect(card.firstIssue?.field == .cardNumber)
        card.cardNumber = "4242424242424242"
        #expect(card.firstIssue?.field == .securityCode)
        card.clear()
        #expect(card.firstIssue?.field == .cardholderName)
        #expect(card.cardNumber == "")
    }

    @Test func brandFollowsTheNumber() {
        let card = CardInput()
        card.cardNumber = "3782 822463 10005"
        #expect(card.brand == .amex)
        card.cardNumber = "5555 5555"
        #expect(card.brand == .mastercard)
    }

    @Test func errorsCarryDomainCodeFieldAndReason() throws {
        let card = CardInput(clock: .fixed(Instant.nov29_2026))
        for field in CardField.allCases {
            let error = try #require(card.validationError(for: field))
            #expect(error.domain == "com.egw.egwpay")
            #expect(error.code == 7)
            #expect(error.userInfo[CardValidationIssue.fieldUserInfoKey] as? Int == field.rawValue)
            #expect(error.userInfo[CardValidationIssue.reasonUserInfoKey] as? String == "missing")
            #expect(error.localizedDescription.contains(field.displayName))
        }
    }

    /// The issue travels as a value: the error hands back the very issue the card found, for each field
    /// and reason, and only a card validation error answers.
    @Test func errorsCarryTheIssueItself() throws {
        let empty = CardInput(clock: .fixed(Instant.nov29_2026))
        let expired = validCard(month: "10", year: "26")
        let partial = validCard(number: "4242 4242 4242 4241")
        let cases: [(CardInput, CardField, CardValidationIssue.Reason, FieldState)] = [
            (empty, .cardholderName, .missing, .incomplete), (empty, .securityCode, .missing, .incomplete),
            (expired, .expiry, .expired, .invalid), (partial, .cardNumber, .checksumFailed, .incomplete),
        ]
        for (card, field, reason, state) in cases {
            let error = try #require(card.validationError(for: field))
            let issue = try #require(error.cardValidationIssue, "\(field)")
            #expect(issue == CardValidationIssue(field: field, reason: reason, state: state))
            #expect(issue == card.validationIssue(for: field))
        }
        let issue = CardValidationIssue(field: .expiry, reason: .expired, state: .invalid)
        var info = issue.nsError.userInfo
        #expect(NSError(domain: "other", code: 7, userInfo: info).cardValidationIssue == nil)
        #expect(NSError(domain: "com.egw.egwpay", code: 8, userInfo: info).cardValidationIssue == nil)
        info[CardValidationIssue.issueUserInfoKey] = nil
        #expect(NSError(domain: "com.egw.egwpay", code: 7, userInfo: info).cardValidationIssue == nil)
        #expect(validCard().validationError(for: .cardNumber)?.cardValidationIssue == nil)
    }

    @Test func fieldRawValuesAreTheContractsNumbers() {
        #expect(CardField.cardholderName.rawValue == 0)
        #expect(CardField.cardNumber.rawValue == 1)
        #expect(CardField.expiry.rawValue == 2)
        #expect(CardField.securityCode.rawValue == 3)
    }

    @Test func everyMessageNamesItsField() {
        for field in CardField.allCases {
            for reason in CardValidationIssue.Reason.allCases {
                let issue = CardValidationIssue(field: field, reason: reason, state: .invalid)
                #expect(!issue.message.isEmpty)
                let keyword =
                    switch field {
                    case .cardholderName: "cardholder name"
                    case .cardNumber: "card number"
                    case .expiry: "expir"
                    case .securityCode: "security code"
                    }
                #expect(issue.message.lowercased().contains(keyword), "\(field) \(reason): \(issue.message)")
            }
        }
    }

    /// The description's field states describe the fields it shows: here the
    /// clock itself clears the security code the first time it is read (a
    /// stand-in for another thread writing mid-description), and whichever
    /// code the description shows, its state must match it ("•••" for the
    /// valid "737" with `securityCode=valid`, `<empty>` with `incomplete`).
    @Test func descriptionStatesMatchTheFieldsShown() {
        let target = Mutex<CardInput?>(nil)
        let clock = CardClock(timeZone: .gmt) {
            target.withLock { $0.take() }?.securityCode = ""
            return Instant.nov29_2026
        }
        let card = CardInput(
            cardholderName: "Jane Doe", cardNumber: "4242 4242 4242 4242", expiryMonth: "12", expiryYear: "30",
            securityCode: "737", clock: clock)
        target.withLock { $0 = card }
        let text = card.description
        let showsCode = text.contains("securityCode: •••")
        let showsEmpty = text.contains("securityCode: <empty>")
        #expect(showsCode != showsEmpty, "\(text)")
        #expect(text.contains("securityCode=valid") == showsCode, "\(text)")
        #expect(text.contains("securityCode=incomplete") == showsEmpty, "\(text)")
    }

    @Test func concurrentUseIsSafe() async {
        let card = validCard()
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    for _ in 0..<500 {
                        card.securityCode = index % 2 == 0 ? "737" : "7373"
                        _ = card.isValid
                        _ = card.description
                    }
                    return card.validationIssue(for: .securityCode) == nil
                }
            }
            for await stillValid in group { #expect(stillValid) }
        }
    }
}
