/// The card-number field without a UI: groups digits as typed, limits the
/// length by brand, and keeps the caret where the buyer expects it.
///
/// - Grouping follows ``brand``: 4-4-4-4 (a fifth group up to 19 digits),
///   Amex 4-6-5; one space between groups, never a trailing space.
/// - At most ``CardBrand/maximumNumberLength`` digits: Amex 15, Mastercard 16,
///   other brands and `.unknown` 19. Past it, digits are dropped from the end
///   of the number (outcome `.truncated`): typing at the end of a full field
///   changes nothing; turning a Visa into an Amex by editing its first digits
///   cuts the number to 15.
/// - Typed or pasted text may hold digits, the separators of
///   ``CardNumberGrammar`` (Unicode spaces and dashes, tab, U+2212) and
///   surrounding whitespace; anything else (letters, `"/"`, ...) is
///   rejected whole and nothing changes.
/// - Backspace over a group space deletes the digit before it.
/// - The caret lands after the last inserted digit (after a deletion, where
///   the deleted digits were), just before the next digit: `"4242 |4242"`.
///
/// ```swift
/// var field = CardNumberEditor()
/// field.insert("42424242")        // text "4242 4242", caret 9
/// field.moveCaret(to: 4)
/// field.deleteBackward()          // text "4244 242", caret 3 ("424|4 242")
/// ```
///
/// A value type with pure edits; safe to use from any thread. Its
/// descriptions show the number masked (last four digits at most).
public struct CardNumberEditor: CardTextEditor, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The digits entered, without formatting.
    public private(set) var digits: String
    /// The grouped digits the field displays.
    public private(set) var text: String
    /// The caret position in ``text``.
    public private(set) var caret: Int

    /// An empty field.
    public init() {
        digits = ""
        text = ""
        caret = 0
    }

    /// A field adopting a UI's current `text` (every character other than an
    /// ASCII digit is dropped; digits past the brand's maximum are dropped),
    /// with the caret after the same digit as `caret` in `text` (default: at
    /// the end).
    public init(text: String, caret: Int? = nil) {
        let characters = Array(text)
        var kept = CardNumberScanner.digitsOnly(text)
        kept = String(kept.prefix(CardBrand.detect(kept).maximumNumberLength))
        let caretDigits = caret.map { EditSupport.digitCount(characters[0..<min(max($0, 0), characters.count)]) }
        self.init()
        set(digits: kept, caretDigits: min(caretDigits ?? kept.count, kept.count))
    }

    /// The brand of ``digits`` (see ``CardBrand/detect(_:)``).
    public var brand: CardBrand { CardBrand.detect(digits) }

    /// The most digits this field accepts for its current brand.
    public var maximumLength: Int { brand.maximumNumberLength }

    /// The field's live state under the brand-agnostic number rules.
    public var state: FieldState { FieldRules.number(digits)?.state ?? .valid }

    /// See ``CardTextEditor/replace(_:with:)``.
    @discardableResult
    public mutating func replace(_ range: Range<Int>, with replacement: String) -> EditOutcome {
        guard let result = Self.apply(source: Array(text), range: range, replacement: replacement) else {
            return .rejected
        }
        set(digits: result.digits, caretDigits: result.caretDigits)
        return result.outcome
    }

    /// The edit on any source text: its digits, with `range` (offsets in
    /// `source`) replaced. `nil` when the replacement is rejected.
    private static func apply(
        source: [Character], range: Range<Int>, replacement: String
    ) -> (digits: String, caretDigits: Int, outcome: EditOutcome)? {
        var inserted: [UInt8] = []
        for scalar in EditSupport.trimmed(replacement).unicodeScalars {
            if let digit = CardNumberScanner.asciiDigit(scalar) {
                inserted.append(UInt8(ascii: "0") + UInt8(digit))
            } else if !CardNumberScanner.isSeparator(scalar) {
                return nil
            }
        }
        let range = EditSupport.clamp(range, count: source.count)
        let span = EditSupport.digitSpan(of: range, in: source, deleting: inserted.isEmpty)
        let old = source.compactMap { EditSupport.isDigit($0) ? $0.asciiValue : nil }
        let head = old[0..<span.start]
        let tail = old[span.end...]

        // Past the brand's maximum, digits are dropped from the end (the brand
        // is read from the first four digits, which a cut at 15 or more
        // digits never changes).
        var candidate = Array(head) + inserted + tail
        var outcome = EditOutcome.applied
        let longest = CardBrand.detect(String(decoding: candidate, as: UTF8.self)).maximumNumberLength
        if candidate.count > longest {
            candidate.removeLast(candidate.count - longest)
            outcome = .truncated
        }
        let digits = String(decoding: candidate, as: UTF8.self)
        return (digits, min(span.start + inserted.count, candidate.count), outcome)
    }

    /// See ``CardTextEditor/moveCaret(to:)``.
    public mutating func moveCaret(to offset: Int) {
        caret = min(max(offset, 0), text.count)
    }

    /// The pure form of an edit: the field a UI's `text` becomes when
    /// `selection` (offsets in `text`) is replaced by `replacement`, and what
    /// happened. On `.rejected` the field holds `text` as adopted by
    /// ``init(text:caret:)`` with the caret at `selection`'s start.
    public static func edit(
        text: String, selection: Range<Int>, replacement: String
    ) -> (editor: CardNumberEditor, outcome: EditOutcome) {
        guard let result = apply(source: Array(text), range: selection, replacement: replacement) else {
            return (CardNumberEditor(text: text, caret: selection.lowerBound), .rejected)
        }
        var editor = CardNumberEditor()
        editor.set(digits: result.digits, caretDigits: result.caretDigits)
        return (editor, result.outcome)
    }

    private mutating func set(digits newDigits: String, caretDigits: Int) {
        digits = newDigits
        text = CardNumberScanner.group(newDigits, by: CardBrand.detect(newDigits).numberGrouping)
        caret = EditSupport.caretOffset(in: text, afterDigits: caretDigits)
    }

    /// `CardNumberEditor(brand: visa, number: •••• 4242, caret: 19)`; never
    /// the full number.
    public var description: String {
        "CardNumberEditor(brand: \(brand), number: \(CardNumber.masked(digits)), caret: \(caret))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Masked children only, so `dump(editor)` shows no card data.
    public var customMirror: Mirror {
        Mirror(self, children: ["brand": brand, "number": CardNumber.masked(digits), "caret": caret])
    }
}
