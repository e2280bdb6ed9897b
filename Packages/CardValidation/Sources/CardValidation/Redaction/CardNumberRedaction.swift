/// The SDK's one rule for finding card numbers in text and the one form in
/// which a card number is shown: `•••• 4242`.
///
/// Every place that logs, describes or echoes text (the payment flow's logger,
/// the card snapshot's description, the REPL's output) calls these functions
/// rather than scanning digits itself, so that what counts as a card number and
/// how it is masked cannot drift apart.
///
/// **What is a card number in text.** A *digit run* is a maximal sequence of
/// ASCII digits `0`–`9` in which separators (``CardNumberGrammar``: the very
/// set the number field accepts, Unicode spaces and dashes included) may stand
/// between two digits, one or several, as the number field takes them. A run
/// is a card number when it has 12 to 19 digits and passes the Luhn check, that
/// is, when ``CardInput`` would accept it as the number.
/// A run written in groups that is not one (a number followed by its security
/// code or expiry) is searched for the longest stretch of whole groups, starting
/// with a group of at least four digits, that is; ``redact(_:)`` then masks the
/// whole run (`•••• 4242 ••••`): the last four come from the number, and the
/// digits typed beside it (a security code) are never left in clear.
/// Everything else (ids, amounts, timestamps, order numbers: runs shorter than
/// 12 digits, longer than 19, or failing Luhn) is left exactly as it was,
/// never half-masked; a run without separators is never split.
///
/// ```swift
/// CardNumberRedaction.redact("card 4242 4242 4242 4242 declined")  // "card •••• 4242 declined"
/// CardNumberRedaction.redact("order 4111111111111112")             // unchanged: fails Luhn
/// CardNumberRedaction.masked("4242424242424242")                   // "•••• 4242"
/// ```
///
/// The SDK applies this one rule to every text, the gateway's and the host's
/// included; it has no stricter rule for foreign text. A tool that wants one
/// builds it on the same scanner with ``redactDigitRuns(in:where:)``, e.g.
/// every run of six or more digits:
/// `redactDigitRuns(in: text, where: { $0.digitCount >= 6 })`.
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
        /// The run in the one masked form (``CardNumberRedaction/masked(_:)``):
        /// a card number's last four, `••••` for any other run.
        public let masked: String
        /// The whole run as ``CardNumberRedaction/redact(_:)`` shows it: ``masked``
        /// for a card number; for a run holding card numbers among other groups,
        /// each number masked, what stands before it as it was, and the digits
        /// after the last number `••••` (`"4242 4242 4242 4242 737"` is
        /// `"•••• 4242 ••••"`), and only the numbers' last fours between bullets
        /// when kept digits would form or join a number; `nil` for a run
        /// holding no card number (redaction leaves it as it is).
        public let redacted: String?

        /// `"DigitRun(16 digits, card number, •••• 4242)"`.
        public var description: String {
            "DigitRun(\(digitCount) digits, \(isCardNumber ? "card number" : "not a card number"), \(masked))"
        }

        /// The same run with another ``redacted`` form.
        func with(redacted form: String) -> DigitRun {
            DigitRun(range: range, digitCount: digitCount, isCardNumber: isCardNumber, masked: masked, redacted: form)
        }

        /// Masked children only.
        public var customMirror: Mirror {
            Mirror(
                self, children: ["digitCount": digitCount, "isCardNumber": isCardNumber, "masked": masked],
                displayStyle: .struct)
        }
    }

    /// Every digit run in `text`, in order (maximal runs: each as long as the
    /// grammar allows).
    public static func digitRuns(in text: String) -> [DigitRun] {
        scan(text).map { $0.run }
    }

    /// Every card number in `text`, in order: each digit run that is one, and,
    /// inside a run that is not (too long, or failing Luhn) but is written in
    /// groups, the longest stretch of whole groups that is one (a number
    /// followed by its security code, `"4242 4242 4242 4242 737"`, still hides
    /// `4242 4242 4242 4242`). A run without separators (an id) is never split.
    public static func cardNumbers(in text: String) -> [DigitRun] {
        scan(text).flatMap(numbers(in:))
    }

    /// The card numbers of one scanned run: the run itself, or the stretches inside it.
    private static func numbers(in entry: ScannedRun) -> [DigitRun] {
        entry.run.isCardNumber ? [entry.run] : entry.stretches
    }

    /// Whether `text` holds a card number (see ``cardNumbers(in:)``).
    public static func containsCardNumber(_ text: String) -> Bool {
        !cardNumbers(in: text).isEmpty
    }

    /// `text` with every card number (see ``cardNumbers(in:)``) replaced by
    /// its masked form (`"paid with 4242-4242-4242-4242"` becomes
    /// `"paid with •••• 4242"`); every other character is kept as it was.
    ///
    /// A run holding a card number among other groups is masked whole
    /// (``DigitRun/redacted``): `"4242 4242 4242 4242 737"` becomes
    /// `"•••• 4242 ••••"`, never `"•••• 4242 737"`.
    public static func redact(_ text: String) -> String {
        replacing(digitRuns(in: text).filter { $0.redacted != nil }, in: text, with: { $0.redacted ?? $0.masked })
    }

    /// As ``redact(_:)``, but a run whose card numbers are all `spared` is
    /// left as it is (a tool that must keep ids readable can spare a number
    /// glued to letters, e.g. inside `cs_4111111111111111x`).
    public static func redact(_ text: String, except spared: (DigitRun) -> Bool) -> String {
        let masked = scan(text).filter { entry in
            entry.run.redacted != nil && !numbers(in: entry).allSatisfy(spared)
        }
        return replacing(masked.map(\.run), in: text, with: { $0.redacted ?? $0.masked })
    }

    /// `text` with every digit run for which `shouldMask` is `true` replaced by
    /// its masked form (``DigitRun/masked``): the same scanner and the same
    /// mask, for callers that need a stricter rule than "is a card number"
    /// (text from a gateway or a host, which the SDK did not write).
    public static func redactDigitRuns(in text: String, where shouldMask: (DigitRun) -> Bool) -> String {
        replacing(digitRuns(in: text).filter(shouldMask), in: text)
    }

    /// `text` with each of `runs` (in order, not overlapping) replaced by `form` (by default its masked form).
    private static func replacing(
        _ runs: [DigitRun], in text: String, with form: (DigitRun) -> String = { $0.masked }
    ) -> String {
        guard !runs.isEmpty else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var copied = text.startIndex
        for run in runs {
            out.unicodeScalars.append(contentsOf: text.unicodeScalars[copied..<run.range.lowerBound])
            out += form(run)
            copied = run.range.upperBound
        }
        out.unicodeScalars.append(contentsOf: text.unicodeScalars[copied...])
        return out
    }

    /// Digits between two separators (or a run's ends).
    private struct Group {
        var range: Range<String.Index>
        var digits: [Int]
    }

    /// A maximal run with the card numbers found among its groups.
    private typealias ScannedRun = (run: DigitRun, stretches: [DigitRun])

    /// The maximal digit runs of `text` (digits joined across any sequence of
    /// separators that a digit follows), each with the card-number stretches of
    /// its groups when the run as a whole is not one.
    private static func scan(_ text: String) -> [ScannedRun] {
        var found: [ScannedRun] = []
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        while index < scalars.endIndex {
            guard CardNumberScanner.asciiDigit(scalars[index]) != nil else {
                index = scalars.index(after: index)
                continue
            }
            var groups: [Group] = []
            var group = Group(range: index..<index, digits: [])
            var cursor = index
            while cursor < scalars.endIndex {
                if let digit = CardNumberScanner.asciiDigit(scalars[cursor]) {
                    group.digits.append(digit)
                    cursor = scalars.index(after: cursor)
                    group.range = group.range.lowerBound..<cursor
                    continue
                }
                // Separators, and only when a digit follows them.
                var next = cursor
                while next < scalars.endIndex, CardNumberScanner.isSeparator(scalars[next]) {
                    next = scalars.index(after: next)
                }
                guard next > cursor, next < scalars.endIndex, CardNumberScanner.asciiDigit(scalars[next]) != nil
                else { break }
                groups.append(group)
                group = Group(range: next..<next, digits: [])
                cursor = next
            }
            groups.append(group)
            let range = index..<group.range.upperBound
            found.append(scannedRun(range, groups, in: text))
            index = range.upperBound
        }
        return found
    }

    /// A whole run and its card numbers, with the form redaction shows it in.
    private static func scannedRun(_ range: Range<String.Index>, _ groups: [Group], in text: String) -> ScannedRun {
        let whole = run(range, groups[...])
        if whole.isCardNumber {
            return (whole.with(redacted: whole.masked), [])
        }
        let stretches = groups.count > 1 ? cardNumbers(inGroups: groups) : []
        guard !stretches.isEmpty else { return (whole, []) }
        // Each number masked, and the digits after the last one (a security code, an expiry) `••••`:
        // the last four are the number's, and a code typed after it never stays in clear. Digits
        // before a number (a quantity, a short id) stay as they were.
        var out = ""
        var copied = range.lowerBound
        for stretch in stretches {
            let before = text[copied..<stretch.range.lowerBound]
            // What stands before is kept unless it is itself a card number (groups starting short).
            let beforeDigits = CardNumberScanner.digitsOnly(before)
            if (CardNumber.minimumLength...CardNumber.maximumLength).contains(beforeDigits.utf8.count),
                CardNumber.isLuhnValid(beforeDigits)
            {
                out += "•••• "
            } else {
                out.unicodeScalars.append(contentsOf: before.unicodeScalars)
            }
            out += stretch.masked
            copied = stretch.range.upperBound
        }
        if copied < range.upperBound { out += " ••••" }
        // The digits kept beside a masked number could join its last four into a new number
        // (`•••• 4242 44 …`): then every digit but each number's last four is `••••`, and bullets,
        // which are no separators, keep each last four apart.
        if scan(out).contains(where: { !numbers(in: $0).isEmpty }) {
            var pieces: [String] = []
            var cursor = range.lowerBound
            for stretch in stretches {
                if cursor < stretch.range.lowerBound,
                    !CardNumberScanner.digitsOnly(text[cursor..<stretch.range.lowerBound]).isEmpty
                {
                    pieces.append("••••")
                }
                pieces.append(stretch.masked)
                cursor = stretch.range.upperBound
            }
            if cursor < range.upperBound { pieces.append("••••") }
            out = pieces.joined(separator: " ")
        }
        return (whole.with(redacted: out), stretches)
    }

    /// A run of the whole of `groups`, spanning `range` (``DigitRun/redacted`` as for a lone number).
    private static func run(_ range: Range<String.Index>, _ groups: ArraySlice<Group>) -> DigitRun {
        var scan = NumberScan()
        var lastFour: [Int] = []
        for digit in groups.lazy.flatMap(\.digits) {
            scan.add(digit)
            lastFour.append(digit)
            if lastFour.count > 4 { lastFour.removeFirst() }
        }
        let isCardNumber =
            (CardNumber.minimumLength...CardNumber.maximumLength).contains(scan.digitCount) && scan.isLuhnValid
        // Only a card number shows a last four: the last digits of any other run may be a code.
        let masked =
            isCardNumber ? masked(digitCount: scan.digitCount, lastFour: lastFour) : scan.digitCount == 0 ? "" : "••••"
        return DigitRun(
            range: range, digitCount: scan.digitCount, isCardNumber: isCardNumber, masked: masked,
            redacted: isCardNumber ? masked : nil)
    }

    /// Left to right, the longest stretches of whole groups that are card
    /// numbers, each starting with a group of at least four digits (how card
    /// numbers are written), so short numbers before a card number cannot
    /// swallow its first groups.
    ///
    /// From each start, the groups are added one at a time while the stretch
    /// has at most 19 digits (so at most 19 groups), the Luhn sums carried
    /// forward: the work stays linear in the length of the run.
    private static func cardNumbers(inGroups groups: [Group]) -> [DigitRun] {
        var found: [DigitRun] = []
        var first = groups.startIndex
        while first < groups.endIndex {
            // Card numbers are written starting with a group of at least four digits (4-4-4-4, 4-6-5).
            guard groups[first].digits.count >= 4 else {
                first += 1
                continue
            }
            var scan = NumberScan()
            var longest: Int?
            var last = first
            while last < groups.endIndex, scan.digitCount + groups[last].digits.count <= CardNumber.maximumLength {
                for digit in groups[last].digits { scan.add(digit) }
                if scan.digitCount >= CardNumber.minimumLength, scan.isLuhnValid { longest = last }
                last += 1
            }
            if let longest {
                let range = groups[first].range.lowerBound..<groups[longest].range.upperBound
                found.append(run(range, groups[first...longest]))
                first = longest + 1
            } else {
                first += 1
            }
        }
        return found
    }

    /// The one display form of a card number: `"•••• 4242"`, the last four
    /// digits of the number alone; `"••••"` for anything else, where the last
    /// four could be most of what was typed or a security code typed after the
    /// number; `""` when there are no digits.
    ///
    /// The digits (characters other than ASCII digits are ignored) show their
    /// last four only when they are a card number (12 to 19 digits passing
    /// Luhn). Any other input (a partial number, a mistyped one, a number with
    /// its code typed after it, `"4242 4242 4242 4242 737"`, which once showed
    /// `"•••• 2737"`) is `"••••"`. Safe for logs, descriptions and tool output.
    public static func masked(_ number: some StringProtocol) -> String {
        masked(utf8: number.utf8)
    }

    /// ``masked(_:)`` over UTF-8 bytes (a sensitive buffer's, read in place).
    static func masked(utf8 number: some Sequence<UInt8>) -> String {
        var scan = NumberScan()
        var lastFour: [Int] = []
        for byte in number {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { continue }
            scan.add(Int(digit))
            lastFour.append(Int(digit))
            if lastFour.count > 4 { lastFour.removeFirst() }
        }
        if (CardNumber.minimumLength...CardNumber.maximumLength).contains(scan.digitCount), scan.isLuhnValid {
            return masked(digitCount: scan.digitCount, lastFour: lastFour)
        }
        return scan.digitCount == 0 ? "" : "••••"
    }

    private static func masked(digitCount: Int, lastFour: [Int]) -> String {
        if digitCount == 0 { return "" }
        guard digitCount >= CardNumber.minimumLength else { return "••••" }
        return "•••• " + lastFour.map(String.init).joined()
    }
}
