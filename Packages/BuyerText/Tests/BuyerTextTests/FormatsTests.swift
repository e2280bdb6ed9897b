import BuyerText
import Foundation
import Testing

/// Plural forms and numbers as CLDR gives them for each language. Every expected value here is written
/// by hand from CLDR's plural rules (plurals.xml) and number data (numbers/symbols,
/// minimumGroupingDigits, the standard currency pattern, currency symbols), not read off the code.
struct FormatsTests {
    /// CLDR's plural category of whole numbers, per language.
    @Test(arguments: [
        ("en", [0: "other", 1: "one", 2: "other", 5: "other", 11: "other", 21: "other", 101: "other"]),
        ("et", [0: "other", 1: "one", 2: "other", 5: "other", 11: "other", 21: "other", 111: "other"]),
        // lv: zero when n % 10 = 0 or n % 100 = 11..19; one when n % 10 = 1 and n % 100 != 11.
        (
            "lv",
            [
                0: "zero", 1: "one", 2: "other", 5: "other", 10: "zero", 11: "zero", 19: "zero", 20: "zero",
                21: "one", 22: "other", 25: "other", 101: "one", 111: "zero", 112: "zero",
            ]
        ),
        // lt: one when n % 10 = 1 and n % 100 != 11..19; few when n % 10 = 2..9 and n % 100 != 11..19.
        (
            "lt",
            [
                0: "other", 1: "one", 2: "few", 5: "few", 9: "few", 10: "other", 11: "other", 19: "other",
                20: "other", 21: "one", 22: "few", 25: "few", 101: "one", 111: "other", 112: "other",
            ]
        ),
        // ru: one when i % 10 = 1 and i % 100 != 11; few when i % 10 = 2..4 and i % 100 != 12..14; many
        // for the other whole numbers.
        (
            "ru",
            [
                0: "many", 1: "one", 2: "few", 4: "few", 5: "many", 11: "many", 12: "many", 14: "many",
                21: "one", 22: "few", 25: "many", 101: "one", 111: "many", 112: "many", 122: "few",
            ]
        ),
    ])
    func pluralCategories(language: String, expected: [Int: String]) {
        let text = BuyerText(language: language)
        for (count, category) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(text.pluralCategory(count).rawValue == category, "\(language) \(count)")
            #expect(text.pluralCategories.map(\.rawValue).contains(category), "\(language) \(count)")
        }
    }

    @Test func theCartCountReadsAsEachLanguageSaysIt() {
        let expected: [String: [Int: String]] = [
            "en": [1: "1 item", 2: "2 items", 21: "21 items"],
            "et": [1: "1 toode", 2: "2 toodet", 21: "21 toodet"],
            "lv": [1: "1 prece", 2: "2 preces", 10: "10 preču", 11: "11 preču", 21: "21 prece", 22: "22 preces"],
            "lt": [
                1: "1 prekė", 2: "2 prekės", 5: "5 prekės", 10: "10 prekių", 11: "11 prekių", 21: "21 prekė",
                111: "111 prekių",
            ],
            "ru": [
                1: "1 товар", 2: "2 товара", 5: "5 товаров", 11: "11 товаров", 21: "21 товар", 22: "22 товара",
                25: "25 товаров", 111: "111 товаров", 1234: "1\u{A0}234 товара",
            ],
        ]
        #expect(Set(expected.keys) == Set(BuyerText.languages))
        for (language, forms) in expected {
            for (count, form) in forms {
                #expect(BuyerText(language: language).plural("shop.cart.items", count: count) == form)
            }
        }
        #expect(BuyerText(language: "lv").plural("no.such.key", count: 2) == "no.such.key")
    }

    @Test func wholeNumbers() {
        #expect(BuyerText(language: "en").number(1234567) == "1,234,567")
        #expect(BuyerText(language: "en").number(-5) == "-5")
        #expect(BuyerText(language: "lv").number(1234) == "1234")
        #expect(BuyerText(language: "lv").number(12345) == "12\u{A0}345")
        #expect(BuyerText(language: "et").number(1234) == "1234")
        #expect(BuyerText(language: "et").number(-5) == "\u{2212}5")
        #expect(BuyerText(language: "lt").number(1234) == "1\u{A0}234")
        #expect(BuyerText(language: "ru").number(1234567) == "1\u{A0}234\u{A0}567")
        #expect(BuyerText(language: "ru").number(999) == "999")
    }

    @Test(arguments: [
        ("en", "1234.5", "EUR", 2, "€1,234.50"),
        ("en", "-2.05", "EUR", 2, "-€2.05"),
        ("en", "20.5", "USD", 2, "$20.50"),
        ("en", "20.5", "SEK", 2, "SEK\u{A0}20.50"),
        ("en", "1234.4", "JPY", 0, "¥1,234"),
        ("lv", "1234.5", "EUR", 2, "1234,50\u{A0}€"),
        ("lv", "12345.5", "EUR", 2, "12\u{A0}345,50\u{A0}€"),
        ("lv", "20.5", "EUR", 2, "20,50\u{A0}€"),
        ("lv", "-2.05", "EUR", 2, "-2,05\u{A0}€"),
        ("et", "20.5", "EUR", 2, "20,50\u{A0}€"),
        ("et", "-2.05", "EUR", 2, "\u{2212}2,05\u{A0}€"),
        ("et", "1234567", "EUR", 2, "1\u{A0}234\u{A0}567,00\u{A0}€"),
        ("lt", "1234.5", "EUR", 2, "1\u{A0}234,50\u{A0}€"),
        ("lt", "20.5", "USD", 2, "20,50\u{A0}USD"),
        ("lt", "-2.05", "EUR", 2, "\u{2212}2,05\u{A0}€"),
        ("ru", "1234.5", "RUB", 2, "1\u{A0}234,50\u{A0}₽"),
        ("ru", "20.5", "EUR", 2, "20,50\u{A0}€"),
        ("ru", "-2.05", "EUR", 2, "-2,05\u{A0}€"),
        ("ru", "1.005", "KWD", 3, "1,005\u{A0}KWD"),
    ])
    func prices(language: String, amount: String, currency: String, digits: Int, expected: String) {
        let written = BuyerText(language: language).money(
            Decimal(string: amount)!, currencyCode: currency, fractionDigits: digits)
        #expect(written == expected, "\(language) \(amount) \(currency)")
    }
}
