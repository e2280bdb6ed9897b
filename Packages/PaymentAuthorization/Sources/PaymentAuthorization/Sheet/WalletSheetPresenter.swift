import Dispatch
import Foundation
@_spi(LifecycleRuntime) import PaymentFlow

/// The stand-in for the Apple Pay sheet's UI: shows ``WalletSheet`` renderings and passes the buyer's
/// actions to the controller through a ``WalletSheetBuyer``.
///
/// The controller calls these on its callback queue (the main queue by default), one sheet at a time.
/// Each completion must be called exactly once, from any thread; one that never comes is covered by the
/// controller's deadline (when it has one).
public protocol WalletSheetPresenter: AnyObject, Sendable {
    /// Shows the sheet. `completion(true)` once it is up, `false` when it cannot be shown. The buyer
    /// acts through `buyer` until the sheet is dismissed.
    func presentSheet(_ sheet: WalletSheet, buyer: any WalletSheetBuyer, completion: @escaping @Sendable (Bool) -> Void)
    /// The sheet changed (a new total, busy, errors).
    func update(_ sheet: WalletSheet)
    /// Shows the authorization's status; `completion` once the buyer has seen it.
    func showStatus(
        _ status: PaymentAuthorizationStatus, on sheet: WalletSheet, completion: @escaping @Sendable () -> Void)
    /// Takes the sheet down; `completion` once it is gone (at once when nothing is shown).
    func dismissSheet(completion: @escaping @Sendable () -> Void)
}

/// How a presenter (a script or a person) acts on the sheet. Thread-safe; answers at once.
public protocol WalletSheetBuyer: AnyObject, Sendable {
    /// Performs `action`: `.accepted`, `.busy` while a delegate call is outstanding, or `.refused(why)`.
    func perform(_ action: SheetBuyerAction) -> SheetBuyerReply
}

/// The clock the controller's deadlines run on.
public struct SheetClock: Sendable {
    /// Calls `fire` once, `after` seconds from now, on any thread.
    public let schedule: @Sendable (_ after: TimeInterval, _ fire: @escaping @Sendable () -> Void) -> Void

    /// A clock from a scheduling function (tests pass a virtual one).
    public init(schedule: @escaping @Sendable (_ after: TimeInterval, _ fire: @escaping @Sendable () -> Void) -> Void) {
        self.schedule = schedule
    }

    /// PaymentFlow's boot clock (`CLOCK_BOOTTIME`): time the machine spends suspended counts, so a
    /// deadline that passed during a sleep fires on resume. The deadlines wait in the one timer queue the
    /// SDK's payments share (one armed timer for the earliest), and fire on a global dispatch queue.
    public static let live = SheetClock { delay, fire in
        _ = liveLifecycleSchedule(delay, fire)
    }
}
