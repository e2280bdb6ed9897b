import Foundation
import GatewaySandbox
import Synchronization
import XCTest

@testable import PaymentAuthorization

/// No card number or security code in anything the package prints or hands out as text: sheet
/// renderings and transcripts, reports, descriptions and dumps of every value, errors, results.
final class CardDataScanTests: XCTestCase {
    /// A valid Visa number (Luhn checked by hand: 4111 1111 1111 1111) with an unusual code, so that a
    /// leak of either is unmistakable.
    static let number = "4111 1111 1111 1111"
    static let code = "987"

    static var forbidden: [String] {
        [number, number.replacingOccurrences(of: " ", with: ""), "411111", "1111 1111 1111", code]
    }

    /// The forbidden strings found in `text`. Long identifiers (UUIDs, payment and session ids, which may
    /// hold any digits) are taken out first, so a code of three digits is found only standing alone.
    func leaks(in text: String) -> [String] {
        let withoutIds = text.replacingOccurrences(
            of: #"[A-Za-z0-9_-]{10,}"#, with: "<id>", options: .regularExpression)
        return Self.forbidden.filter { $0 == Self.code ? withoutIds.contains($0) : text.contains($0) }
    }

    func testEverythingTheSheetPrintsIsMasked() throws {
        let card = Fixtures.card(Self.number, code: Self.code)
        let wallet = SimulatedWallet(cards: [WalletCard(card)], contacts: [Fixtures.home])
        let h = Harness(wallet: wallet)
        h.delegate.set {
            $0.authorizationResult = PaymentAuthorizationResult(
                status: .failure, errors: [WalletCardError.declined, PaymentRequestError.billingContactInvalid(nil)])
        }
        h.present()
        h.act(.selectContact(0))
        h.act(.selectCard(0))
        h.act(.authorize)
        h.delegate.set { $0.authorizationResult = PaymentAuthorizationResult(status: .success) }
        h.act(.authorize)
        let payment = try XCTUnwrap(h.delegate.state.withLock { $0.paymentsSeen.first })
        var texts: [String] = h.sheet.transcript + h.reports.all.map { "\($0)" }
        texts.append(h.sheet.current.map { "\($0)" } ?? "")
        texts += ["\(payment)", "\(payment.token)", "\(payment.token.paymentMethod)", "\(WalletCard(card))"]
        texts += [String(reflecting: payment), String(reflecting: payment.token), String(reflecting: wallet.cards)]
        var dumped = ""
        dump(payment, to: &dumped)
        dump(wallet.cards, to: &dumped)
        dump(h.controller.sheet, to: &dumped)
        texts.append(dumped)
        let errors: [any Error] = [WalletCardError.declined, PaymentRequestError.billingContactInvalid(nil)]
        for error in errors {
            texts.append("\(error) \((error as NSError).localizedDescription) \(String(reflecting: error))")
        }
        XCTAssertTrue(dumped.contains("1111"), "the dump shows the last four")
        XCTAssertTrue(texts.joined().contains("Visa •••• 1111"))
        for text in texts { XCTAssertEqual(leaks(in: text), [], text) }
        // The payment really carries the card (the token is the processor's data).
        XCTAssertEqual(payment.token.card.securityCode, Self.code)
    }

    func testAWalletPaymentsResultAndTranscriptAreMasked() throws {
        let run = try XCTUnwrap(
            WalletRun.run(
                self, script: [.selectContact(0), .enterCouponCode("SAVE10"), .authorize], cards: [Self.number]))
        XCTAssertEqual(run.result.outcome, .succeeded)
        var dumped = ""
        dump(run.result, to: &dumped)
        let texts =
            run.sheet.transcript + ["\(run.result)", String(reflecting: run.result), dumped]
            + run.reports.map { "\($0)" }
        for text in texts { XCTAssertEqual(leaks(in: text), [], text) }
    }
}
