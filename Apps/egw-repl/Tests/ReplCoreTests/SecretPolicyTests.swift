import Testing

@testable import ReplCore

// Card numbers are from the published sandbox test-card table (GATEWAY.md) and
// the classic Luhn example 79927398713 (Wikipedia, "Luhn algorithm").
@Suite struct SecretPolicyTests {
    /// An error that quotes what was typed masks a card number by the typed-text rule (12 or more
    /// digits, Luhn or not: 4111111111111112 fails Luhn and is still a mistyped card number), in its
    /// description and in both lines of its rendering.
    @Test func anErrorQuotingAMistypedNumberMasksIt() {
        let line = "pay card --amount4111111111111112"
        var caught: ReplError?
        do { _ = try CommandParser().parse(line) } catch { caught = error }
        guard let error = caught else {
            Issue.record("the line parsed")
            return
        }
        for shown in [error.description, error.rendered(line: line, lineNumber: 3)] {
            #expect(!shown.contains("4111111111111112"))
            // Not a card number, so no last four: its end may as well be a security code.
            #expect(!shown.contains("1112"))
            #expect(shown.contains("••••"))
        }
        #expect(SecretPolicy.maskTypedCardNumbers(in: "a 4111 1111 1111 1112 b 12345") == "a •••• b 12345")
    }

    @Test(arguments: [
        "card number 4111111111111111",
        "card number 4111 1111 1111 1111",
        "card number 4111-1111-1111-1111",
        "brand 378282246310005",
        "luhn 3782 822463 10005",
        "format 555555555555",  // twelve digits: the shortest card number
        "status 12345678901234567890123",  // longer than 19: still refused
        "card cvc 123",
        "CARD  CVC 9999",
        "card cvv 123",
        "card 4111",
        "card number 4111",
        "payment use p1 k3y",
        "buyer challenge 1234",
        // brand, luhn and format take the number as a secret argument (the command table says so).
        "luhn 79927398713",
        "",
        "   ",
    ])
    func linesNeverRecorded(line: String) {
        #expect(!SecretPolicy.shouldRecordInHistory(line))
    }

    /// At the buyer prompt of a challenge page a bare word is the challenge code (the sandbox's is 1234).
    @Test(arguments: ["1234", "close", "help"])
    func linesAnsweringAChallengeNeverRecorded(line: String) {
        #expect(!SecretPolicy.shouldRecordInHistory(line, answeringChallenge: true))
        #expect(SecretPolicy.shouldRecordInHistory(line, answeringChallenge: false))
    }

    @Test(arguments: [
        // Asking for a secret to be typed masked holds no secret itself.
        "help", "card number", "card cvc", "card test visa", "card name Ada Lovelace", "card expiry 12/30", "card show",
        "payment create 1250 EUR --order 12345678901", "pay card --step", "buyer hosted pay",
        "status pay_123", "sandbox fault jwks latency 2000",
    ])
    func ordinaryLinesRecorded(line: String) {
        #expect(SecretPolicy.shouldRecordInHistory(line))
    }

    /// Messages and SDK output: CardValidation's one rule (12-19 digits passing Luhn) and one form.
    @Test func masksCardNumbersByTheOneRule() {
        #expect(SecretPolicy.maskCardNumbers(in: "n=4111 1111 1111 1111.") == "n=•••• 1111.")
        #expect(SecretPolicy.maskCardNumbers(in: "378282246310005") == "•••• 0005")
        #expect(SecretPolicy.maskCardNumbers(in: "order 12345678901") == "order 12345678901")
        // 733037213230 fails Luhn (sum 46): an id, never half-masked.
        #expect(SecretPolicy.maskCardNumbers(in: "cs_733037213230d9e4") == "cs_733037213230d9e4")
        #expect(SecretPolicy.maskCardNumbers(in: "cs_b9b501d1d854bb718002") == "cs_b9b501d1d854bb718002")
        #expect(SecretPolicy.maskCardNumbers(in: "id 4111111111111112") == "id 4111111111111112")
        // One rule: a Luhn-valid run is a card number even inside an id.
        #expect(SecretPolicy.maskCardNumbers(in: "cs_4111111111111111") == "cs_•••• 1111")
        // A number followed by its code in one grouped run is still found (4242424242424242737 fails Luhn).
        // The code after it is masked too, never left in clear (issue 23).
        #expect(SecretPolicy.maskCardNumbers(in: "card 4242 4242 4242 4242 737") == "card •••• 4242 ••••")
    }

