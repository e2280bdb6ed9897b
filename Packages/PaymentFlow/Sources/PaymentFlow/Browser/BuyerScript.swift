import Foundation
import Synchronization

/// The buyer's choices on the hosted checkout page. Each names the submit
/// button (`name="choice"`, `value=` the raw value) the browser presses.
public enum HostedChoice: String, CaseIterable, Sendable {
    /// Pay (the sandbox records `SETTLED`).
    case pay
    /// The bank declines (`FAILED`).
    case decline
    /// The buyer cancels (`CANCELLED`).
    case cancel
    /// The buyer walks away (`ABANDONED`).
    case abandon
    /// The payment stays pending (`SENT_FOR_PROCESSING`).
    case pending
}

/// What the scripted buyer does on a loaded page.
public enum BuyerAction: Sendable, Equatable {
    /// Presses the hosted page's button for this choice.
    case hosted(HostedChoice)
    /// Types `code` into the challenge form's `code` field (or its only
    /// text/password field) and submits it.
    case challenge(code: String)
    /// Closes the window: the handler hears `pageWasClosedByBuyer()` and the
    /// page takes no further action until dismissed.
    case close
    /// Submits form number `formIndex` (document order) with `fields`
    /// overriding or adding values, pressing its first submit button unless
    /// `fields` sets that button's name.
    case submit(formIndex: Int, fields: [String: String])
    /// Does nothing: the buyer looks at the page (the SDK may still cancel).
    case wait
}

/// How the scripted buyer decides, one page at a time.
///
/// The decision is asynchronous so a REPL can ask a person: the closure gets
/// the page and a `respond` callback to call once (later calls are ignored;
/// an answer that arrives after the page changed or was dismissed is
/// dropped). It is called on a background queue, never while the browser
/// holds a lock, and is not asked about pages the browser submits by itself.
///
/// ```swift
/// let buyer = BuyerScript.answering(hosted: .pay, challengeCode: "1234")
/// let custom = BuyerScript { page, respond in
///     respond(page.kind == .challenge ? .challenge(code: "0000") : .close)
/// }
/// ```
public struct BuyerScript: Sendable {
    /// The decision closure.
    public let decide: @Sendable (LoadedPage, @escaping @Sendable (BuyerAction) -> Void) -> Void

    /// Creates a script from an asynchronous decision closure.
    public init(_ decide: @escaping @Sendable (LoadedPage, @escaping @Sendable (BuyerAction) -> Void) -> Void) {
        self.decide = decide
    }

    /// Answers `action` on every page.
    public static func always(_ action: BuyerAction) -> BuyerScript {
        BuyerScript { _, respond in respond(action) }
    }

    /// Answers the actions in order, one per page asked, then `.wait`. The
    /// position is shared by every use of this value (one script, one buyer).
    public static func sequence(_ actions: [BuyerAction]) -> BuyerScript {
        let box = SequenceBox()
        return BuyerScript { _, respond in
            let action = box.next(actions)
            respond(action)
        }
    }

    /// Closes the window on the first page it is asked about.
    public static let closeAtFirstPage = BuyerScript.always(.close)

    /// Acts by page kind: `.hosted(hosted)` on the hosted checkout,
    /// `.challenge(code:)` on a challenge page, `.wait` elsewhere.
    public static func answering(hosted: HostedChoice = .pay, challengeCode: String = "1234") -> BuyerScript {
        BuyerScript { page, respond in
            if page.kind == .hostedCheckout {
                respond(.hosted(hosted))
            } else if page.kind == .challenge {
                respond(.challenge(code: challengeCode))
            } else {
                respond(.wait)
            }
        }
    }
}

/// The shared cursor of `BuyerScript.sequence`.
private final class SequenceBox: Sendable {
    private let position = Mutex(0)

    func next(_ actions: [BuyerAction]) -> BuyerAction {
        position.withLock { index in
            guard index < actions.count else { return .wait }
            defer { index += 1 }
            return actions[index]
        }
    }
}
