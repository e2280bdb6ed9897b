/// The security-code field without a UI: digits only, masked on display,
/// limited by ``brand``.
///
/// - ``text`` and ``digits`` are the code typed (the value an app reads, for
///   `card.securityCode = field.text`); ``displayText`` is what a UI shows,
///   one `•` per digit. Offsets in all three are the same.
/// - At most ``CardBrand/securityCodeLength`` digits: 4 for Amex and
///   `.unknown`, 3 for the other brands. Set ``brand`` from the number
///   field's brand; digits past a new, lower limit are dropped.
/// - Typed or pasted text may hold digits and surrounding whitespace;
///   anything else is rejected whole.
///
/// A value type with pure edits; safe to use from any thread. Its
/// descriptions never show the code.
///
/// The digits are kept as ``CardNumberEditor`` keeps the number's: out of
/// core dumps, locked against swap where allowed, wiped when replaced.
/// ``digits`` is a `String` copy your app owns; hand the code to
/// ``CardInput`` with ``CardInput/setSecurityCode(from:)``.
public struct CardSecurityCodeEditor: CardTextEditor, Equatable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// The digits (ASCII), in protected memory; shared by ``CardInput/setSecurityCode(from:)``.
    private(set) var storage: SensitiveBytes
    /// The code entered (a copy, see above).
    public var digits: String { storage.string }
    /// The caret position in ``text``.
    public private(set) var caret: Int

    /// The card's brand, which sets the length limit. Lowering the limit
    /// drops digits past it.
    public var brand: CardBrand {
        didSet {
            if storage.count > maximumLength {
                storage = storage.withUnsafeBytes { SensitiveBytes(copying: $0.prefix(maximumLength)) }
            }
            caret = min(caret, storage.count)
        }
    }

    /// An empty field (or one holding `digits`, filtered to ASCII digits and
    /// cut to the brand's limit), caret at the end.
    public init(brand: CardBrand = .unknown, digits: String = "") {
        self.brand = brand
        let kept = SensitiveBytes(capacity: brand.securityCodeLength) { output in
            var count = 0
            for byte in digits.utf8 where EditSupport.isDigit(byte) && count < output.count {
                output[count] = byte
                count += 1
            }
            return count
        }
        self.storage = kept
        self.caret = kept.count
    }

    /// The code typed, the same as ``digits`` (a `String` copy your app owns): what the buyer typed,
    /// not its mask. Show ``displayText`` instead.
    public var text: String { storage.string }

    /// What the field displays: one `•` per digit, never the code.
    public var displayText: String { String(repeating: "•", count: storage.count) }

    /// The most digits the field accepts for ``brand``.
    public var maximumLength: Int { brand.securityCodeLength }

    /// The field's live state under the brand-agnostic rule (3 or 4 digits).
    public var state: FieldState { storage.withUTF8 { FieldRules.securityCode(utf8: $0) }?.state ?? .valid }

    /// See ``CardTextEditor/replace(_:with:)``.
    @discardableResult
    public mutating func replace(_ range: Range<Int>, with replacement: String) -> EditOutcome {
        guard let result = Self.apply(digits: storage, range: range, replacement: replacement, brand: brand) else {
            return .rejected
        }
        storage = result.digits
        caret = result.caret
        return result.outcome
    }

    /// See ``CardTextEditor/deleteForward()``: deletes the digit after the
    /// caret (every character of ``text`` is a digit; no separator to skip).
    @discardableResult
    public mutating func deleteForward() -> EditOutcome {
        guard caret < storage.count else { return .applied }
        return replace(caret..<caret + 1, with: "")
    }

    /// See ``CardTextEditor/moveCaret(to:)``.
    public mutating func moveCaret(to offset: Int) {
        caret = min(max(offset, 0), storage.count)
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

    /// The edit on the stored digits; `nil` when the replacement is rejected. Every copy of digits it
    /// makes is wiped.
    private static func apply(
        digits: SensitiveBytes, range: Range<Int>, replacement: String, brand: CardBrand
    ) -> (digits: SensitiveBytes, caret: Int, outcome: EditOutcome)? {
        let trimmed = EditSupport.trimmed(replacement)
        return EditSupport.withWipedScratch(trimmed.utf8.count) { inserted in
            var insertedCount = 0
            for scalar in trimmed.unicodeScalars {
                guard let digit = CardNumberScanner.asciiDigit(scalar) else { return nil }
                inserted[insertedCount] = UInt8(ascii: "0") + UInt8(digit)
                insertedCount += 1
            }
            return digits.withUTF8 { old in
                let limit = brand.securityCodeLength
                let range = EditSupport.clamp(range, count: old.count)
                let tailCount = old.count - range.upperBound
                let room = max(0, limit - range.lowerBound - tailCount)
                let kept = min(insertedCount, room)
                var outcome: EditOutcome = kept < insertedCount ? .truncated : .applied
                let total = range.lowerBound + kept + tailCount
                let candidate = SensitiveBytes(capacity: total) { output in
                    // Three runs written in place (`+` on the slices would make an array of the code).
                    var count = 0
                    for byte in old[..<range.lowerBound] {
                        output[count] = byte
                        count += 1
                    }
                    for byte in inserted[..<kept] {
                        output[count] = byte
                        count += 1
                    }
                    for byte in old[range.upperBound...] {
                        output[count] = byte
                        count += 1
                    }
                    if count > limit {
                        outcome = .truncated
                        return limit
                    }
                    return count
                }
                return (candidate, min(range.lowerBound + kept, candidate.count), outcome)
            }
        }
    }

    /// `CardSecurityCodeEditor(brand: amex, digits: 4, caret: 4)`: the
    /// count, never the code.
    public var description: String {
        "CardSecurityCodeEditor(brand: \(brand), digits: \(storage.count), caret: \(caret))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// No digits in the mirror, so `dump(editor)` shows no code.
    public var customMirror: Mirror {
        Mirror(self, children: ["brand": brand, "length": storage.count, "caret": caret])
    }
}
