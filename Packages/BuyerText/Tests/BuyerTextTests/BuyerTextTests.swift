import BuyerText
import XCTest

final class BuyerTextTests: XCTestCase {
    /// Every table has every key of English's (and no other), each translated, with the same `%@`
    /// placeholders; a plural key (`key#category`) has exactly the forms its language's whole numbers take.
    func testEveryKeyIsInEveryTable() {
        XCTAssertEqual(BuyerText.languages, ["en", "lv", "et", "lt", "ru"])
        let english = BuyerText.keys(of: "en")
        XCTAssertGreaterThan(english.count, 50, "the English table loaded")
        let base = { (key: String) in String(key.prefix { $0 != "#" }) }
        let englishPlain = english.filter { !$0.contains("#") }
        let englishPlurals = Set(english.filter { $0.contains("#") }.map(base))
        XCTAssertFalse(englishPlurals.isEmpty)
        let en = BuyerText(language: "en")
        // Words a language takes as English has them.
        let same: Set = ["card.securityCode.placeholder"]
        for language in BuyerText.languages.dropFirst() {
            let keys = BuyerText.keys(of: language)
            let plain = keys.filter { !$0.contains("#") }
            XCTAssertEqual(englishPlain.subtracting(plain).sorted(), [], "missing in \(language).json")
            XCTAssertEqual(plain.subtracting(englishPlain).sorted(), [], "not in en.json, in \(language).json")
            let text = BuyerText(language: language)
            XCTAssertEqual(Set(keys.filter { $0.contains("#") }.map(base)), englishPlurals, language)
            for plural in englishPlurals {
                let forms = Set(keys.filter { base($0) == plural })
                XCTAssertEqual(forms, Set(text.pluralCategories.map { "\(plural)#\($0.rawValue)" }), language)
            }
            for key in englishPlain.sorted() {
                XCTAssertFalse(text[key].isEmpty, key)
                if !same.contains(key) {
                    XCTAssertNotEqual(text[key], en[key], "\(language): \(key) is not translated")
                }
                XCTAssertEqual(
                    text[key].components(separatedBy: "%@").count, en[key].components(separatedBy: "%@").count,
                    "\(language): \(key)")
            }
        }
        XCTAssertEqual(Set(BuyerText(language: "en").pluralCategories), [.one, .other])
    }

    /// The contract's twelve error codes (CONTRACT.md, "Errors"), each with a summary and an advice in
    /// both languages, plus the advice of a payment left in doubt.
    func testTheSDKsTwelveErrorCodesHaveTheirText() {
        for language in BuyerText.languages {
            let keys = BuyerText.keys(of: language)
            for code in 1...12 {
                XCTAssertTrue(keys.contains("sdk.error.\(code).summary"), "\(language): summary of \(code)")
                XCTAssertTrue(keys.contains("sdk.error.\(code).advice"), "\(language): advice of \(code)")
            }
            XCTAssertTrue(keys.contains("sdk.error.inDoubt.advice"), language)
            XCTAssertFalse(keys.contains("sdk.error.13.summary"), language)
        }
        // A summary is the start of a sentence the SDK continues ("<summary>: <reason>. <advice>").
        let en = BuyerText(language: "en")
        for code in 1...12 {
            let summary = en["sdk.error.\(code).summary"]
            XCTAssertFalse(summary.hasSuffix("."), summary)
            XCTAssertTrue(en["sdk.error.\(code).advice"].hasSuffix("."), "advice of \(code)")
        }
    }

    /// Issue 29: the sheet's words for a payment in doubt, in every language: a state of their own (not
    /// the failure's words) and a line telling the buyer not to pay again.
    func testThePaymentInDoubtHasItsOwnWordsInEveryLanguage() {
        let failedWords = [
            "en": ["fail", "declin", "cancel"], "lv": ["neizdevās", "noraidīt", "atcel"],
            "et": ["ebaõnnestu", "tagasi lükat", "keeldu", "tühist"], "lt": ["nepavyk", "atmest", "atšauk"],
            "ru": ["не удалось", "не выполнен", "отклон", "отмен"],
        ]
        for language in BuyerText.languages {
            let text = BuyerText(language: language)
            let keys = BuyerText.keys(of: language)
            XCTAssertTrue(keys.contains("sheet.status.unresolved"), language)
            XCTAssertTrue(keys.contains("sheet.status.unresolved.detail"), language)
            let shown = [
                "sheet.status.unresolved", "sheet.status.unresolved.detail", "shop.unresolved",
            ].map { text[$0] }.joined(separator: " ")
            XCTAssertNotEqual(text["sheet.status.unresolved"], text["sheet.status.failure"], language)
            for word in failedWords[language] ?? [] {
                XCTAssertFalse(shown.lowercased().contains(word), "\(language): \(shown)")
            }
        }
        XCTAssertEqual(Set(BuyerText.languages), Set(failedWords.keys), "a new language needs its failure words")
    }

    func testAKeyNoTableHasIsItsOwnText() {
        let lv = BuyerText(language: "lv")
        XCTAssertNil(lv.text("no.such.key"))
        XCTAssertEqual(lv["no.such.key"], "no.such.key")
        XCTAssertEqual(lv.text("card.number.label"), "Kartes numurs")
    }

    func testTheLanguageComesFromTheLocaleAsGettextReadsIt() {
        let cases: [([String: String], String)] = [
            ([:], "en"),
            (["LANG": "lv_LV.UTF-8"], "lv"),
            (["LANG": "de_DE.UTF-8"], "en"),
            (["LANG": "en_US.UTF-8", "LC_MESSAGES": "lv_LV.UTF-8"], "lv"),
            (["LANG": "lv_LV.UTF-8", "LC_ALL": "en_GB.UTF-8"], "en"),
            (["LANG": "en_US.UTF-8", "LANGUAGE": "de:lv:en"], "lv"),
            (["LC_ALL": "C", "LANGUAGE": "lv"], "en"),
            (["LANGUAGE": "lv"], "en"),
            (["LANG": "lv"], "lv"),
            (["LANG": "lv_LV@euro"], "lv"),
            (["LANG": "et_EE.UTF-8"], "et"),
            (["LANG": "lt_LT"], "lt"),
            (["LANG": "ru_RU"], "ru"),
            (["LANG": "ru_UA.UTF-8"], "ru"),
            (["LANG": "en_US.UTF-8", "LC_MESSAGES": "lt_LT.UTF-8"], "lt"),
            (["LANG": "et_EE.UTF-8", "LC_ALL": "ru_RU.UTF-8"], "ru"),
            (["LANG": "en_US.UTF-8", "LANGUAGE": "de:et:lv"], "et"),
            (["LC_ALL": "POSIX", "LANGUAGE": "ru"], "en"),
        ]
        for (environment, language) in cases {
            XCTAssertEqual(BuyerText.language(environment: environment), language, "\(environment)")
        }
        XCTAssertEqual(BuyerText(language: "lv")["card.number.label"], "Kartes numurs")
        XCTAssertEqual(BuyerText(language: "xx").language, "en")
        XCTAssertEqual(BuyerText(language: "lv").format("sheet.pay", "16.24 EUR"), "Maksāt 16.24 EUR")
        XCTAssertEqual(BuyerText(language: "et")["card.number.label"], "Kaardi number")
        XCTAssertEqual(BuyerText(language: "lt")["card.number.label"], "Kortelės numeris")
        XCTAssertEqual(BuyerText(language: "ru")["card.number.label"], "Номер карты")
    }
}
