import CardFields
import CardValidation
import Foundation
import PaymentUIText
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
        for key in english.sorted() {
            XCTAssertFalse(lv[key].isEmpty, key)
            XCTAssertEqual(
                lv[key].components(separatedBy: "%@").count, en[key].components(separatedBy: "%@").count, key)
        }
    }

    /// Every message CardValidation has for a field and reason has a key, and the English table says what
    /// CardValidation says.
    func testEveryValidationMessageHasAKey() {
        let en = BuyerText(language: "en")
        let lv = BuyerText(language: "lv")
        var checked = 0
        for field in CardField.allCases {
            for reason in CardValidationIssue.Reason.allCases {
                let issue = CardValidationIssue(field: field, reason: reason, state: .invalid)
                guard issue.message != "The \(field.displayName) is not valid." else { continue }
                let key = "card.error.\(field).\(reason.rawValue)"
                XCTAssertEqual(en[key], issue.message, key)
                XCTAssertNotEqual(lv[key], key, key)
                checked += 1
            }
        }
        XCTAssertEqual(checked, 18)
    }

    func testTheTwelveErrorCodesFollowTheTable() {
        for code in 1...12 {
            let text = PaymentErrorText.describe(NSError(domain: "com.egw.egwpay", code: code))
            XCTAssertEqual(text, BuyerText.current["error.\(code)"])
            XCTAssertNotEqual(text, "error.\(code)")
        }
        let issue = CardValidationIssue(field: .expiry, reason: .expired, state: .invalid)
        XCTAssertEqual(PaymentErrorText.describe(issue.nsError), BuyerText.current["card.error.expiry.expired"])
        let foreign = NSError(domain: "other", code: 4, userInfo: [NSLocalizedDescriptionKey: "theirs"])
        XCTAssertEqual(PaymentErrorText.describe(foreign), "theirs")
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
