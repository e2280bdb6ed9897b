import Foundation
import StateExplorer
import XCTest

@testable import PaymentAuthorization

/// Walks every ordering of the sheet's events up to a depth — buyer actions, first, late and repeated
/// answers, deadlines, the presenter's answers, the app's dismiss, the delegate vanishing — on the value
/// machine itself, and checks after every step:
/// - `didFinish` at most once, and only for a sheet that was shown;
/// - nothing waits without a timer: every awaited answer has its deadline armed;
/// - from every state, the buyer's cancel and the deadlines alone end the sheet, with `didFinish`
///   exactly once (shown sheets) and the self-retention released exactly once;
/// - an answer is applied only while awaited: a stale one changes nothing but a report;
/// - a shown success is never followed by a buyer-cancel ending;
/// - the status shown is the authorization's answer as it is: `.unresolved` (a payment in doubt) is shown
///   and ends the sheet, never shown as `.failure` nor left open for a retry.
final class SheetExplorationTests: XCTestCase {
    struct World: EventDrivenWorld {
        var machine: SheetMachine
        var armed: Set<UInt64> = []
        var calls: [(token: UInt64, authorization: Bool)] = []
        var presentToken: UInt64?
        var statusToken: UInt64?
        var dismissToken: UInt64?
        var didFinish = 0
        var wasShown = false
        var released = 0
        var presentCompletions: [Bool] = []
        var successApplied = false
        var violations: [String] = []

        mutating func apply(_ event: SheetMachine.Event) {
            let before = machine
            if case .deadline(let token) = event { armed.remove(token) }
            let (actions, _) = machine.handle(event)
            for action in actions {
                switch action {
                case .startTimer(let token): armed.insert(token)
                case .call(let call, let token): calls.append((token, call == .authorization))
                case .present(let token): presentToken = token
                case .showStatus(let status, let token):
                    statusToken = token
                    if status == .success { successApplied = true }
                case .dismissSheet(let token): dismissToken = token
                case .didFinish: didFinish += 1
                case .presentCompleted(let shown):
                    presentCompletions.append(shown)
                    if shown { wasShown = true }
                case .release: released += 1
                case .refusePresent, .render, .dismissCompleted, .report: break
                }
            }
            // The status shown is the delegate's answer, as it is: a payment in doubt (`.unresolved`) is
            // shown as being confirmed and ends the sheet, never shown as failed nor left open for a retry.
            if case .answer(let token, .authorization(let result)) = event, before.pending?.token == token,
                before.phase == .open, before.pending?.call == .authorization
            {
                violations += Self.shownStatusViolations(answered: result, actions: actions)
            }
            // An answer that was not awaited changes nothing but a report.
            if case .answer(let token, _) = event, before.pending?.token != token || before.phase != .open {
                if actions.contains(where: { if case .report = $0 { false } else { true } }) {
                    violations.append("a stale answer acted: \(actions)")
                }
                if before.summaryItems != machine.summaryItems || before.phase != machine.phase {
                    violations.append("a stale answer changed the sheet")
                }
            }
            check()
        }

        /// What the sheet does with an applied authorization answer: any status it shows is the answer's;
        /// `.unresolved` is always shown (the sheet ends).
        static func shownStatusViolations(
            answered result: PaymentAuthorizationResult, actions: [SheetMachine.Action]
        ) -> [String] {
            let shown = actions.compactMap { action -> PaymentAuthorizationStatus? in
                if case .showStatus(let status, _) = action { return status }
                return nil
            }
            var violations = shown.filter { $0 != result.status }.map { "answered \(result.status), shown \($0)" }
            if result.status == .unresolved && shown.isEmpty {
                violations.append("answered unresolved, the sheet stayed open")
            }
            return violations
        }

        mutating func check() {
            if didFinish > 1 { violations.append("didFinish twice") }
            if didFinish > 0 && !wasShown { violations.append("didFinish for a sheet never shown") }
            if released > 1 { violations.append("released twice") }
            if presentCompletions.count > 1 { violations.append("present completion twice") }
            // An authorization whose deadline the delegate took over (the wallet context) is bounded by
            // the delegate's own timers; the buyer's cancel still ends it (checked by `settle`).
            for token in awaited where !armed.contains(token) && token != machine.delegateOwnedDeadline {
                violations.append("waiting on \(token) with no deadline (\(machine.phase))")
            }
            if successApplied && machine.finishReason == .buyerCancelled {
                violations.append("success shown, then reported as a buyer cancel")
            }
        }

        /// The tokens the machine is waiting on.
        var awaited: [UInt64] {
            var tokens: [UInt64] = []
            if let pending = machine.pending { tokens.append(pending.token) }
            switch machine.phase {
            case .presenting(let token), .showingStatus(let token), .dismissing(let token): tokens.append(token)
            case .notPresented, .open, .finished: break
            }
            return tokens
        }

