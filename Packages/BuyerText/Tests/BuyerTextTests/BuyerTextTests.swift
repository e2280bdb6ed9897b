import BuyerText
import XCTest

final class BuyerTextTests: XCTestCase {
    func testEveryKeyIsInBothTables() {
        let english = BuyerText.keys(of: "en")
        let latvian = BuyerText.keys(of: "lv")
        XCTAssertGreaterThan(english.count, 50, "the English table loaded")
        XCTAssertEqual(english.subtracting(latvian).sorted(), [], "missing in lv.json")
        XCTAssertEqual(latvian.subtracting(english).sorted(), [], "missing in en.json")
        let lv = BuyerText(language: "lv")
        let en = BuyerText(language: "en")
        // Words Latvian takes as they are.
        let same: Set = ["card.securityCode.placeholder"]
        for key in english.sorted() {
            XCTAssertFalse(lv[key].isEmpty, key)
            if !same.contains(key) { XCTAssertNotEqual(lv[key], en[key], "\(key) is not translated") }
            XCTAssertEqual(
                lv[key].components(separatedBy: "%@").count, en[key].components(separatedBy: "%@").count, key)
        }
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
        let failedWords = ["en": ["fail", "declin", "cancel"], "lv": ["neizdevās", "noraidīt", "atcel"]]
        for language in BuyerText.languages {
            let text = BuyerText(language: language)
            let keys = BuyerText.keys(of: language)
            XCTAssertTrue(keys.contains("sheet.status.unresolved"), language)
            XCTAssertTrue(keys.contains("sheet.status.unresolved.detail"), language)
            let shown = text["sheet.status.unresolved"] + " " + text["sheet.status.unresolved.detail"]
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
        ]
        for (environment, language) in cases {
            XCTAssertEqual(BuyerText.language(environment: environment), language, "\(environment)")
        }
        XCTAssertEqual(BuyerText(language: "lv")["card.number.label"], "Kartes numurs")
        XCTAssertEqual(BuyerText(language: "xx").language, "en")
        XCTAssertEqual(BuyerText(language: "lv").format("sheet.pay", "16.24 EUR"), "Maksāt 16.24 EUR")
    }
}
