import Foundation
import GatewaySandbox
import HeadlessBrowser
import Synchronization
import XCTest

@testable import PaymentAuthorization

/// The in-process sandbox the end-to-end cases share: real HTTP on loopback, real libcurl, the real
/// headless browser for challenges. XCTest runs the cases one after another; each clears its faults.
enum SharedSandbox {
    static let instance: Sandbox = {
        do {
            return try Sandbox(configuration: .init(seed: 12))
        } catch {
            fatalError("the sandbox did not start: \(error)")
        }
    }()
}

/// A sheet presenter that records, when each status is shown, whether the challenge page was still up.
final class WatchingSheet: WalletSheetPresenter {
    let inner: ScriptedWalletSheet
    let pageUp: @Sendable () -> Bool
    let statusWhilePageUp = Mutex(0)

    init(_ inner: ScriptedWalletSheet, pageUp: @escaping @Sendable () -> Bool) {
        self.inner = inner
        self.pageUp = pageUp
    }

    func presentSheet(_ sheet: WalletSheet, buyer: any WalletSheetBuyer, completion: @escaping @Sendable (Bool) -> Void)
    {
        inner.presentSheet(sheet, buyer: buyer, completion: completion)
    }
    func update(_ sheet: WalletSheet) { inner.update(sheet) }
    func showStatus(
        _ status: PaymentAuthorizationStatus, on sheet: WalletSheet, completion: @escaping @Sendable () -> Void
    ) {
        if pageUp() { statusWhilePageUp.withLock { $0 += 1 } }
        inner.showStatus(status, on: sheet, completion: completion)
    }
    func dismissSheet(completion: @escaping @Sendable () -> Void) { inner.dismissSheet(completion: completion) }
}

/// One wallet payment end to end: a scripted buyer on the sheet, `SimulatedMerchant` pricing, a fresh
/// sandbox payment per authorization, `WalletPaymentContext` paying it.
struct WalletRun {
    let result: WalletPaymentResult
    let sheet: ScriptedWalletSheet
    let created: [SandboxPayment]
    let statusWhilePageUp: Int
    let reports: [SheetReport]
    /// What the context's observer was told.
    let contextReports: [WalletContextReport]
    /// Every order `paymentFor` was handed, in order.
    let orders: [AuthorizedWalletPayment]

    /// The merchant of the end-to-end cases: a 12.50 EUR book; standard shipping free, express 4.99;
    /// SAVE10 is 10 % off the goods, OLD has expired; no shipping to "US".
    static func merchant() -> SimulatedMerchant {
        let merchant = SimulatedMerchant(
            name: "Example shop", goods: [PaymentSummaryItem(label: "Book", amount: Decimal(string: "12.50")!)],
            currencyCode: "EUR", initialMethod: Fixtures.request().shippingMethods[0])
        merchant.setCoupon("SAVE10", .percentOff(10))
        merchant.setCoupon("OLD", .expired)
        merchant.setUnserviceable("US")
        return merchant
    }

    /// A kit on the shared sandbox's base URLs.
    static func kit(requestTimeout: TimeInterval = 5) -> PaymentKit {
        let sandbox = SharedSandbox.instance
        var configuration = PaymentFlow.Configuration(
            apiBaseURL: sandbox.apiBaseURL, checkoutAPIBaseURL: sandbox.checkoutAPIBaseURL,
            checkoutBaseURL: sandbox.checkoutBaseURL, environment: .sandbox)
        configuration.requestTimeout = requestTimeout
        return PaymentKit(configuration: configuration)
    }

    static func run(
        _ testCase: XCTestCase, script: [SheetBuyerAction], cards: [String],
        networks: [CardBrand] = [.visa, .mastercard, .maestro],
        challengeCode: String = "1234", requestTimeout: TimeInterval = 5, deadline: TimeInterval? = 30,
        clock: SheetClock = .live, contextOptions: WalletPaymentContext.Options = .init(), answers: Int = 1,
        beforeStart: @escaping @Sendable (ScriptedWalletSheet) -> Void = { _ in },
        afterStart: @escaping @Sendable (ScriptedWalletSheet) -> Void = { _ in },
        file: StaticString = #filePath, line: UInt = #line
    ) -> WalletRun? {
        let sandbox = SharedSandbox.instance
        let kit = kit(requestTimeout: requestTimeout)
        let browser = HeadlessBrowserPresenter(
            script: .answering(challengeCode: challengeCode), options: .init(pageTimeout: 5))
        let scripted = ScriptedWalletSheet(script: script)
        let sheet = WatchingSheet(scripted, pageUp: { browser.isPresenting })
        let wallet = SimulatedWallet(
            cards: cards.map { WalletCard(Fixtures.card($0, code: CardBrand.detect($0) == .amex ? "9876" : "987")) },
            contacts: [Fixtures.home, Fixtures.abroad])
        var request = Fixtures.request()
        request.supportedNetworks = networks
        let merchant = merchant()
        request.paymentSummaryItems = merchant.summaryItems
        let reports = Reports()
        var options = PaymentAuthorizationController.Options()
        options.deadline = deadline
        options.clock = clock
        options.observer = { reports.add($0) }
        let created = Mutex<[SandboxPayment]>([])
        let orders = Mutex<[AuthorizedWalletPayment]>([])
        let contextReports = Mutex<[WalletContextReport]>([])
        var contextOptions = contextOptions
        contextOptions.observer = { report in contextReports.withLock { $0.append(report) } }
        let context = WalletPaymentContext(
            paymentRequest: request, sheetPresenter: sheet, wallet: wallet, options: options,
            contextOptions: contextOptions, merchant: merchant, paymentKit: kit, pagePresenter: browser
        ) { amount, completion in
            orders.withLock { $0.append(amount) }
            let payment = sandbox.createPayment(amount: amount.minorUnits, currency: amount.currencyCode)
            created.withLock { $0.append(payment) }
            beforeStart(scripted)
            // `answers` > 1: a backend callback that answers more than once (issue 21 Why 2).
            for _ in 0..<answers {
                completion(
                    .success(CardPaymentRequest(paymentId: payment.paymentId, verificationKey: payment.verificationKey))
                )
            }
            afterStart(scripted)
        }
        guard let context else {
            XCTFail("no context", file: file, line: line)
            return nil
        }
        let results = Mutex<[WalletPaymentResult]>([])
        let violations = Mutex<[String]>([])
        let delivered = testCase.expectation(description: "one wallet result")
        context.present { result in
            dispatchPrecondition(condition: .onQueue(.main))
            if scripted.isPresenting { violations.withLock { $0.append("delivered while the sheet is up") } }
            if browser.isPresenting { violations.withLock { $0.append("delivered while a page is up") } }
            results.withLock { $0.append(result) }
            delivered.fulfill()
        }
        testCase.wait(for: [delivered], timeout: 60)
        let drained = testCase.expectation(description: "main queue drained")
        DispatchQueue.main.async { DispatchQueue.main.async { drained.fulfill() } }
        testCase.wait(for: [drained], timeout: 10)
        for violation in violations.withLock({ $0 }) { XCTFail(violation, file: file, line: line) }
        let all = results.withLock { $0 }
        XCTAssertEqual(all.count, 1, "exactly one wallet result", file: file, line: line)
        guard let result = all.first else { return nil }
        return WalletRun(
            result: result, sheet: scripted, created: created.withLock { $0 },
            statusWhilePageUp: sheet.statusWhilePageUp.withLock { $0 }, reports: reports.all,
            contextReports: contextReports.withLock { $0 }, orders: orders.withLock { $0 })
    }
}
