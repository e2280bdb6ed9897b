/// The SDK's one rule for finding card numbers in text and the one form in
/// which a card number is shown: `•••• 4242`.
///
/// Every place that logs, describes or echoes text (the payment flow's logger,
/// the card snapshot's description, the REPL's output) calls these functions
/// rather than scanning digits itself, so that what counts as a card number and
/// how it is masked cannot drift apart.
///
/// **What is a card number in text.** A *digit run* is a maximal sequence of
/// ASCII digits `0`–`9` in which a single space or dash (Unicode categories Zs
/// and Pd, as ``CardNumber`` accepts them) may stand between two digits. A run
/// is a card number when it has 12 to 19 digits and passes the Luhn check.
/// Everything else (ids, amounts, timestamps, order numbers: runs shorter than
/// 12 digits, longer than 19, or failing Luhn) is left exactly as it was,
/// never half-masked.
///
/// ```swift
/// CardNumberRedaction.redact("card 4242 4242 4242 4242 declined")  // "card •••• 4242 declined"
/// CardNumberRedaction.redact("order 4111111111111112")             // unchanged: fails Luhn
/// CardNumberRedaction.masked("4242424242424242")                   // "•••• 4242"
/// ```
///
/// Text the SDK did not write itself may need a stricter rule; build it on the
/// same scanner with ``redact(_:where:)``, e.g. every run of six or more
/// digits: `redact(text) { $0.digitCount >= 6 }`.
///
/// Every function is pure and thread-safe.
public enum CardNumberRedaction {
    /// A digit run found in text (see ``CardNumberRedaction``).
    ///
    /// It never exposes the digits themselves: its `description` and mirror show
    /// only ``masked``.
    public struct DigitRun: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        /// From the run's first digit to just after its last digit.
        public let range: Range<String.Index>
        /// How many digits the run has (separators not counted).
        public let digitCount: Int
        /// `true` when the run is a card number: 12 to 19 digits passing Luhn.
        public let isCardNumber: Bool
        /// The run in the one masked form (``CardNumberRedaction/masked(_:)``).
        public let masked: String

        /// `"DigitRun(16 digits, card number, •••• 4242)"`.
        public var description: String {
            "DigitRun(\(digitCount) digits, \(isCardNumber ? "card number" : "not a card number"), \(masked))"
        }

        /// Masked children only.
        public var customMirror: Mirror {
            Mirror(
                self, children: ["digitCount": digitCount, "isCardNumber": isCardNumber, "masked": masked],
                displayStyle: .struct)
        }
    }

    /// Every digit run in `text`, in order.
    public static func digitRuns(in text: String) -> [DigitRun] {
        var runs: [DigitRun] = []
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            guard CardNumberScanner.asciiDigit(scalars[index]) != nil else {
                index = scalars.index(after: index)
                continue
            }
            let start = index
            var end = index
            var scan = NumberScan()
            var lastFour: [Int] = []
            var cursor = index
            while cursor < scalars.endIndex {
                if let digit = CardNumberScanner.asciiDigit(scalars[cursor]) {
                    scan.add(digit)
                    lastFour.append(digit)
                    if lastFour.count > 4 { lastFour.removeFirst() }
                    cursor = scalars.index(after: cursor)
                    end = cursor
                    continue
                }
                // One separator, and only when a digit follows it.
                let next = scalars.index(after: cursor)
                guard CardNumberScanner.isSeparator(scalars[cursor]), next < scalars.endIndex,
                    CardNumberScanner.asciiDigit(scalars[next]) != nil
                else { break }
                cursor = next
            }
            let isCardNumber =
                (CardNumber.minimumLength...CardNumber.maximumLength).contains(scan.digitCount) && scan.isLuhnValid
            runs.append(
                DigitRun(
                    range: start..<end, digitCount: scan.digitCount, isCardNumber: isCardNumber,
                    masked: masked(digitCount: scan.digitCount, lastFour: lastFour)))
            index = end
        }
        return runs
    }

    /// Whether `text` holds a card number (a digit run of 12 to 19 digits
    /// passing Luhn).
    public static func containsCardNumber(_ text: String) -> Bool {
        digitRuns(in: text).contains { $0.isCardNumber }
    }

    /// `text` with every card number replaced by its masked form
    /// (`"paid with 4242-4242-4242-4242"` becomes `"paid with •••• 4242"`);
    /// every other character is kept as it was.
    public static func redact(_ text: String) -> String {
        redact(text, where: \.isCardNumber)
    }

    /// `text` with every digit run for which `shouldMask` is `true` replaced by
    /// its masked form (``DigitRun/masked``): the same scanner and the same
    /// mask, for callers that need a stricter rule than "is a card number"
    /// (text from a gateway or a host, which the SDK did not write).
    public static func redact(_ text: String, where shouldMask: (DigitRun) -> Bool) -> String {
        let runs = digitRuns(in: text).filter(shouldMask)
        guard !runs.isEmpty else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var copied = text.startIndex
        for run in runs {
            out.unicodeScalars.append(contentsOf: text.unicodeScalars[copied..<run.range.lowerBound])
            out += run.masked
            copied = run.range.upperBound
        }
        out.unicodeScalars.append(contentsOf: text.unicodeScalars[copied...])
        return out
    }

    /// The one display form of a card number: `"•••• 4242"` (the last four
    /// digits) for 12 or more digits; `"••••"` for fewer, where even the last
    /// four could be most of what was typed; `""` when there are no digits.
    ///
    /// Characters other than ASCII digits are ignored. Safe for logs,
    /// descriptions and tool output.
    public static func masked(_ number: some StringProtocol) -> String {
        var count = 0
        var lastFour: [Int] = []
        for byte in number.utf8 {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { continue }
            count += 1
            lastFour.append(Int(digit))
            if lastFour.count > 4 { lastFour.removeFirst() }
        }
        return masked(digitCount: count, lastFour: lastFour)
    }

    private static func masked(digitCount: Int, lastFour: [Int]) -> String {
        if digitCount == 0 { return "" }
        guard digitCount >= CardNumber.minimumLength else { return "••••" }
        return "•••• " + lastFour.map(String.init).joined()
    }
}
