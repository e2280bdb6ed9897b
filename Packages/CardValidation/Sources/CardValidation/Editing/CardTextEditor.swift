/// What happened to one edit of a card text field.
public enum EditOutcome: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// The edit was applied in full (this includes edits that change nothing,
    /// such as a backspace at the start of the field).
    case applied
    /// The edit was applied, but some of the inserted digits were dropped
    /// because the field reached its maximum length.
    case truncated
    /// The replacement held characters the field does not accept (letters,
    /// for example); nothing changed. A UI may beep.
    case rejected

    /// `"applied"`, `"truncated"` or `"rejected"`.
    public var description: String {
        switch self {
        case .applied: "applied"
        case .truncated: "truncated"
        case .rejected: "rejected"
        }
    }
}

/// The behaviour the three card text fields share: a displayed ``text``, a
/// caret, and edits expressed the way every UI toolkit reports them — "replace
/// this range of the text with this string".
///
/// Offsets and ranges count `Character`s of ``text``. Every character these
/// editors display (digits, space, `/`, `•`) is a single UTF-16 unit, so the
/// offsets are also the `NSRange`/UTF-16 offsets a UIKit-style toolkit uses.
///
/// Editors are values: an edit is a pure function of (text, selection,
/// replacement), with no I/O and no shared state, so any UI can drive them
/// and tests can replay keystrokes exactly.
public protocol CardTextEditor: Sendable {
    /// The field's value as the buyer typed it, with the field's own formatting (digit groups, `/`):
    /// what an app reads to fill ``CardInput``. Never masked; masking is ``displayText``'s business.
    var text: String { get }
    /// What the field shows on screen: ``text`` itself, or a mask of it for a field whose display is
    /// masked (the security code shows one `•` per digit). Same length and offsets as ``text``.
    var displayText: String { get }
    /// The caret position in ``text`` (0 = before the first character).
    var caret: Int { get }
    /// Replaces `range` of ``text`` with `replacement` (typed or pasted) and
    /// places the caret after the inserted digits (after a deletion, where the
    /// deleted digits were), just before the next digit. An empty `replacement`
    /// deletes; a range covering only a group separator deletes the digit
    /// before it (backspace over a space). Out-of-bounds ranges are clamped.
    mutating func replace(_ range: Range<Int>, with replacement: String) -> EditOutcome
    /// Backspace at the caret.
    mutating func deleteBackward() -> EditOutcome
    /// Forward delete at the caret (deletes the next digit, skipping separators).
    mutating func deleteForward() -> EditOutcome
    /// Moves the caret, clamped to `0...text.count`.
    mutating func moveCaret(to offset: Int)
}

extension CardTextEditor {
    /// ``text`` itself: the number and expiry fields show what was typed.
    public var displayText: String { text }

    /// Types or pastes `string` at the caret.
    @discardableResult
    public mutating func insert(_ string: String) -> EditOutcome {
        replace(caret..<caret, with: string)
    }

    /// Backspace at the caret: replaces the character before it with
    /// nothing (over a group separator, ``replace(_:with:)`` deletes the
    /// digit before it). At the start of the field nothing changes and the
    /// outcome is `.applied`.
    @discardableResult
    public mutating func deleteBackward() -> EditOutcome {
        guard caret > 0 else { return .applied }
        return replace(caret - 1..<caret, with: "")
    }

    /// Forward delete at the caret: deletes the first ASCII digit of ``text``
    /// at or after the caret, skipping separators. With no digit after the
    /// caret nothing changes and the outcome is `.applied`. An editor whose
    /// ``text`` does not show its digits (the masked security code) provides
    /// its own.
    @discardableResult
    public mutating func deleteForward() -> EditOutcome {
        let characters = Array(text)
        guard let next = characters[caret...].firstIndex(where: EditSupport.isDigit) else { return .applied }
        return replace(next..<next + 1, with: "")
    }
}

/// Helpers shared by the editors.
enum EditSupport {
    static func clamp(_ range: Range<Int>, count: Int) -> Range<Int> {
        let lower = min(max(range.lowerBound, 0), count)
        let upper = min(max(range.upperBound, lower), count)
        return lower..<upper
    }

    static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isWholeNumber
    }

    static func digitCount(_ characters: some Sequence<Character>) -> Int {
        characters.reduce(0) { $0 + (isDigit($1) ? 1 : 0) }
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    static func digitCount(_ bytes: some Sequence<UInt8>) -> Int {
        bytes.reduce(0) { $0 + (isDigit($1) ? 1 : 0) }
    }

    /// Runs `body` on `count` bytes of scratch (on the stack when small) and wipes them before
    /// returning, so the digits an edit works on leave no copy behind.
    static func withWipedScratch<R>(_ count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(count, 1)) { scratch in
            defer { SensitiveMemory.wipe(scratch.baseAddress!, scratch.count) }
            return body(UnsafeMutableBufferPointer(rebasing: scratch[..<count]))
        }
    }

    /// `text` without leading and trailing whitespace and newlines (pasted
    /// text often ends with a line break).
    static func trimmed(_ text: String) -> Substring {
        let characters = Substring(text)
        guard let first = characters.firstIndex(where: { !$0.isWhitespace }),
            let last = characters.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return characters[first...last]
    }

    /// The caret offset in `text` after its first `digitIndex` digits: just
    /// before the next digit (past any group separator: `"4242 |4242"`), or
    /// at the end of the text when no digit follows (`"12/|"`).
    static func caretOffset(in text: String, afterDigits digitIndex: Int) -> Int {
        var seen = 0
        var offset = 0
        for character in text {
            if isDigit(character) {
                if seen == digitIndex { return offset }
                seen += 1
            }
            offset += 1
        }
        return offset
    }

    /// The digit range an edit of `range` in `characters` touches: the digits
    /// before the range start, and the digits inside it. A non-empty range
    /// holding no digit, deleted with nothing inserted, reaches back to the
    /// digit before it.
    static func digitSpan(
        of range: Range<Int>, in characters: [Character], deleting: Bool
    ) -> (start: Int, end: Int) {
        span(
            before: digitCount(characters[0..<range.lowerBound]), inside: digitCount(characters[range]),
            range: range, deleting: deleting)
    }

    /// ``digitSpan(of:in:deleting:)`` over one byte per character (an ASCII digit, or anything else).
    static func digitSpan(
        of range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>, deleting: Bool
    ) -> (start: Int, end: Int) {
        span(
            before: digitCount(bytes[0..<range.lowerBound]), inside: digitCount(bytes[range]),
            range: range, deleting: deleting)
    }

    private static func span(before: Int, inside: Int, range: Range<Int>, deleting: Bool) -> (start: Int, end: Int) {
        if deleting, inside == 0, !range.isEmpty, before > 0 {
            return (before - 1, before)
        }
        return (before, before + inside)
    }
}
