import Foundation
import PaymentAuthorization
import Synchronization

/// What the open sheet, its merchant and its payment report, posted from the controller's callback
/// queue and handled in order on the main thread by the shell's wait.
enum SheetEvent: Sendable {
    /// A new rendering of the sheet.
    case rendered(WalletSheet)
    /// The sheet shows the authorization's status.
    case status(PaymentAuthorizationStatus)
    /// The merchant holds its answer to `call` (`merchant answer manual`).
    case held(call: String)
    /// The app's backend made the EGW payment for the authorized total (the key is never shown).
    case paymentCreated(paymentId: String, verificationKey: String, amount: WalletPaymentAmount)
    /// Something the controller noticed (a late answer, a deadline).
    case report(SheetReport)
    /// The sheet is gone and the payment ended: the one result.
    case finished(WalletPaymentResult)
}

/// The sheet's mailbox: posts wake the shell's event loop.
final class SheetInbox: Sendable {
    private let items = Mutex<[SheetEvent]>([])
    private let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// Adds an event (any thread) and wakes the shell.
    func post(_ event: SheetEvent) {
        items.withLock { $0.append(event) }
        wake()
    }

    /// Every event posted so far, oldest first.
    func drain() -> [SheetEvent] {
        items.withLock { items in
            defer { items.removeAll() }
            return items
        }
    }
}

/// The headless sheet the shell shows: PaymentAuthorization's ``ScriptedWalletSheet`` (the buyer acts
/// through ``perform(_:)``), with every rendering and status also posted to the shell.
final class ObservedWalletSheet: WalletSheetPresenter {
    let sheet = ScriptedWalletSheet()
    private let inbox: SheetInbox

    init(inbox: SheetInbox) {
        self.inbox = inbox
    }

    func presentSheet(
        _ rendering: WalletSheet, buyer: any WalletSheetBuyer, completion: @escaping @Sendable (Bool) -> Void
    ) {
        // The controller renders the sheet again once it has taken the answer: that rendering, not
        // this one, says the buyer may act.
        sheet.presentSheet(rendering, buyer: buyer, completion: completion)
    }

    func update(_ rendering: WalletSheet) {
        sheet.update(rendering)
        inbox.post(.rendered(rendering))
    }

    func showStatus(
        _ status: PaymentAuthorizationStatus, on rendering: WalletSheet, completion: @escaping @Sendable () -> Void
    ) {
        inbox.post(.status(status))
        sheet.showStatus(status, on: rendering, completion: completion)
    }

    func dismissSheet(completion: @escaping @Sendable () -> Void) {
        sheet.dismissSheet(completion: completion)
    }
}

/// The simulated merchant, telling the shell when it holds an answer.
final class ObservedMerchant: WalletPaymentMerchant {
    let merchant: SimulatedMerchant
    private let inbox: SheetInbox
    private let holds = Mutex(false)

    init(_ merchant: SimulatedMerchant, inbox: SheetInbox) {
        self.merchant = merchant
        self.inbox = inbox
    }

    /// `merchant answer manual` (true) or `auto` (false).
    func setHoldsAnswers(_ hold: Bool) {
        holds.withLock { $0 = hold }
        merchant.setHoldsAnswers(hold)
    }

    private func noteHeld(_ call: String) {
        if holds.withLock({ $0 }) { inbox.post(.held(call: call)) }
    }

    func shippingContactChanged(
        _ contact: Contact, controller: PaymentAuthorizationController,
        handler: @escaping @Sendable (PaymentRequestShippingContactUpdate) -> Void
    ) {
        merchant.shippingContactChanged(contact, controller: controller, handler: handler)
        noteHeld("didSelectShippingContact")
    }

    func shippingMethodChanged(
        _ method: ShippingMethod, controller: PaymentAuthorizationController,
        handler: @escaping @Sendable (PaymentRequestShippingMethodUpdate) -> Void
    ) {
        merchant.shippingMethodChanged(method, controller: controller, handler: handler)
        noteHeld("didSelectShippingMethod")
    }

    func couponCodeChanged(
        _ code: String, controller: PaymentAuthorizationController,
        handler: @escaping @Sendable (PaymentRequestCouponCodeUpdate) -> Void
    ) {
        merchant.couponCodeChanged(code, controller: controller, handler: handler)
        noteHeld("didChangeCouponCode")
    }
}
