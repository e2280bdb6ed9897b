import BuyerText
import CCheckoutGtk4
import Foundation
import PaymentUITesting
import XCTest

@testable import CheckoutApp

/// Issue 32: under each of BuyerText's languages, every word the shop's window and its wallet sheet show
/// is in that language: no English left among the shop's own words, the SDK's fields and errors, or the
/// sheet. BuyerText's table is chosen once per process, so the test runs this test binary again for each
/// language with that locale (`LANG=et_EE.UTF-8`, ...) and reads every label there.
final class LanguageTests: XCTestCase {
    static let child = "EGW_CHECKOUT_LANGUAGE_CHILD"
    static let locales = [
        "en": "en_US.UTF-8", "lv": "lv_LV.UTF-8", "et": "et_EE.UTF-8", "lt": "lt_LT.UTF-8", "ru": "ru_RU.UTF-8",
    ]

    /// Hand-written from the tables' meaning and CLDR's number formats: the window's title, the cart's
    /// heading (its plural), the total (CLDR's price format), the card button; on the sheet its total and
    /// the SAVE10 line (10 % of 20.50, negative).
    static let expected: [String: [String]] = [
        "en": ["EGW shop", "Your cart (2 items)", "Total: €20.50", "Pay by card", "Total, EGW shop: €20.50", "-€2.05"],
        "lv": [
            "EGW veikals", "Jūsu grozs (2 preces)", "Kopā: 20,50\u{A0}€", "Maksāt ar karti",
            "Kopā, EGW veikals: 20,50\u{A0}€", "-2,05\u{A0}€",
        ],
        "et": [
            "EGW pood", "Teie ostukorv (2 toodet)", "Kokku: 20,50\u{A0}€", "Maksa kaardiga",
            "Kokku, EGW pood: 20,50\u{A0}€", "\u{2212}2,05\u{A0}€",
        ],
        "lt": [
            "EGW parduotuvė", "Jūsų krepšelis (2 prekės)", "Iš viso: 20,50\u{A0}€", "Mokėti kortele",
            "Iš viso, EGW parduotuvė: 20,50\u{A0}€", "\u{2212}2,05\u{A0}€",
        ],
        "ru": [
            "Магазин EGW", "Ваша корзина (2 товара)", "Итого: 20,50\u{A0}€", "Оплатить картой",
            "Итого, Магазин EGW: 20,50\u{A0}€", "-2,05\u{A0}€",
        ],
    ]

    func testEveryWordOfTheShopIsInTheBuyersLanguage() throws {
        if let language = ProcessInfo.processInfo.environment[Self.child] { return try check(language) }
        XCTAssertEqual(Set(Self.locales.keys), Set(BuyerText.languages), "a new language needs its locale here")
        for language in BuyerText.languages {
            var environment = ProcessInfo.processInfo.environment
            for name in ["LANGUAGE", "LC_ALL", "LC_MESSAGES"] { environment[name] = nil }
            environment["LANG"] = Self.locales[language]
            environment[Self.child] = language
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["CheckoutAppTests.LanguageTests/testEveryWordOfTheShopIsInTheBuyersLanguage"]
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "\(language): \(output)")
            XCTAssertTrue(output.contains("Executed 1 test, with 0 failures"), "\(language): \(output)")
        }
    }

    /// In the child: the shop, its validation errors (Pay by card on an empty form) and the wallet sheet
    /// (before and after express shipping and the coupon SAVE10), every label read.
    private func check(_ language: String) throws {
        XCTAssertEqual(BuyerText.current.language, language)
        let shown = try MainActor.assumeIsolated { () throws -> [String] in
            var options = CheckoutOptions()
            options.browser = .headless
            let shop = try CheckoutWindow(options: options)
            shop.present()
            UITest.spin(timeout: 0.2)
            click(shop, "pay-card")  // nothing typed: every field's error shows (the first result)
            var shown = labels(in: UnsafeMutablePointer(OpaquePointer(shop.window)))
            click(shop, "pay-wallet")
            UITest.spin { shop.sheet?.sheet?.state == .ready }
            let sheet = UITest.pointer(try XCTUnwrap(shop.sheet?.windowReference))
            shown += labels(in: UnsafeMutablePointer(OpaquePointer(sheet)))
            try chooseContactExpressAndSAVE10(on: try XCTUnwrap(shop.sheet))  // the shipping and coupon lines
            shown += labels(in: UnsafeMutablePointer(OpaquePointer(sheet)))
            UITest.activate(try XCTUnwrap(UITest.find("cancel", in: sheet)))
            UITest.spin(timeout: 30) { shop.finished == 2 }
            shown += labels(in: UnsafeMutablePointer(OpaquePointer(shop.window)))
            UITest.destroy(window: shop.window)
            return shown
        }
        XCTAssertGreaterThan(shown.count, 20, "\(shown)")
        for word in Self.expected[language] ?? [] {
            XCTAssertTrue(shown.contains(word), "\(language): no \(word) in \(shown)")
        }
        XCTAssertTrue(shown.contains(BuyerText.current["shop.cancelled"]), "\(shown)")
        XCTAssertTrue(shown.contains(BuyerText.current.format("shop.coupon", "SAVE10")), "\(shown)")
        XCTAssertFalse(shown.contains("Coupon SAVE10") && language != "en", "\(shown)")
        for text in shown {
            XCTAssertNil(text.range(of: "[0-9][.,][0-9]{2} EUR", options: .regularExpression), "not CLDR: \(text)")
            XCTAssertFalse(
                ["shop.", "sheet.", "card.", "error.", "sdk."].contains { text.hasPrefix($0) }, "a key shows: \(text)")
        }
        guard language != "en" else { return }
        // Every English word the table translates for this language: none may show.
        let english = BuyerText(language: "en")
        let own = BuyerText(language: language)
        let untranslated = BuyerText.keys(of: "en").filter { !$0.contains("#") && own[$0] != english[$0] }
            .compactMap { key -> String? in
                english[key].components(separatedBy: "%@").map { $0.trimmingCharacters(in: .whitespaces) }
                    .max { $0.count < $1.count }
            }
            .filter { $0.count >= 4 }
        for text in shown {
            for word in untranslated where text.contains(word) {
                XCTFail("\(language): \"\(text)\" shows the English \"\(word)\"")
            }
        }
    }
}

/// Every label's text under `widget` (buttons' and entries' placeholders are labels too), and the
/// window's title.
@MainActor
private func labels(in widget: UnsafeMutablePointer<GtkWidget>) -> [String] {
    var texts: [String] = []
    if let title = gtk_window_get_title(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GtkWindow.self)),
        String(cString: gtk_widget_get_css_name(widget)) == "window"
    {
        texts.append(String(cString: title))
    }
    func walk(_ widget: UnsafeMutablePointer<GtkWidget>) {
        if String(cString: gtk_widget_get_css_name(widget)) == "label",
            let text = gtk_label_get_text(OpaquePointer(widget))
        {
            let label = String(cString: text)
            if !label.isEmpty { texts.append(label) }
        }
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            walk(current)
            child = gtk_widget_get_next_sibling(current)
        }
    }
    walk(widget)
    return texts
}
