import Foundation
import Synchronization

/// A headless ``WalletSheetPresenter``: keeps the sheet's renderings, and lets a buyer act on it, either
/// a script (each action taken when the sheet is ready) or a person / test calling ``perform(_:)``.
///
/// Its transcript holds every rendering's state and total, every action and its reply, every status
/// shown; cards appear only as `Visa •••• 1111`. Thread-safe.
public final class ScriptedWalletSheet: WalletSheetPresenter {
    /// How the sheet answers `presentSheet`.
    public enum PresentAnswer: Sendable {
        /// Shows it.
        case show
        /// Cannot show it (`completion(false)`).
        case refuse
        /// Never answers (the controller's deadline decides).
        case never
    }

    private struct State {
        var script: [SheetBuyerAction]
        var buyer: (any WalletSheetBuyer)?
        var current: WalletSheet?
        var isPresenting = false
        var presentations = 0
        var statuses: [PaymentAuthorizationStatus] = []
        var transcript: [String] = []
        var heldStatus: (@Sendable () -> Void)?
    }

    private let state: Mutex<State>
    private let presentAnswer: PresentAnswer
    private let answersStatus: Bool

    /// A sheet that answers `present` as `presentAnswer`, confirms shown statuses unless `answersStatus`
    /// is false (then ``confirmStatus()`` does), and runs `script` one action per ready state.
    public init(script: [SheetBuyerAction] = [], presentAnswer: PresentAnswer = .show, answersStatus: Bool = true) {
        state = Mutex(State(script: script))
        self.presentAnswer = presentAnswer
        self.answersStatus = answersStatus
    }

    /// Whether a sheet is up (presented and not yet dismissed).
    public var isPresenting: Bool { state.withLock { $0.isPresenting } }
    /// How many times a sheet was presented on this presenter.
    public var presentations: Int { state.withLock { $0.presentations } }
    /// The last rendering.
    public var current: WalletSheet? { state.withLock { $0.current } }
    /// The statuses shown, in order.
    public var statusesShown: [PaymentAuthorizationStatus] { state.withLock { $0.statuses } }
    /// One line per rendering, action and status.
    public var transcript: [String] { state.withLock { $0.transcript } }
    /// The script actions not yet taken.
    public var remainingScript: [SheetBuyerAction] { state.withLock { $0.script } }

    /// Acts on the sheet as the buyer; `.refused(.noSheet)` when none is up.
    @discardableResult
    public func perform(_ action: SheetBuyerAction) -> SheetBuyerReply {
        guard let buyer = state.withLock({ $0.buyer }) else { return .refused(.noSheet) }
        let reply = buyer.perform(action)
        state.withLock { state in
            var shown = "\(action)"
            if case .selectCard(let index) = action, let cards = state.current?.cards, cards.indices.contains(index) {
                shown += " (\(cards[index].displayName))"
            }
            state.transcript.append("buyer: \(shown) -> \(reply)")
        }
        return reply
    }

    /// Confirms a status held because `answersStatus` is false (nothing once the sheet was dismissed).
    public func confirmStatus() {
        let held = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state.heldStatus = nil }
            return state.heldStatus
        }
        held?()
    }

    /// Shows the sheet (or refuses, or stays silent, as configured) and keeps the buyer handle.
    public func presentSheet(
        _ sheet: WalletSheet, buyer: any WalletSheetBuyer, completion: @escaping @Sendable (Bool) -> Void
    ) {
        state.withLock {
            $0.transcript.append("present: \(presentAnswer)")
            if presentAnswer == .show {
                $0.buyer = buyer
                $0.current = sheet
                $0.isPresenting = true
                $0.presentations += 1
            }
        }
        switch presentAnswer {
        case .show: completion(true)
        case .refuse: completion(false)
        case .never: break
        }
    }

    /// Keeps the rendering; when it is ready, takes the script's next actions.
    public func update(_ sheet: WalletSheet) {
        var ready = state.withLock { state -> Bool in
            guard state.isPresenting else { return false }
            state.current = sheet
            state.transcript.append(
                "sheet: \(sheet.state) total \(CurrencyExponent.format(sheet.total, currencyCode: sheet.currencyCode))"
                    + (sheet.errors.isEmpty ? "" : " errors \(sheet.errors)"))
            return sheet.state == .ready
        }
        // A buyer goes on after a refused action; an accepted one waits for the next ready state, a busy
        // one is tried again then.
        while ready, let next = state.withLock({ $0.script.first }) {
            let reply = perform(next)
            guard reply != .busy else { break }
            state.withLock { if !$0.script.isEmpty { $0.script.removeFirst() } }
            ready = reply != .accepted
        }
    }

    /// Records the status; confirms it at once unless told to hold it.
    public func showStatus(
        _ status: PaymentAuthorizationStatus, on sheet: WalletSheet, completion: @escaping @Sendable () -> Void
    ) {
        state.withLock {
            $0.statuses.append(status)
            $0.current = sheet
            $0.transcript.append("status: \(status)")
            if !answersStatus { $0.heldStatus = completion }
        }
        if answersStatus { completion() }
    }

    /// Takes the sheet down and drops the buyer handle and any held status confirmation (a dismissed
    /// sheet confirms nothing, and the held closure would keep the controller alive); completes at once.
    public func dismissSheet(completion: @escaping @Sendable () -> Void) {
        state.withLock {
            if $0.isPresenting { $0.transcript.append("dismissed") }
            $0.isPresenting = false
            $0.buyer = nil
            $0.heldStatus = nil
        }
        completion()
    }
}
