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
///
/// The digits are kept in memory excluded from core dumps, locked against
/// swap where the kernel allows and wiped when an edit replaces them (see
/// "Card data in memory" in the package README). ``digits`` and ``text`` are
/// `String` copies made when asked: your app's memory, which the SDK cannot
/// wipe. Hand the number to ``CardInput`` with
/// ``CardInput/setCardNumber(from:)``, which makes no copy.
public struct CardNumberEditor: CardTextEditor, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The digits (ASCII), in protected memory; shared, never copied, by ``CardInput/setCardNumber(from:)``.
    private(set) var storage: SensitiveBytes
    /// The caret position in ``text``.
    public private(set) var caret: Int

    /// The digits entered, without formatting (a copy, see above).
    public var digits: String { storage.string }

    /// The grouped digits the field displays (a copy, see above).
    public var text: String {
        storage.withUTF8 { digits in
            let groups = IINTable.detect(utf8: digits).numberGrouping
            let length = Self.textLength(digitCount: digits.count, groups: groups)
            return String(unsafeUninitializedCapacity: length) { output in
                Self.layOut(digits, groups: groups, into: output)
                return length
            }
        }
    }

    /// An empty field.
    public init() {
        storage = .empty
        caret = 0
    }

    /// A field adopting a UI's current `text` (every character other than an
    /// ASCII digit is dropped; digits past the brand's maximum are dropped),
    /// with the caret after the same digit as `caret` in `text` (default: at
    /// the end).
    public init(text: String, caret: Int? = nil) {
        let kept = SensitiveBytes(capacity: CardNumber.maximumLength) { output in
            var count = 0
            for byte in text.utf8 where EditSupport.isDigit(byte) && count < output.count {
                output[count] = byte
                count += 1
            }
            let digits = UnsafeBufferPointer(
                start: output.baseAddress?.assumingMemoryBound(to: UInt8.self), count: count)
            return min(count, IINTable.detect(utf8: digits).maximumNumberLength)
        }
        let caretDigits = caret.map { EditSupport.digitCount(text.prefix(max($0, 0))) }
        self.init()
        set(digits: kept, caretDigits: min(caretDigits ?? kept.count, kept.count))
    }

    /// The brand of ``digits`` (see ``CardBrand/detect(_:)``).
    public var brand: CardBrand { storage.withUTF8 { IINTable.detect(utf8: $0) } }

    /// The most digits this field accepts for its current brand.
    public var maximumLength: Int { brand.maximumNumberLength }

    /// The field's live state under the brand-agnostic number rules.
    public var state: FieldState { storage.withUTF8 { FieldRules.number(utf8: $0) }?.state ?? .valid }

    /// See ``CardTextEditor/replace(_:with:)``.
    @discardableResult
    public mutating func replace(_ range: Range<Int>, with replacement: String) -> EditOutcome {
        let result = storage.withUTF8 { digits in
            let groups = IINTable.detect(utf8: digits).numberGrouping
            return EditSupport.withWipedScratch(Self.textLength(digitCount: digits.count, groups: groups)) { source in
                Self.layOut(digits, groups: groups, into: source)
                return Self.apply(source: UnsafeBufferPointer(source), range: range, replacement: replacement)
            }
        }
        guard let result else { return .rejected }
        set(digits: result.digits, caretDigits: result.caretDigits)
        return result.outcome
    }

    /// The edit on any source text, given as one byte per character (the
    /// ASCII digit, or a space for any other character): its digits, with
    /// `range` (offsets in `source`) replaced. `nil` when the replacement is
    /// rejected. Every copy of digits it makes is wiped.
    private static func apply(
        source: UnsafeBufferPointer<UInt8>, range: Range<Int>, replacement: String
    ) -> (digits: SensitiveBytes, caretDigits: Int, outcome: EditOutcome)? {
        let trimmed = EditSupport.trimmed(replacement)
        return EditSupport.withWipedScratch(trimmed.utf8.count) { inserted in
            var insertedCount = 0
            for scalar in trimmed.unicodeScalars {
                if let digit = CardNumberScanner.asciiDigit(scalar) {
                    inserted[insertedCount] = UInt8(ascii: "0") + UInt8(digit)
                    insertedCount += 1
                } else if !CardNumberScanner.isSeparator(scalar) {
                    return nil
                }
            }
            let range = EditSupport.clamp(range, count: source.count)
            let span = EditSupport.digitSpan(of: range, in: source, deleting: insertedCount == 0)
            let oldCount = EditSupport.digitCount(source[...])
            let total = oldCount - (span.end - span.start) + insertedCount

            // Past the brand's maximum, digits are dropped from the end (the brand
            // is read from the first four digits, which a cut at 15 or more
            // digits never changes).
            var outcome = EditOutcome.applied
            let digits = SensitiveBytes(capacity: total) { output in
                var count = 0
                var seen = 0
                for byte in source where EditSupport.isDigit(byte) {
                    if seen == span.start {
                        for index in 0..<insertedCount {
                            output[count] = inserted[index]
                            count += 1
                        }
                    }
                    if seen < span.start || seen >= span.end {
                        output[count] = byte
                        count += 1
                    }
                    seen += 1
                }
                if seen <= span.start {
                    for index in 0..<insertedCount {
                        output[count] = inserted[index]
                        count += 1
                    }
                }
                let written = UnsafeBufferPointer(
                    start: output.baseAddress?.assumingMemoryBound(to: UInt8.self), count: count)
                let longest = IINTable.detect(utf8: written).maximumNumberLength
                if count > longest {
                    outcome = .truncated
                    return longest
                }
                return count
            }
            return (digits, min(span.start + insertedCount, digits.count), outcome)
        }
    }

    /// See ``CardTextEditor/moveCaret(to:)``.
    public mutating func moveCaret(to offset: Int) {
        caret = min(max(offset, 0), textLength)
    }

    /// The pure form of an edit: the field a UI's `text` becomes when
    /// `selection` (offsets in `text`) is replaced by `replacement`, and what
    /// happened. On `.rejected` the field holds `text` as adopted by
    /// ``init(text:caret:)`` with the caret at `selection`'s start.
    public static func edit(
        text: String, selection: Range<Int>, replacement: String
    ) -> (editor: CardNumberEditor, outcome: EditOutcome) {
        let result = EditSupport.withWipedScratch(text.count) { source in
            var index = 0
            for character in text {
                source[index] = EditSupport.isDigit(character) ? character.asciiValue ?? 0x20 : 0x20
                index += 1
            }
            return apply(source: UnsafeBufferPointer(source), range: selection, replacement: replacement)
        }
        guard let result else {
            return (CardNumberEditor(text: text, caret: selection.lowerBound), .rejected)
        }
        var editor = CardNumberEditor()
        editor.set(digits: result.digits, caretDigits: result.caretDigits)
        return (editor, result.outcome)
    }

    private mutating func set(digits newDigits: SensitiveBytes, caretDigits: Int) {
        storage = newDigits
        let groups = brand.numberGrouping
        caret = Self.caretOffset(afterDigits: caretDigits, digitCount: newDigits.count, groups: groups)
    }

    /// The length of ``text``, without making it.
    private var textLength: Int { Self.textLength(digitCount: storage.count, groups: brand.numberGrouping) }

    /// The group boundaries (digit counts before each separator) that `digitCount` digits reach.
    private static func separators(digitCount: Int, groups: [Int], _ body: (Int) -> Void) {
        var boundary = 0
        for group in groups.dropLast() {
            boundary += group
            guard boundary < digitCount else { return }
            body(boundary)
        }
    }

    /// Digits plus one space per boundary with a digit after it.
    static func textLength(digitCount: Int, groups: [Int]) -> Int {
        var length = digitCount
        separators(digitCount: digitCount, groups: groups) { _ in length += 1 }
        return length
    }

    /// Writes the grouped text of `digits` into `output` (exactly ``textLength(digitCount:groups:)`` bytes).
    static func layOut(
        _ digits: UnsafeBufferPointer<UInt8>, groups: [Int], into output: UnsafeMutableBufferPointer<UInt8>
    ) {
        var next = 0
        var position = 0
        separators(digitCount: digits.count, groups: groups) { boundary in
            while next < boundary {
                output[position] = digits[next]
                position += 1
                next += 1
            }
            output[position] = UInt8(ascii: " ")
            position += 1
        }
        while next < digits.count {
            output[position] = digits[next]
            position += 1
            next += 1
        }
    }

    /// The caret offset in the grouped text after its first `digitIndex` digits: just before the next
    /// digit (past a group separator: `"4242 |4242"`), or at the end of the text.
    static func caretOffset(afterDigits digitIndex: Int, digitCount: Int, groups: [Int]) -> Int {
        guard digitIndex < digitCount else { return textLength(digitCount: digitCount, groups: groups) }
        var offset = digitIndex
        separators(digitCount: digitCount, groups: groups) { boundary in
            if boundary <= digitIndex { offset += 1 }
        }
        return offset
    }

    /// `CardNumberEditor(brand: visa, number: •••• 4242, caret: 19)`; never
    /// the full number.
    public var description: String {
        "CardNumberEditor(brand: \(brand), number: \(masked), caret: \(caret))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Masked children only, so `dump(editor)` shows no card data.
    public var customMirror: Mirror {
        Mirror(self, children: ["brand": brand, "number": masked, "caret": caret])
    }

    private var masked: String { storage.withUTF8 { CardNumberRedaction.masked(utf8: $0) } }
}
