import BuyerText
import CardFields
import CardValidation
import Foundation
import XCTest

final class BuyerTextTests: XCTestCase {
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
}