    /// Typed lines: any run of 12+ digits, Luhn or not; runs of separators count as one, and the
    /// separators are the SDK parser's (Unicode spaces and dashes, tab, U+2212).
    @Test(arguments: [
        "brand 4111  1111  1111  1112", "luhn 4111\t1111-1111 1112", "x 123456789012",
        "x 4242 \u{2013}4242 \u{2013}4242 \u{2013}4242", "x 4242\u{2212}4242\u{2212}4242\u{2212}4242",
        "x 4242\u{3000}\t4242\u{3000}\t4242\u{3000}\t4242", "x 4242\u{00A0}-4242\u{00A0}-4242\u{00A0}-4242",
    ])
    func typedCardNumbersStayOutOfHistory(line: String) {
        #expect(SecretPolicy.containsCardNumber(line))
        #expect(!SecretPolicy.shouldRecordInHistory(line))
    }

    @Test func redactsSecretWordsForDisplay() {
        #expect(SecretPolicy.redactedForDisplay("card cvc 123 45") == "card cvc ••• ••")
        #expect(SecretPolicy.redactedForDisplay("payment use p1 abc https://x") == "payment use p1 ••• https://x")
        #expect(SecretPolicy.redactedForDisplay("buyer challenge 1234") == "buyer challenge ••••")
        #expect(SecretPolicy.redactedForDisplay("card nmber 4111") == "card nmber ••••")
        #expect(SecretPolicy.redactedForDisplay("card name Ada") == "card name Ada")
        #expect(SecretPolicy.redactedForDisplay("card number 4111 x") == "card number •••• •")
        #expect(SecretPolicy.redactedForDisplay("pay card --step") == "pay card --step")
        // The one masked form, padded on the left with bullets to the number's width so the caret
        // line still lines up and the last four keep their right-hand neighbour (19 = 10 + 9).
        let line = "brand 5555 5555 5555 4444 x"
        #expect(SecretPolicy.redactedForDisplay(line) == "brand " + String(repeating: "•", count: 10) + "•••• 4444 •")
        #expect(SecretPolicy.redactedForDisplay(line).count == line.count)
        // A mistyped number the user typed is masked too.
        // (not a card number, so no last four: 16 bullets).
        #expect(
            SecretPolicy.redactedForDisplay("luhn 4111111111111112 y")
                == "luhn " + String(repeating: "•", count: 16) + " •")
        // Spaced out by hand: still one number (22 characters become 22 bullets).
        let spaced = "brand 4111  1111  1111  1112 x"
        #expect(SecretPolicy.redactedForDisplay(spaced) == "brand " + String(repeating: "•", count: 22) + " •")
        // A valid number spaced out by hand keeps its last four (22 = 13 + 9).
        let valid = "brand 4111  1111  1111  1111 x"
        #expect(SecretPolicy.redactedForDisplay(valid) == "brand " + String(repeating: "•", count: 13) + "•••• 1111 •")
        #expect(SecretPolicy.redactedForDisplay(spaced).count == spaced.count)
        // Short digit groups that do not add up to 12 digits stay.
        #expect(SecretPolicy.redactedForDisplay("card expiry 12 30") == "card expiry 12 30")
        // A run cut short by a mark the grammar does not join across, then more digits: the shown
        // last four must not join what follows into a new 12-digit run (the repl-line fuzz finding).
        let cut = "brand 444444444444888\u{0351}44444 x"
        #expect(SecretPolicy.containsCardNumber(cut))
        #expect(!SecretPolicy.containsCardNumber(SecretPolicy.redactedForDisplay(cut)))
        #expect(SecretPolicy.redactedForDisplay(cut).count == cut.count)
    }

    /// Issue 23: a security code typed after the number is not the last four, nor left in clear. The
    /// seed's test card 4111 1111 1111 1111 and the code 737: 23 characters, shown as 9 bullets and
    /// `•••• 1111 ••••` (14), never `•••• 1737`.
    @Test func aCodeAfterTheNumberIsNeverTheLastFour() {
        let line = "x 4111 1111 1111 1111 737"
        let shown = SecretPolicy.redactedForDisplay(line)
        #expect(shown == "x " + String(repeating: "•", count: 9) + "•••• 1111 ••••")
        #expect(!shown.contains("1737") && !shown.contains("737"))
        #expect(SecretPolicy.maskTypedCardNumbers(in: line) == "x •••• 1111 ••••")
        #expect(!SecretPolicy.shouldRecordInHistory(line))
    }

    @Test func maskedKeyNeverShowsTheKey() {
        #expect(!SecretPolicy.maskedKey("vk_live_abcdef").contains("abcdef"))
    }
}
