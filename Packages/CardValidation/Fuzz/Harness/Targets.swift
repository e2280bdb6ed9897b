import Foundation
import FuzzSupport

@testable import CardValidation

/// CardValidation's fuzz targets.
enum CardValidationFuzz {
    static let targets: [FuzzTarget] = [
        FuzzTarget("card-number", check: checkNumberText),
        FuzzTarget("card-editors", check: checkEditSequence),
    ]

    /// Any text as a typed number and as a log line: the scanner's fast and scalar paths agree and match
    /// a second reading (digit count, Luhn right to left, invalid characters); the redaction scanner's
    /// runs are exactly the maximal runs of the README's grammar, every run that is a card number is
    /// found, and `redact` leaves no 12-to-19-digit Luhn-valid run of bare digits; no description,
    /// message or error shows more than four digits of the number.
    static func checkNumberText(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        let text = String(decoding: input, as: UTF8.self)
        let scan = CardNumberScanner.scan(text)
        try fuzzRequire(scan == CardNumberScanner.scanScalars(text.unicodeScalars), "fast and scalar scans differ")
        let digits = text.unicodeScalars.filter { ("0"..."9").contains($0) }.map { UInt8($0.value) }
        let invalid = text.unicodeScalars.contains { !("0"..."9").contains($0) && !isSeparator($0) }
        try fuzzRequire(scan.digitCount == digits.count, "digit count differs from the reference")
        try fuzzRequire(scan.hasInvalidCharacter == invalid, "invalid-character verdict differs")
        try fuzzRequire(scan.isLuhnValid == referenceLuhn(digits), "Luhn verdict differs from the reference")
        try fuzzRequire(
            CardNumber.digits(of: text).map { Array($0.utf8) } == (invalid ? nil : digits),
            "CardNumber.digits differs from the reference")

        let runs = referenceRuns(text)
        let found = CardNumberRedaction.digitRuns(in: text)
        try fuzzRequire(found.map(\.range) == runs.map(\.range), "digit runs differ from the grammar's maximal runs")
        let cards = CardNumberRedaction.cardNumbers(in: text)
        for run in runs where run.isCard {
            try fuzzRequire(cards.contains { $0.range == run.range }, "a card-number run is not found")
        }
        for card in cards {
            let cardDigits = text[card.range].unicodeScalars.filter { ("0"..."9").contains($0) }.map { UInt8($0.value) }
            try fuzzRequire(
                (12...19).contains(cardDigits.count) && referenceLuhn(cardDigits), "a found card number is not one")
            try fuzzRequire(maximalDigitRun(in: card.masked) <= 4, "a masked form shows more than four digits")
        }
        let redacted = CardNumberRedaction.redact(text)
        // Runs of code points, as the README's grammar reads them: a combining mark after a digit joins
        // it into one Character, but the digit stays a digit.
        let bareRuns = redacted.unicodeScalars.split { !("0"..."9").contains($0) }
        for run in bareRuns where (12...19).contains(run.count) {
            try fuzzRequire(!referenceLuhn(run.map { UInt8($0.value) }), "redact leaves a bare card number")
        }

        let input = CardInput(clock: .fixed(Date(timeIntervalSince1970: 1_800_000_000)))
        input.cardNumber = text
        var shown = [input.description, String(reflecting: input), "\(input.snapshot())"]
        if let issue = input.validationIssue(for: .cardNumber) {
            shown += [issue.message, "\(issue)", issue.nsError.localizedDescription, "\(issue.nsError.userInfo)"]
        }
        for line in shown {
            try fuzzRequire(maximalDigitRun(in: line) <= 4, "a description or error shows a run of over four digits")
        }
    }

