import Testing

@testable import CardValidation

// Expected outputs are written by hand. Card numbers: Visa 4111 1111 1111 1111,
// Mastercard 5555 5555 5555 4444, Amex 3782 822463 10005 (Stripe's and Adyen's
// published test cards); Adyen POS Maestro 6799 9989 0000 0099 990 (19 digits).
// Luhn verdicts of the non-card runs were computed by hand (digits doubled from
// the right, second digit first): 4111111111111112 sums to 31, 100000000000 to
// 2, 1764502970000 to 43; 41111111111111111115 passes (sum 40) but has 20
// digits; 79927398713 passes (sum 70) but has 11.
@Suite struct RedactionTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        let input: String
        let expected: String
        var testDescription: String { name }
    }

    static let table: [Row] = [
        Row(name: "PAN with spaces", input: "4111 1111 1111 1111", expected: "•••• 1111"),
        Row(name: "PAN with dashes", input: "pay 4111-1111-1111-1111 now", expected: "pay •••• 1111 now"),
        Row(
            name: "PAN in prose", input: "Card 5555555555554444 was declined.",
            expected: "Card •••• 4444 was declined."),
        Row(
            name: "two PANs", input: "4111111111111111 and 3782 822463 10005.",
            expected: "•••• 1111 and •••• 0005."),
        Row(
            name: "PAN with no-break spaces", input: "n=4111\u{00A0}1111\u{00A0}1111\u{00A0}1111",
            expected: "n=•••• 1111"),
        Row(name: "19-digit PAN", input: "maestro 6799998900000099990", expected: "maestro •••• 9990"),
        Row(name: "16-digit id failing Luhn", input: "order 4111111111111112", expected: "order 4111111111111112"),
        Row(
            name: "timestamp", input: "at 2026-11-30 11:42:50 (1764502970000 ms)",
            expected: "at 2026-11-30 11:42:50 (1764502970000 ms)"),
        Row(name: "amount in minor units", input: "amount 100000000000 EUR", expected: "amount 100000000000 EUR"),
        Row(name: "amount", input: "amount 1250.00 EUR", expected: "amount 1250.00 EUR"),
        Row(
            name: "20-digit run passing Luhn", input: "ref 41111111111111111115",
            expected: "ref 41111111111111111115"),
        Row(name: "11 digits passing Luhn", input: "luhn 79927398713", expected: "luhn 79927398713"),
        Row(
            name: "id glued to letters", input: "cs_733037213230d9e4",
            expected: "cs_733037213230d9e4"),
        // 4111 1111 1111 1111 as the number field reads it: separators in any number between groups.
        Row(
            name: "several separators join groups, as the number field joins them",
            input: "4111  1111--1111 \t1111", expected: "•••• 1111"),
        Row(name: "a newline ends a run", input: "4111 1111\n1111 1111", expected: "4111 1111\n1111 1111"),
        // A run written in groups that is not a card number (4242424242424242737 sums to 84;
        // 41111111111111111230 has 20 digits, its first five groups 411111111111111112 sum to 34;
        // 1234411111111111 sums to 38 and 123441111111 to 32): the longest stretch of whole groups that is.
        Row(
            name: "PAN followed by its security code", input: "log 4242 4242 4242 4242 737 end",
            expected: "log •••• 4242 •••• end"),
        Row(
            name: "PAN followed by its expiry", input: "4111 1111 1111 1111 12 30",
            expected: "•••• 1111 ••••"),
        Row(name: "PAN after a short group", input: "1234 4111 1111 1111 1111", expected: "1234 •••• 1111"),
        Row(name: "no digits", input: "nothing here", expected: "nothing here"),
        Row(name: "empty", input: "", expected: ""),
    ]

    @Test(arguments: table)
    func redactsOnlyCardNumbers(row: Row) {
        #expect(CardNumberRedaction.redact(row.input) == row.expected)
        #expect(CardNumberRedaction.containsCardNumber(row.input) == (row.input != row.expected))
    }

    @Test func theOneMaskedForm() {
        #expect(CardNumberRedaction.masked("4242 4242 4242 4242") == "•••• 4242")
        #expect(CardNumberRedaction.masked("378282246310005") == "•••• 0005")
        #expect(CardNumberRedaction.masked("4242") == "••••")
        #expect(CardNumberRedaction.masked("") == "")
        #expect(CardNumber.masked("5555-5555-5555-4444") == CardNumberRedaction.masked("5555-5555-5555-4444"))
    }

    /// Issue 34: the mask takes the last four of the number alone, never of a security code typed
    /// after it (`4111 1111 1111 1111` then `737` once showed `•••• 1737`).
    @Test func theMaskNeverTakesDigitsOfACodeTypedAfterTheNumber() throws {
        #expect(CardNumberRedaction.masked("4111 1111 1111 1111 737") == "••••")
        #expect(CardNumber.masked("4111111111111111737") == "••••", "no separators: where the number ends is unknown")
        #expect(CardNumber.masked("4111111111111112") == "••••", "a mistyped number shows no digits")
        let run = try #require(CardNumberRedaction.digitRuns(in: "card 4111 1111 1111 1111 737").first)
        #expect(run.masked == "••••")
        #expect(CardNumberRedaction.redactDigitRuns(in: "id 4111111111111111737", where: { _ in true }) == "id ••••")
        let card = CardInput(cardNumber: "4111111111111111737", securityCode: "737")
        #expect(!card.description.contains("1737") && card.description.contains("cardNumber: ••••,"), "\(card)")
        let grouped = CardInput(cardNumber: "4111 1111 1111 1111 737")
        #expect(grouped.description.contains("cardNumber: ••••,"), "\(grouped)")
        #expect(!String(describing: grouped.snapshot()).contains("1737"))
    }

    @Test func digitRunsReportWhereAndWhat() throws {
        let text = "id 12345, card 4111-1111-1111-1111."
        let runs = CardNumberRedaction.digitRuns(in: text)
        #expect(runs.map(\.digitCount) == [5, 16])
        #expect(runs.map(\.isCardNumber) == [false, true])
        let card = try #require(runs.last)
        #expect(text[card.range] == "4111-1111-1111-1111")
        #expect(card.masked == "•••• 1111")
    }

    @Test func aLongGroupedRunIsSearchedWholeGroupsAtATime() {
        // 20,000 groups of 1111: from each group a stretch reaches 16 digits at most; 12 ones sum to 18
        // and 16 ones to 24 (ones at odd places from the right count 1, at even places 2), so nothing
        // is masked, and the search stays linear.
        let text = String(repeating: "1111 ", count: 20_000) + "1111"
        #expect(CardNumberRedaction.redact(text) == text)
        #expect(CardNumberRedaction.redact(text + ", 4111 1111 1111 1111") == text + ", •••• 1111")
    }

    @Test func shortNumbersBeforeACardNumberDoNotSwallowIt() {
        // Stretches may start only at a group of four or more digits.
        #expect(CardNumberRedaction.redact("qty 2 3 4111 1111 1111 1111") == "qty 2 3 •••• 1111")
        #expect(CardNumberRedaction.redact("1 1 1 1 4111 1111 1111 1111") == "1 1 1 1 •••• 1111")
    }

    @Test func aCallerMaySpareSomeCardNumbers() {
        let text = "cs_4111111111111111 paid with 4111 1111 1111 1111 737"
        let spared = CardNumberRedaction.redact(
            text,
            except: { run in
                run.range.lowerBound > text.startIndex && text[text.index(before: run.range.lowerBound)] == "_"
            })
        #expect(spared == "cs_4111111111111111 paid with •••• 1111 ••••")
    }

    @Test func aSecurityCodeAfterTheNumberIsNeitherTheLastFourNorInClear() throws {
        // The seed's test card 4111 1111 1111 1111 (Luhn by hand: doubled 4 gives 8, seven doubled
        // ones give 14, eight plain ones 8: 30) and the code 737 typed after it.
        for text in [
            "4111 1111 1111 1111 737", "4111-1111-1111-1111 737", "4111\u{2009}1111\u{2009}1111\u{2009}1111 737",
        ] {
            let redacted = CardNumberRedaction.redact(text)
            #expect(redacted == "•••• 1111 ••••")
            #expect(!redacted.contains("737"))
            let run = try #require(CardNumberRedaction.digitRuns(in: text).first)
            #expect(run.redacted == "•••• 1111 ••••")
            #expect(CardNumberRedaction.cardNumbers(in: text).map(\.masked) == ["•••• 1111"])
        }
    }

    /// The card-number-agreement fuzz finding (its input, crash-82ed314d): digits kept beside a masked
    /// number joined that mask's last four into a new number. Then only each number's last four is
    /// shown, between bullets.
    @Test func keptDigitsNeverJoinAMasksLastFour() {
        let text = "1 4111112 44 222442 2141 24224 4111 4242 4242 4424"
        let redacted = CardNumberRedaction.redact(text)
        #expect(!CardNumberRedaction.containsCardNumber(redacted))
        #expect(!redacted.contains("222442") && !redacted.contains("24224"))
    }

    @Test func aStricterRuleUsesTheSameScanner() {
        // Text the SDK did not write: every run of six or more digits.
        let foreign = CardNumberRedaction.redactDigitRuns(
            in: "order 123456789, code 12345", where: { $0.digitCount >= 6 })
        #expect(foreign == "order ••••, code 12345")
    }

    @Test func aRunNeverShowsItsDigits() {
        let run = CardNumberRedaction.digitRuns(in: "4111111111111111")[0]
        var dumped = ""
        dump(run, to: &dumped)
        for shown in [run.description, String(reflecting: run), dumped] {
            #expect(!shown.contains("411111"))
        }
    }
}
