@_exported import BuyerVocabulary
import Foundation
import Synchronization

/// What the scripted buyer does on a loaded page.
///
/// Its `description` never shows a typed code or a submitted value (`••••`).
public enum BuyerAction: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Presses the hosted page's button for this choice (see ``HostedChoice``).
    case hosted(HostedChoice)
    /// Types `code` into the challenge form's code field and submits it.
    ///
    /// The field is a visible text, password, number or tel input (whatever
    /// its name: `code`, `otp`, `password`...); when there are several, the
    /// first whose type, name, id, label, placeholder or autocomplete mentions
    /// a code (`code`, `otp`, `password`, `pin`...), else the only one of its
    /// form, else the first. Every other field keeps its value (hidden ones
    /// included). The form goes out through its first submit button that does
    /// not back out (not cancel, decline, back, resend...), or with no
    /// button when it has none. The code never appears in an event or a
    /// description.
    case challenge(code: String)
    /// Presses the submit button labelled `label` on any page (compared
    /// case-insensitively, whitespace collapsed, without punctuation at either
    /// end; a button whose value reads `label` when no label does), with the
    /// form's other fields as they are. See ``LoadedPage/buttonLabels``.
    case press(label: String)
    /// Closes the window: the handler hears `pageWasClosedByBuyer()` and the
    /// page takes no further action until dismissed.
    case close
    /// Submits form number `formIndex` (document order) with `fields`
    /// overriding or adding values, pressing its first submit button unless
    /// `fields` sets that button's name.
    case submit(formIndex: Int, fields: [String: String])
    /// Does nothing: the buyer looks at the page (the SDK may still cancel).
    case wait

    /// The action in words, secrets masked: `challenge(code: ••••)`,
    /// `submit(formIndex: 0, fields: [otp: ••••])`.
    public var description: String {
        switch self {
        case .hosted(let choice): "hosted(\(choice.rawValue))"
        case .challenge: "challenge(code: ••••)"
        case .press(let label): "press(label: \"\(label)\")"
        case .close: "close"
        case .submit(let formIndex, let fields):
            "submit(formIndex: \(formIndex), fields: [\(fields.keys.sorted().map { "\($0): ••••" }.joined(separator: ", "))])"
        case .wait: "wait"
        }
    }

    /// The same as ``description``: a typed code is never printed, not even
    /// when the action is nested in an event that is printed.
    public var debugDescription: String { description }

    /// The action with a typed code replaced by `••••`, as events carry it.
    var redacted: BuyerAction {
        if case .challenge = self {
            return .challenge(code: "••••")
        }
        return self
    }
}

/// How the scripted buyer decides, one page at a time.
///
/// The decision is asynchronous so a REPL can ask a person: the closure gets
/// the page and a `respond` callback to call once (later calls are ignored;
/// an answer that arrives after the page changed or was dismissed is
/// dropped). It is called on a background queue, never while the browser
/// holds a lock.
///
/// Which pages the script is asked about: every page the browser loaded, but
/// - a page it submits by itself (``LoadedPage/autoSubmitFormIndex``: an
///   issuer's hand-back, a form of hidden inputs), and
/// - the notification page: the page marked `3ds-notification`, or any page
///   reached by submitting a 3-D Secure result (`cres`, `PaRes`). That is
///   where the issuer sends the buyer at the end of a challenge; the SDK ends
///   the challenge there and dismisses the page, so a script never closes it.
///
/// So a script that closes every page it does not understand cannot cut a
/// finished challenge short: the ready-made scripts close such pages.
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

    /// Answers the actions in order, one per page asked, then `.close`: a
    /// scripted buyer with nothing left to do closes the window at once
    /// rather than leave it open until a deadline. The position is shared by
    /// every use of this value (one script, one buyer); thread-safe.
    public static func sequence(_ actions: [BuyerAction]) -> BuyerScript {
        let box = SequenceBox()
        return BuyerScript { _, respond in
            let action = box.next(actions)
            respond(action)
        }
    }

    /// Closes the window on the first page it is asked about.
    public static let closeAtFirstPage = BuyerScript.always(.close)

    /// Acts by page kind: `.hosted(hosted)` on a hosted checkout page,
    /// `.challenge(code:)` on a challenge page, `.close` on any other page the
    /// browser asks about (a page that needs JavaScript, an error the gateway
    /// served with status 200, an unknown page): nothing there for this buyer
    /// to do. The notification page is never asked about (see above); were a
    /// custom presenter to ask, the answer is `.wait`.
    public static func answering(hosted: HostedChoice = .pay, challengeCode: String = "1234") -> BuyerScript {
        BuyerScript { page, respond in
            switch page.kind {
            case .hostedCheckout: respond(.hosted(hosted))
            case .challenge: respond(.challenge(code: challengeCode))
            case .notification: respond(.wait)
            default: respond(.close)
            }
        }
    }
}

/// The shared cursor of `BuyerScript.sequence`.
private final class SequenceBox: Sendable {
    private let position = Mutex(0)

    func next(_ actions: [BuyerAction]) -> BuyerAction {
        position.withLock { index in
            guard index < actions.count else { return .close }
            defer { index += 1 }
            return actions[index]
        }
    }
}
