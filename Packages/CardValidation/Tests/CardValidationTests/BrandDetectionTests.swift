import Testing

@testable import CardValidation

@Suite("Brand detection")
struct BrandDetectionTests {
    @Test("published test cards", arguments: publishedCards)
    func publishedCard(_ card: PublishedCard) {
        #expect(CardBrand.detect(card.number) == card.brand)
    }

    // Both sides of every range edge, hand-derived from issue 2's table:
    // Visa 4; Mastercard 51-55, 2221-2720; Amex 34, 37; Discover 6011,
    // 644-649, 65; Maestro 5018, 5020, 5038, 5893, 56-58, 6304, 6759,
    // 6761-6763, 67. Everything else is another network: unknown.
    static let edges: [(String, CardBrand)] = [
        ("3999", .unknown), ("4000", .visa), ("4999", .visa), ("5000", .unknown),
        ("5099", .unknown), ("5100", .mastercard), ("5599", .mastercard), ("5600", .maestro),
        ("2220", .unknown), ("2221", .mastercard), ("2720", .mastercard), ("2721", .unknown),
        ("2229", .mastercard), ("2230", .mastercard), ("2699", .mastercard), ("2700", .mastercard),
        ("3399", .unknown), ("3400", .amex), ("3499", .amex), ("3500", .unknown),
        ("3699", .unknown), ("3700", .amex), ("3799", .amex), ("3800", .unknown),
        ("6010", .unknown), ("6011", .discover), ("6012", .unknown),
        ("6439", .unknown), ("6440", .discover), ("6499", .discover), ("6500", .discover),
        ("6599", .discover), ("6600", .unknown),
        ("5017", .unknown), ("5018", .maestro), ("5019", .unknown),
        ("5020", .maestro), ("5021", .unknown), ("5037", .unknown), ("5038", .maestro), ("5039", .unknown),
        ("5892", .maestro), ("5893", .maestro), ("5894", .maestro), ("5899", .maestro), ("5900", .unknown),
        ("6303", .unknown), ("6304", .maestro), ("6305", .unknown),
        ("6699", .unknown), ("6700", .maestro), ("6758", .maestro), ("6759", .maestro), ("6760", .maestro),
        ("6761", .maestro), ("6763", .maestro), ("6764", .maestro), ("6799", .maestro), ("6800", .unknown),
        // Other networks: UnionPay 62, JCB 35, Diners 30/36/38, Mir 2200.
        ("6200", .unknown), ("6212", .unknown), ("3528", .unknown), ("3000", .unknown),
        ("3600", .unknown), ("3800", .unknown), ("2200", .unknown), ("1800", .unknown), ("9999", .unknown),
    ]

    @Test("both sides of every range edge", arguments: edges)
    func edge(_ prefix: String, _ expected: CardBrand) {
        #expect(CardBrand.detect(prefix) == expected, "\(prefix)")
        // A longer number with the same leading four digits has the same brand.
        #expect(CardBrand.detect(prefix + "000000000000") == expected, "\(prefix)...")
    }

    // Partial input as typed: a brand as soon as only one of ours can
    // follow, unknown while two could.
    static let partial: [(String, CardBrand)] = [
        ("", .unknown), ("4", .visa), ("42", .visa), ("424", .visa),
        ("5", .unknown),  // Mastercard 51-55 or Maestro 50xx/56-58
        ("50", .maestro), ("501", .maestro), ("502", .maestro), ("503", .maestro), ("504", .unknown),
        ("51", .mastercard), ("55", .mastercard), ("56", .maestro), ("58", .maestro), ("589", .maestro),
        ("59", .unknown),
        ("2", .mastercard), ("22", .mastercard), ("220", .unknown), ("222", .mastercard), ("27", .mastercard),
        ("272", .mastercard), ("273", .unknown), ("28", .unknown),
        ("3", .amex), ("34", .amex), ("35", .unknown), ("37", .amex),
        ("6", .unknown),  // Discover or Maestro
        ("60", .discover), ("601", .discover), ("602", .unknown), ("62", .unknown),
        ("63", .maestro), ("630", .maestro), ("631", .unknown),
        ("64", .discover), ("643", .unknown), ("644", .discover), ("65", .discover), ("66", .unknown),
        ("67", .maestro), ("0", .unknown), ("1", .unknown), ("7", .unknown), ("8", .unknown), ("9", .unknown),
    ]