    /// Bytes as a sequence of edits applied to all three editors at once (insert, paste, backspace,
    /// forward delete, caret moves, range replacements, the pure `edit`, re-adoption of the text). After
    /// every step: the caret is inside the text; the number has ASCII digits only, no more than its
    /// brand's maximum, and its text is `CardNumber.format` of them and adopts back to the same field;
    /// the expiry has at most four digits shown as `M`, `MM/`, `MM/Y`, `MM/YY`; the security code has at
    /// most its brand's length and shows only bullets; a rejected edit changes nothing; the pure `edit`
    /// agrees with the mutating one; no description shows more than four digits of the number.
    static func checkEditSequence(_ input: UnsafeBufferPointer<UInt8>) throws(FuzzViolation) {
        var bytes = ByteReader(input)
        var number = CardNumberEditor()
        var expiry = CardExpiryEditor()
        var code = CardSecurityCodeEditor(brand: bytes.next() & 1 == 0 ? .visa : .amex)
        while !bytes.isAtEnd {
            let operation = bytes.next() % 8
            let text = bytes.text(count: Int(operation == 5 ? bytes.next() % 32 : bytes.next() % 6))
            let a = Int(bytes.next()) - 4
            let b = Int(bytes.next()) - 4
            let range = min(a, b)..<max(a, b)
            try step(&number, operation, text, range, a) {
                CardNumberEditor(text: $0.text, caret: $0.caret)
            } pure: {
                CardNumberEditor.edit(text: $0, selection: $1, replacement: $2)
            }
            try step(&expiry, operation, text, range, a) {
                CardExpiryEditor(text: $0.text, caret: $0.caret)
            } pure: {
                CardExpiryEditor.edit(text: $0, selection: $1, replacement: $2)
            }
            try step(&code, operation, text, range, a) {
                var adopted = CardSecurityCodeEditor(brand: $0.brand, digits: $0.digits)
                adopted.moveCaret(to: $0.caret)
                return adopted
            } pure: { _, _, _ in
                nil
            }

            try fuzzRequire(number.digits.utf8.allSatisfy { (0x30...0x39).contains($0) }, "number holds a non-digit")
            try fuzzRequire(number.digits.utf8.count <= number.brand.maximumNumberLength, "number exceeds its brand")
            try fuzzRequire(number.text == CardNumber.format(number.digits), "number text is not its format")
            for shown in [
                number.description, number.debugDescription, "\(Mirror(reflecting: number).children.map(\.value))",
            ] {
                try fuzzRequire(
                    maximalDigitRun(in: shown) <= 4 || number.digits.count < 5, "number editor shows digits")
                try fuzzRequire(
                    number.digits.count < 5 || !shown.contains(number.digits), "number editor shows the number")
            }
            let expiryDigits = expiry.digits
            try fuzzRequire(expiryDigits.utf8.count <= 4, "expiry holds more than four digits")
            try fuzzRequire(
                expiry.text
                    == (expiryDigits.count < 2
                        ? expiryDigits : "\(expiryDigits.prefix(2))/\(expiryDigits.dropFirst(2))"),
                "expiry text is not MM/YY of its digits")
            try fuzzRequire(code.digits.utf8.count <= code.brand.securityCodeLength, "security code exceeds its brand")
            try fuzzRequire(
                code.displayText == String(repeating: "•", count: code.digits.count), "security code shows digits")
            try fuzzRequire(code.text == code.digits, "security code text is not the code typed")
            for shown in [code.description, "\(Mirror(reflecting: code).children.map(\.value))"]
            where code.digits.count >= 2 {
                try fuzzRequire(!shown.contains(code.digits), "security code editor shows the code")
            }
        }
    }

    /// One edit on one editor, then the checks every editor shares.
    private static func step<Editor: CardTextEditor & Equatable>(
        _ editor: inout Editor, _ operation: UInt8, _ text: String, _ range: Range<Int>, _ offset: Int,
        adopt: (Editor) -> Editor, pure: (String, Range<Int>, String) -> (editor: Editor, outcome: EditOutcome)?
    ) throws(FuzzViolation) {
        let before = editor
        var outcome = EditOutcome.applied
        switch operation {
        case 0, 5: outcome = editor.insert(text)
        case 1: outcome = editor.deleteBackward()
        case 2: outcome = editor.deleteForward()
        case 3: editor.moveCaret(to: offset)
        case 4, 6:
            outcome = editor.replace(range, with: text)
            if operation == 6, outcome != .rejected, let (expected, expectedOutcome) = pure(before.text, range, text) {
                try fuzzRequire(
                    expected == editor && expectedOutcome == outcome, "edit(text:selection:) differs from replace")
            }
        default:
            // Adopting its own text keeps the text and the digits before the caret; the caret itself
            // may move to the canonical place for that digit (after a moved caret, "02|/30" adopts as
            // "02/|30"). Descriptions are safe to show: the number's is masked, the code's has no digit.
            let adopted = adopt(editor)
            try fuzzRequire(
                adopted.text == editor.text && digitsBefore(adopted) == digitsBefore(editor),
                "\(Editor.self) does not adopt its own text back: \(editor) -> \(adopted)")
        }
        if outcome == .rejected { try fuzzRequire(editor == before, "a rejected edit changed \(Editor.self)") }
        try fuzzRequire((0...editor.text.count).contains(editor.caret), "\(Editor.self) caret left the text")
    }
}

