import Foundation

/// Something a presented page tried that would have reached past its window, and that the presenter
/// did not let it do as asked (``PageEventHandler/page(didRefuse:)``).
///
/// A report never carries page text: a dialog's message is page-controlled (a page may ask "re-enter
/// your card number"), so only its kind and length are reported. URLs are the page's own; the SDK
/// records them without their query and fragment.
public enum PageRefusal: Sendable, Equatable, CustomStringConvertible {
    /// The page started a download (a link with `download`, an attachment) of `url`; it was cancelled
    /// before a file was written.
    case download(URL)
    /// The page opened a JavaScript dialog; the presenter answered it without showing it (see
    /// ``PageDialog`` for each answer). `messageLength`: the characters of its message.
    case dialog(PageDialog, messageLength: Int)
    /// The page asked for a new window (`window.open`, a `target=_blank` link) showing `url`; no
    /// window opened: the URL loads in the same view, through the same navigation question as any load.
    case newWindow(URL)

    /// The same report without URL queries and fragments (what the SDK records).
    public var withoutQueries: PageRefusal {
        switch self {
        case .download(let url): .download(Self.cut(url))
        case .dialog: self
        case .newWindow(let url): .newWindow(Self.cut(url))
        }
    }

    /// A short line, e.g. `prompt answered null (message of 26 characters)`; no page text.
    public var description: String {
        switch self {
        case .download(let url): "download of \(url.absoluteString) refused"
        case .dialog(let dialog, let length): "\(dialog) answered \(dialog.answer) (message of \(length) characters)"
        case .newWindow(let url): "new window for \(url.absoluteString) kept in the same view"
        }
    }

    private static func cut(_ url: URL) -> URL {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        parts.query = nil
        parts.fragment = nil
        return parts.url ?? url
    }
}

/// A JavaScript dialog a page opened, and the presenter's fixed answer to it: no dialog is ever shown to
/// the buyer, so a page cannot ask for anything in a window the SDK did not design.
public enum PageDialog: Sendable, Equatable, CustomStringConvertible {
    /// `alert()`: dismissed.
    case alert
    /// `confirm()`: answered `false`.
    case confirm
    /// `prompt()`: answered `null` (as if the buyer pressed Cancel).
    case prompt
    /// A `beforeunload` question: answered "leave" (a page cannot hold the buyer on it).
    case beforeUnload

    /// What the presenter answered: `dismissed`, `false`, `null`, `leave`.
    public var answer: String {
        switch self {
        case .alert: "dismissed"
        case .confirm: "false"
        case .prompt: "null"
        case .beforeUnload: "leave"
        }
    }

    /// `alert`, `confirm`, `prompt`, `beforeunload`.
    public var description: String {
        switch self {
        case .alert: "alert"
        case .confirm: "confirm"
        case .prompt: "prompt"
        case .beforeUnload: "beforeunload"
        }
    }
}
