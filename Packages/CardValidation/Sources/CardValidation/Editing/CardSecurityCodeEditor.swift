/// The security-code field without a UI: digits only, masked on display,
/// limited by ``brand``.
///
/// - ``text`` shows one `•` per digit; the digits themselves are in
///   ``digits``. Offsets in ``text`` and in ``digits`` are the same.
/// - At most ``CardBrand/securityCodeLength`` digits: 4 for Amex and
///   `.unknown`, 3 for the other brands. Set ``brand`` from the number
///   field's brand; digits past a new, lower limit are dropped.
/// - Typed or pasted text may hold digits and surrounding whitespace;
///   anything else is rejected whole.
///
/// A value type with pure edits; safe to use from any thread. Its
/// descriptions never show the code.
public struct CardSecurityCodeEditor: CardTextEditor, Equatable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// The code entered.
    public private(set) var digits: String
    /// The caret position in ``text``.
    public private(set) var caret: Int

    /// The card's brand, which sets the length limit. Lowering the limit
    /// drops digits past it.
    public var brand: CardBrand {
        didSet {
            if digits.utf8.count > maximumLength { digits = String(digits.prefix(maximumLength)) }
            caret = min(caret, digits.utf8.count)
        }
    }

    /// An empty field (or one holding `digits`, filtered to ASCII digits and
    /// cut to the brand's limit), caret at the end.
    public init(brand: CardBrand = .unknown, digits: String = "") {
        self.brand = brand
        let kept = String(CardNumberScanner.digitsOnly(digits).prefix(brand.securityCodeLength))
        self.digits = kept
        self.caret = kept.utf8.count
    }

    /// What the field displays: one `•` per digit.
    public var text: String { String(repeating: "•", count: digits.utf8.count) }

    /// The most digits the field accepts for ``brand``.
    public var maximumLength: Int { brand.securityCodeLength }

    /// The field's live state under the brand-agnostic rule (3 or 4 digits).
    public var state: FieldState { FieldRules.securityCode(digits)?.state ?? .valid }

    /// See ``CardTextEditor/replace(_:with:)``.
    @discardableResult
    public mutating func replace(_ range: Range<Int>, with replacement: String) -> EditOutcome {
        guard let result = Self.apply(digits: digits, range: range, replacement: replacement, brand: brand) else {
            return .rejected
        }
        digits = result.digits
        caret = result.caret
        return result.outcome
    }

    /// See ``CardTextEditor/deleteForward()``: deletes the digit after the
    /// caret (``text`` shows `•`, not digits, so the shared default, which
    /// looks for digits in ``text``, does not apply).
    @discardableResult
    public mutating func deleteForward() -> EditOutcome {
        guard caret < digits.utf8.count else { return .applied }
        return replace(caret..<caret + 1, with: "")
    }

    /// See ``CardTextEditor/moveCaret(to:)``.
    public mutating func moveCaret(to offset: Int) {
        caret = min(max(offset, 0), digits.utf8.count)
    }

    /// The pure form of an edit: the field holding `digits` after `selection`
    /// is replaced by `replacement` under `brand`'s limit, and what happened.
    public static func edit(
        digits: String, selection: Range<Int>, replacement: String, brand: CardBrand = .unknown
    ) -> (editor: CardSecurityCodeEditor, outcome: EditOutcome) {
        var editor = CardSecurityCodeEditor(brand: brand, digits: digits)
        editor.moveCaret(to: selection.lowerBound)
        let outcome = editor.replace(selection, with: replacement)
        return (editor, outcome)
    }

    private static func apply(
        digits: String, range: Range<Int>, replacement: String, brand: CardBrand
    ) -> (digits: String, caret: Int, outcome: EditOutcome)? {
        var inserted: [UInt8] = []
        for scalar in EditSupport.trimmed(replacement).unicodeScalars {
            guard let digit = CardNumberScanner.asciiDigit(scalar) else { return nil }
            inserted.append(UInt8(ascii: "0") + UInt8(digit))
        }
        let old = Array(digits.utf8)
        let range = EditSupport.clamp(range, count: old.count)
        let head = old[0..<range.lowerBound]
        let tail = old[range.upperBound...]
        let room = max(0, brand.securityCodeLength - head.count - tail.count)
        let kept = min(inserted.count, room)
        var candidate = Array(head) + inserted.prefix(kept) + tail
        var outcome: EditOutcome = kept < inserted.count ? .truncated : .applied
        if candidate.count > brand.securityCodeLength {
            candidate.removeLast(candidate.count - brand.securityCodeLength)
            outcome = .truncated
        }
        return (String(decoding: candidate, as: UTF8.self), min(head.count + kept, candidate.count), outcome)
    }

    /// `CardSecurityCodeEditor(brand: amex, digits: 4, caret: 4)`: the
    /// count, never the code.
    public var description: String {
        "CardSecurityCodeEditor(brand: \(brand), digits: \(digits.utf8.count), caret: \(caret))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// No digits in the mirror, so `dump(editor)` shows no code.
    public var customMirror: Mirror {
        Mirror(self, children: ["brand": brand, "length": digits.utf8.count, "caret": caret])
    }
}