/// How many ASCII digits of the editor's text stand before its caret.
private func digitsBefore(_ editor: some CardTextEditor) -> Int {
    editor.text.prefix(editor.caret).filter { $0.isASCII && $0.isNumber }.count
}

/// Reads a fuzz input as small numbers and short texts; zero past the end.
struct ByteReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }
    var isAtEnd: Bool { index >= bytes.count }

    mutating func next() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }

    /// `count` characters, each picked by one byte from the characters a card field meets.
    mutating func text(count: Int) -> String {
        let alphabet: [String] = [
            "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", " ", "-", "/", ".", "a", "\u{2013}", "\u{A0}",
            "\u{663}", "\u{FF11}", "\n", "4242", "3782", "5555", "12/30", "\u{301}", "\u{1F600}", "\t", "\u{2212}",
            "\u{3000}", "\u{200B}",
        ]
        return (0..<count).map { _ in alphabet[Int(next()) % alphabet.count] }.joined()
    }
}

/// The README's separators: tab, Zs, Pd and the minus sign U+2212.
private func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
    if scalar == "\t" || scalar == "\u{2212}" { return true }
    let category = scalar.properties.generalCategory
    return category == .spaceSeparator || category == .dashPunctuation
}

/// Luhn from the right: every second digit from the check digit doubled, 9 subtracted above 9.
private func referenceLuhn(_ digits: [UInt8]) -> Bool {
    guard !digits.isEmpty else { return false }
    var sum = 0
    for (position, byte) in digits.reversed().enumerated() {
        var value = Int(byte) - 48
        if position % 2 == 1 {
            value *= 2
            if value > 9 { value -= 9 }
        }
        sum += value
    }
    return sum % 10 == 0
}

/// The maximal runs of the README's grammar: ASCII digits, any separators allowed between two digits.
private func referenceRuns(_ text: String) -> [(range: Range<String.Index>, isCard: Bool)] {
    let scalars = Array(text.unicodeScalars.indices)
    let view = text.unicodeScalars
    func isDigit(_ i: Int) -> Bool { i >= 0 && i < scalars.count && ("0"..."9").contains(view[scalars[i]]) }
    var runs: [(Range<String.Index>, Bool)] = []
    var i = 0
    while i < scalars.count {
        guard isDigit(i) else {
            i += 1
            continue
        }
        var end = i
        var digits: [UInt8] = []
        var j = i
        while j < scalars.count {
            if isDigit(j) {
                digits.append(UInt8(view[scalars[j]].value))
                end = j
                j += 1
            } else if isSeparator(view[scalars[j]]) {
                var k = j
                while k < scalars.count, isSeparator(view[scalars[k]]) { k += 1 }
                guard isDigit(k) else { break }
                j = k
            } else {
                break
            }
        }
        let upper = end + 1 < scalars.count ? scalars[end + 1] : text.endIndex
        runs.append((scalars[i]..<upper, (12...19).contains(digits.count) && referenceLuhn(digits)))
        i = end + 1
    }
    return runs
}

/// The longest stretch of consecutive ASCII digits in `text`.
private func maximalDigitRun(in text: String) -> Int {
    var longest = 0
    var current = 0
    for byte in text.utf8 {
        current = (0x30...0x39).contains(byte) ? current + 1 : 0
        longest = max(longest, current)
    }
    return longest
}
