import BuyerText
import CGtk4
import CPaymentUIGtk
import CPaymentUITestHooks
import CardFields
import CardValidation
import Foundation
import XCTest

/// The entries speak the locale's language. The table is chosen once per process, so the test runs this
/// same test binary again with a Latvian locale and checks there.
final class LatvianTests: XCTestCase {
    static let child = "EGW_LATVIAN_CHILD"

    func testTheEntriesSpeakLatvianUnderALatvianLocale() throws {
        if ProcessInfo.processInfo.environment[Self.child] == "1" { return try checkInLatvian() }
        var environment = ProcessInfo.processInfo.environment
        for name in ["LANGUAGE", "LC_ALL", "LC_MESSAGES"] { environment[name] = nil }
        environment["LANG"] = "lv_LV.UTF-8"
        environment[Self.child] = "1"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["CardFieldsTests.LatvianTests/testTheEntriesSpeakLatvianUnderALatvianLocale"]
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, output)
        XCTAssertTrue(output.contains("Executed 1 test, with 0 failures"), output)
    }

    private func checkInLatvian() throws {
        try onMain {
            XCTAssertEqual(BuyerText.current.language, "lv")
            let number = CardNumberEntry()
            let expiry = CardExpiryEntry()
            let code = CardSecurityCodeEntry()
            let harness = try Harness([number.widgetReference, expiry.widgetReference, code.widgetReference])
            defer { harness.close() }
            XCTAssertNil(
                accessibleMismatch(egwui_accessible_check_label(Harness.gtk(number.widgetReference), "Kartes numurs")))
            XCTAssertNil(
                accessibleMismatch(
                    egwui_accessible_check_label(Harness.gtk(expiry.widgetReference), "Derīguma termiņš")))
            XCTAssertNil(
                accessibleMismatch(egwui_accessible_check_label(Harness.gtk(code.widgetReference), "Drošības kods")))
            let issue = CardValidationIssue(field: .expiry, reason: .expired, state: .invalid)
            XCTAssertTrue(expiry.showValidationError(issue.nsError))
            XCTAssertEqual(expiry.validationMessage, "Kartes derīguma termiņš ir beidzies.")
            XCTAssertNil(
                accessibleMismatch(
                    egwui_accessible_check_description(
                        Harness.gtk(expiry.widgetReference), "Kartes derīguma termiņš ir beidzies.")))
            XCTAssertEqual(
                PaymentErrorText.describe(NSError(domain: "com.egw.egwpay", code: 4)), BuyerText.current["error.4"])
            XCTAssertEqual(BuyerText.current["error.4"], "Savienojums neizdevās. Pārbaudiet tīklu.")
        }
    }
}