        /// A key for states that behave alike: token numbers replaced by their roles.
        var fingerprint: String {
            let m = machine
            let stale = calls.filter { $0.token != m.pending?.token }.suffix(2).map { $0.authorization ? "A" : "U" }
            return [
                "\(m.phase)".replacingOccurrences(of: #"\(\d+\)"#, with: "", options: .regularExpression),
                m.pending.map { $0.call.name } ?? "-", "\(m.selectedContact ?? -1)", m.selectedMethod ?? "-",
                "\(m.selectedCard ?? -1)", m.couponCode ?? "-", "\(m.summaryItems.last?.amount ?? 0)",
                "\(m.errors.count)", "\(m.contactBlocked)", "\(m.finishReason?.rawValue ?? "-")",
                "\(m.shownStatus?.rawValue ?? -1)", "\(min(m.attempts, 2))", "\(didFinish)", "\(wasShown)",
                "\(released)", "\(presentCompletions)", stale.joined(), "\(successApplied)",
                "\(armed.filter { !awaited.contains($0) }.isEmpty)",
                "\(m.pending != nil && m.pending?.token == m.delegateOwnedDeadline)",
            ].joined(separator: "|")
        }

        /// Every event that can happen now.
        var enabled: [SheetMachine.Event] {
            var events: [SheetMachine.Event] = [.present, .appDismiss]
            if let token = presentToken {
                events += [
                    .presenterAnswered(token: token, shown: true), .presenterAnswered(token: token, shown: false),
                ]
            }
            let actions: [SheetBuyerAction] = [
                .selectContact(0), .selectContact(1), .selectShippingMethod("express"), .selectCard(1), .selectCard(2),
                .enterCouponCode("SAVE"), .authorize, .cancel,
            ]
            events += actions.map { .buyer($0) }
            for call in calls.suffix(3) {
                if call.authorization {
                    events += [
                        .answer(token: call.token, .authorization(PaymentAuthorizationResult(status: .success))),
                        .answer(token: call.token, .authorization(PaymentAuthorizationResult(status: .failure))),
                        .answer(token: call.token, .authorization(PaymentAuthorizationResult(status: .unresolved))),
                        .answer(
                            token: call.token,
                            .authorization(
                                PaymentAuthorizationResult(status: .failure, errors: [WalletCardError.declined]))),
                    ]
                } else {
                    let items = [
                        PaymentSummaryItem(label: "Book", amount: 10), PaymentSummaryItem(label: "Shop", amount: 10),
                    ]
                    events += [
                        .answer(token: call.token, .update(PaymentRequestUpdate(paymentSummaryItems: items))),
                        .answer(
                            token: call.token,
                            .update(
                                PaymentRequestUpdate(
                                    errors: [PaymentRequestError.shippingAddressUnserviceable],
                                    paymentSummaryItems: items))),
                    ]
                }
            }
            if let last = calls.last { events.append(.delegateGone(token: last.token)) }
            if let last = calls.last, last.authorization { events.append(.delegateOwnsDeadline(token: last.token)) }
            events += armed.sorted().map { .deadline(token: $0) }
            if let token = statusToken { events.append(.statusShown(token: token)) }
            if let token = dismissToken { events.append(.sheetGone(token: token)) }
            return events
        }

        /// Ends the run the way a buyer who gives up and the clock would: cancel, then deadlines.
        mutating func settle() {
            apply(.buyer(.cancel))
            var guardSteps = 0
            while machine.phase != .finished && machine.phase != .notPresented && guardSteps < 20 {
                guard let token = awaited.first else { break }
                apply(.deadline(token: token))
                guardSteps += 1
            }
            if machine.phase == .notPresented { return }
            if machine.phase != .finished { violations.append("did not finish: \(machine.phase)") }
            if wasShown && machine.finishReason != .delegateGone && didFinish != 1 {
                violations.append("didFinish \(didFinish) times for a shown sheet")
            }
            if released != (presentToken == nil ? 0 : 1) { violations.append("released \(released) times") }
        }
    }

    static func initialWorld() -> World {
        let wallet = Fixtures.wallet()
        return World(
            machine: SheetMachine(request: Fixtures.request(), cards: wallet.cards, contacts: wallet.contacts))
    }

    func testEveryOrderingUpToTheDepthKeepsTheContract() {
        let soak = (ProcessInfo.processInfo.environment["EGW_SCHEDULES"].flatMap(Int.init) ?? 0) >= 10_000
        let depth = soak ? 13 : 10
        let totals = StateExplorer.breadthFirst(
            from: Self.initialWorld(), depth: depth, fingerprint: \.fingerprint, successors: \.successors,
            violations: \.violationsSettledOrNot)
        XCTAssertEqual(totals.violations.count, 0, "\(Array(Set(totals.violations)).prefix(10))")
        XCTAssertGreaterThan(totals.states, 1000, "the walk reached the interesting states")
        print(
            "SheetExplorationTests: depth \(depth), \(totals.states) distinct states, "
                + "\(totals.transitions) transitions")
    }

    /// The check bites: a sheet that showed a payment in doubt as a failure (the mutation), or kept it
    /// open for another card, is a violation.
    func testTheCheckCatchesAPaymentInDoubtShownAsFailed() {
        let unresolved = PaymentAuthorizationResult(status: .unresolved)
        XCTAssertEqual(
            World.shownStatusViolations(answered: unresolved, actions: [.render, .showStatus(.failure, token: 3)]),
            ["answered unresolved, shown failure"])
        XCTAssertEqual(
            World.shownStatusViolations(answered: unresolved, actions: [.render]),
            ["answered unresolved, the sheet stayed open"])
        XCTAssertEqual(
            World.shownStatusViolations(answered: unresolved, actions: [.render, .showStatus(.unresolved, token: 3)]),
            [])
    }
}
