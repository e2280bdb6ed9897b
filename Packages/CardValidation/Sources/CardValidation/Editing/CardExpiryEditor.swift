/// The expiry field without a UI: formats `MM/YY` as typed and exposes
/// ``month`` and ``year`` for ``CardInput``.
///
/// - Up to four digits, displayed `M`, `MM/`, `MM/Y`, `MM/YY` (the slash
///   appears as soon as the month is complete).
/// - A first digit above 1 becomes `0N`: typing `4` shows `04/`.
/// - A typed or pasted digit that would make the month `00` or above `12` is
///   rejected (outcome `.rejected`); further digits past four are dropped
///   (`.truncated`).
/// - Pasting `"1/30"`, `"12/30"`, `"12 / 2030"` or `"1230"` gives `12/30` or
///   `01/30` as expected: a one-digit month before a separator is padded and
///   a four-digit year keeps its last two digits.
/// - Accepted in typed or pasted text: digits, `/`, `.`, spaces and dashes;
///   anything else is rejected whole.
/// - Backspace over the slash deletes the month's last digit.
///
/// A value type with pure edits; safe to use from any thread.
public struct CardExpiryEditor: CardTextEditor, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The digits entered (`MMYY` as far as typed), at most four.
    public private(set) var digits: String
    /// What the field displays, e.g. `"12/3"`.
    public private(set) var text: String
    /// The caret position in ``text``.
    public private(set) var caret: Int

    /// The month, two digits, for ``CardInput/expiryMonth``: `""` until two
    /// digits have been entered.
    public var month: String { digits.utf8.count >= 2 ? String(digits.prefix(2)) : "" }

    /// The year as typed, for ``CardInput/expiryYear``: `""` until more than
    /// two digits have been entered, then the digits after the month (one
    /// digit while the second is still to come).
    public var year: String { digits.utf8.count > 2 ? String(digits.dropFirst(2)) : "" }

    /// An empty field.
    public init() {
        digits = ""
        text = ""
        caret = 0
    }

    /// A field adopting a UI's current `text`: its first four ASCII digits,
    /// with the caret after the same digit as `caret` in `text` (default: at
    /// the end). No padding or month check is applied.
    public init(text: String, caret: Int? = nil) {
        let characters = Array(text)
        let kept = String(CardNumberScanner.digitsOnly(text).prefix(4))
        let caretDigits = caret.map { EditSupport.digitCount(characters[0..<min(max($0, 0), characters.count)]) }
        self.init()
        set(digits: kept, caretDigits: min(caretDigits ?? kept.count, kept.count))
    }

    /// See ``CardTextEditor/replace(_:with:)``.
    @discardableResult
    public mutating func replace(_ range: Range<Int>, with replacement: String) -> EditOutcome {
        guard let result = Self.apply(source: Array(text), range: range, replacement: replacement) else {
            return .rejected
        }
        set(digits: result.digits, caretDigits: result.caretDigits)
        return result.outcome
    }

    /// See ``CardTextEditor/moveCaret(to:)``.
    public mutating func moveCaret(to offset: Int) {
        caret = min(max(offset, 0), text.count)
    }

    /// The pure form of an edit: the field a UI's `text` becomes when
    /// `selection` (offsets in `text`) is replaced by `replacement`, and what
    /// happened.
    public static func edit(
        text: String, selection: Range<Int>, replacement: String
    ) -> (editor: CardExpiryEditor, outcome: EditOutcome) {
        guard let result = apply(source: Array(text), range: selection, replacement: replacement) else {
            return (CardExpiryEditor(text: text, caret: selection.lowerBound), .rejected)
        }
        var editor = CardExpiryEditor()
        editor.set(digits: result.digits, caretDigits: result.caretDigits)
        return (editor, result.outcome)
    }

    private static let zero = UInt8(ascii: "0")

    private static func apply(
        source: [Character], range: Range<Int>, replacement: String
    ) -> (digits: String, caretDigits: Int, outcome: EditOutcome)? {
        // Digit runs of the replacement, split at separators.
        var runs: [[UInt8]] = [[]]
        for scalar in EditSupport.trimmed(replacement).unicodeScalars {
            if let digit = CardNumberScanner.asciiDigit(scalar) {
                runs[runs.count - 1].append(zero + UInt8(digit))
            } else if scalar == "/" || scalar == "." || CardNumberScanner.isSeparator(scalar) {
                if !(runs.last ?? []).isEmpty { runs.append([]) }
            } else {
                return nil
            }
        }
        runs.removeAll { $0.isEmpty }

        let range = EditSupport.clamp(range, count: source.count)
        let span = EditSupport.digitSpan(of: range, in: source, deleting: runs.isEmpty)
        let old = source.compactMap { EditSupport.isDigit($0) ? $0.asciiValue : nil }
        let head = Array(old[0..<min(span.start, old.count)])
        let tail = Array(old[min(span.end, old.count)...])

        var inserted: [UInt8]
        if span.start == 0, runs.count == 2, runs[0].count <= 2 {
            // "1/30", "12/2030": month then year.
            let month = runs[0].count == 1 ? [zero] + runs[0] : runs[0]
            let year = runs[1].count == 4 ? Array(runs[1].suffix(2)) : runs[1]
            inserted = month + year
        } else {
            inserted = runs.flatMap { $0 }
        }
        if span.start == 0, let first = inserted.first, first > zero + 1 {
            inserted.insert(zero, at: 0)  // "4" means April: "04"
        }

        let room = max(0, 4 - head.count - tail.count)
        let kept = min(inserted.count, room)
        var candidate = head + inserted.prefix(kept) + tail
        var outcome: EditOutcome = kept < inserted.count ? .truncated : .applied
        if candidate.count > 4 {
            candidate.removeLast(candidate.count - 4)
            outcome = .truncated
        }
        if !inserted.isEmpty, candidate.count >= 2 {
            let month = Int(candidate[0] - zero) * 10 + Int(candidate[1] - zero)
            guard (1...12).contains(month) else { return nil }
        }
        return (String(decoding: candidate, as: UTF8.self), min(head.count + kept, candidate.count), outcome)
    }

    private mutating func set(digits newDigits: String, caretDigits: Int) {
        digits = newDigits
        switch newDigits.utf8.count {
        case 0, 1: text = newDigits
        default: text = "\(newDigits.prefix(2))/\(newDigits.dropFirst(2))"
        }
        caret = EditSupport.caretOffset(in: text, afterDigits: caretDigits)
    }

    /// `CardExpiryEditor(text: "12/3", caret: 4)`. An expiry date alone is not
    /// secret, so it is shown.
    public var description: String {
        "CardExpiryEditor(text: \"\(text)\", caret: \(caret))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }
}
