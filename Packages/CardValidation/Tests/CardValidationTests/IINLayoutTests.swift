import Testing

@testable import CardValidation

/// The table carries each brand's lengths, code length and grouping in its rows
/// (Stripe's BIN ranges carry their PAN lengths the same way); nothing else
/// decides them.
@Suite("IIN rows carry the layout")
struct IINLayoutTests {
    @Test func everyRowDescribesPlausibleNumbers() {
        for range in CardBrand.iinRanges {
            #expect(!range.panLengths.isEmpty, "\(range)")
            #expect(range.panLengths == range.panLengths.sorted(), "\(range)")
            #expect(range.panLengths.allSatisfy { (12...19).contains($0) }, "\(range)")
            #expect([3, 4].contains(range.securityCodeLength), "\(range)")
            // The groups hold the longest number (digits past them join the last group).
            #expect(range.numberGrouping.reduce(0, +) >= range.panLengths.last ?? 0, "\(range)")
        }
    }

    @Test(arguments: CardBrand.allCases.filter { $0 != .unknown })
    func aBrandsRowsAgree(brand: CardBrand) throws {
        let rows = CardBrand.iinRanges.filter { $0.brand == brand }
        let first = try #require(rows.first)
        for row in rows {
            #expect(row.securityCodeLength == first.securityCodeLength, "\(row)")
            #expect(row.numberGrouping == first.numberGrouping, "\(row)")
            #expect(row.panLengths == first.panLengths, "\(row)")
        }
        #expect(brand.maximumNumberLength == first.panLengths.last)
        #expect(brand.securityCodeLength == first.securityCodeLength)
        #expect(brand.numberGrouping == first.numberGrouping)
    }

    @Test func theLayoutComesFromTheRows() {
        // A made-up table: the brand's properties follow whatever its rows say.
        let rows = [
            IINRange(
                low: 4, high: 4, digits: 1, brand: .visa, panLengths: [16], securityCodeLength: 3,
                numberGrouping: [4, 4, 4, 4]),
            IINRange(
                low: 49, high: 49, digits: 2, brand: .visa, panLengths: [18], securityCodeLength: 4,
                numberGrouping: [4, 4, 4, 4]),
        ]
        let layout = IINTable.layout(of: .visa, in: rows)
        #expect(layout.maximumNumberLength == 18)
        #expect(layout.securityCodeLength == 4)
        #expect(layout.numberGrouping == [4, 4, 4, 4])
        #expect(IINTable.layout(of: .amex, in: rows) == IINTable.unrecognized)
        #expect(CardBrand.unknown.maximumNumberLength == 19)
        #expect(CardBrand.unknown.securityCodeLength == 4)
    }
}
