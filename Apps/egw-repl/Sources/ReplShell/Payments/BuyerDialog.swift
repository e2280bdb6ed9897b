import HeadlessBrowser
import PaymentFlow
import ReplCore

/// One scripted buyer action (`buyer ...`).
enum BuyerStep: Equatable, CustomStringConvertible {
    case hosted(HostedChoice)
    case challenge(code: String)
    case close

    var description: String {
        switch self {
        case .hosted(let choice): "hosted \(choice.rawValue)"
        case .challenge: "challenge ••••"
        case .close: "close"
        }
    }
}

/// What the buyer does on each page the SDK opens: the queued `buyer ...` actions,
/// the question the shell asks on a terminal, and the bare answers it accepts.
///
/// A value with no I/O: the shell asks it what to do and performs the answer.
struct BuyerDialog {
    /// What to do with a page that waits for the buyer.
    enum Decision: Equatable {
        /// Answer at once: the page ends the challenge by itself (`scripted: nil`), or a queued action fits.
        case respond(BuyerAction, scripted: Bool?)
        /// Ask the person at the terminal this question and wait for a line.
        case ask(question: String)
        /// Nobody can answer (a script with nothing queued, or the payment is being cancelled): close the page.
        case closeUnanswered
    }

    /// The queued actions, oldest first; each page takes the first one that fits it.
    private(set) var queued: [BuyerStep] = []
    /// Shown in the challenge question: where the code comes from.
    var challengeHint = "from the issuer"

    mutating func queue(_ step: BuyerStep) {
        queued.append(step)
    }

    mutating func clear() {
        queued.removeAll()
    }

    /// What to do with `page`; `canAsk` when a person can answer on a terminal.
    mutating func decide(on page: LoadedPage, canAsk: Bool) -> Decision {
        if page.kind == .notification {
            return .respond(.wait, scripted: nil)  // the issuer is sending the buyer back: the SDK ends it
        }
        if let action = takeQueued(for: page) {
            return .respond(action, scripted: true)
        }
        guard canAsk else {
            return .closeUnanswered
        }
        return .ask(question: question(for: page))
    }

    /// The bare answer a line typed at the buyer question means (`pay`, `close`, `1234`), if any.
    static func answer(_ line: String, on page: LoadedPage) -> BuyerAction? {
        let word = line.trimmingCharacters(in: .whitespaces).lowercased()
        if word == "close" {
            return .close
        }
        if page.kind == .hostedCheckout, let choice = HostedChoice(rawValue: word) {
            return .hosted(choice)
        }
        let shellWords: Set = ["step", "continue", "cancel", "help"]
        if page.kind == .challenge, !word.isEmpty, word.count <= 12, !shellWords.contains(word),
            word.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        {
            return .challenge(code: line.trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The first queued action that fits `page`, removed from the queue.
    mutating func takeQueued(for page: LoadedPage) -> BuyerAction? {
        let index = queued.firstIndex { step in
            switch step {
            case .close: true
            case .hosted: page.kind == .hostedCheckout
            case .challenge: page.kind == .challenge
            }
        }
        guard let index else {
            return nil
        }
        switch queued.remove(at: index) {
        case .close: return .close
        case .hosted(let choice): return .hosted(choice)
        case .challenge(let code): return .challenge(code: code)
        }
    }

    /// The question for `page`.
    func question(for page: LoadedPage) -> String {
        if page.kind == .hostedCheckout {
            return "? The hosted checkout page is open. What does the buyer do: pay, decline, cancel, abandon, "
                + "pending or close?"
        }
        if page.kind == .challenge {
            return "? The issuer's 3-D Secure challenge page is open. Type the code the buyer enters "
                + "(\(challengeHint)), or close."
        }
        let why = page.needsJavaScript ? LoadedPage.javaScriptNotice : "the page has nothing the buyer can do"
        return "? A page the buyer cannot use is open (\(why)). Type close."
    }

    /// An action in words, secrets masked.
    static func describe(_ action: BuyerAction) -> String {
        switch action {
        case .hosted(let choice): "hosted \(choice.rawValue)"
        case .challenge: "challenge code ••••"
        case .close: "close the page"
        case .submit(let index, _): "submit form \(index)"
        case .press(let label): "press \(label)"
        case .wait: "wait"
        }
    }
}