    @Test("partial input as typed", arguments: partial)
    func partialInput(_ prefix: String, _ expected: CardBrand) {
        #expect(CardBrand.detect(prefix) == expected, "\(prefix)")
    }

    @Test(
        "formatting characters are skipped",
        arguments: [
            "4242 4242", "4242-4242", " 4", "- 4 -", "4\u{00A0}242", "4\u{2013}242", "4\u{2009}2", "\u{3000}4",
        ])
    func formatting(_ input: String) {
        #expect(CardBrand.detect(input) == .visa)
    }

    @Test(
        "another character among the leading digits is unknown",
        arguments: ["a4", "4a", "4/2", "42x4", "４２４２", "٤٢٤٢", "4.242", "+4242", "\u{200B}4242"])
    func otherCharacters(_ input: String) {
        #expect(CardBrand.detect(input) == .unknown)
    }

    @Test func onlyTheLeadingDigitsAreRead() {
        // Documented: what follows the fourth digit is not examined.
        #expect(CardBrand.detect("4242 4242 x") == .visa)
        #expect(CardBrand.detect(Substring("xx4242").dropFirst(2)) == .visa)
    }

    @Test func rawValuesAreTheContractsNumbers() {
        #expect(CardBrand.unknown.rawValue == 0)
        #expect(CardBrand.visa.rawValue == 1)
        #expect(CardBrand.mastercard.rawValue == 2)
        #expect(CardBrand.amex.rawValue == 3)
        #expect(CardBrand.maestro.rawValue == 4)
        #expect(CardBrand.discover.rawValue == 5)
    }

    @Test func brandTablesFromTheIssue() {
        // Maximum number lengths: Amex 15, Mastercard 16, others 19.
        #expect(CardBrand.allCases.map(\.maximumNumberLength) == [19, 19, 16, 15, 19, 19])
        // Security code limits: 4 for Amex and unknown, 3 otherwise.
        #expect(CardBrand.allCases.map(\.securityCodeLength) == [4, 3, 3, 4, 3, 3])
        #expect(CardBrand.amex.numberGrouping == [4, 6, 5])
        #expect(CardBrand.visa.numberGrouping == [4, 4, 4, 4, 3])
    }

    @Test func theTableIsWellFormed() {
        for range in CardBrand.iinRanges {
            #expect(range.low <= range.high, "\(range)")
            #expect(String(range.low).count == range.digits, "\(range)")
            #expect(String(range.high).count == range.digits, "\(range)")
            #expect(range.brand != .unknown, "\(range)")
        }
    }

    @Test func mostSpecificRangeWins() {
        // A made-up table where a 4-digit range sits inside a 1-digit one.
        let ranges = [
            IINRange(low: 4, high: 4, digits: 1, brand: .visa),
            IINRange(low: 4011, high: 4012, digits: 4, brand: .maestro),
        ]
        let table = IINTable.build(ranges)
        func brand(_ prefix: String) -> CardBrand {
            CardBrand(rawValue: Int(table[IINTable.base(prefix.count) + Int(prefix)!]))!
        }
        #expect(brand("4011") == .maestro)
        #expect(brand("4012") == .maestro)
        #expect(brand("4013") == .visa)
        #expect(brand("4010") == .visa)
        #expect(brand("401") == .unknown)  // could still be either
        #expect(brand("40") == .unknown)
        #expect(brand("41") == .visa)  // no completion reaches 4011-4012
        #expect(brand("4") == .unknown)
    }

    @Test func detectionAgreesWithABruteForceScanOfTheRanges() {
        // Second implementation: for every 4-digit prefix, the brands whose
        // ranges contain it, longest range first.
        for prefix in 0..<10_000 {
            let text = String(prefix).leftPadded(to: 4)
            var best: (digits: Int, brand: CardBrand)? = nil
            for range in CardBrand.iinRanges {
                let head = Int(text.prefix(range.digits))!
                if head >= range.low, head <= range.high, range.digits > (best?.digits ?? 0) {
                    best = (range.digits, range.brand)
                }
            }
            #expect(CardBrand.detect(text) == (best?.brand ?? .unknown), "\(text)")
        }
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
