import Testing

@testable import CardValidation

/// The one card-number grammar (README, "One grammar"): the number field, redaction and tools read the
/// same separators. The list below is written by hand from the Unicode tables (Zs, Pd) plus tab and
/// U+2212, not derived from the code under test.
@Suite struct GrammarTests {
    static let separators: [Unicode.Scalar] = [
        "\u{20}", "\u{09}", "\u{2D}", "\u{A0}", "\u{2000}", "\u{2001}", "\u{2002}", "\u{2003}", "\u{2004}",
        "\u{2005}", "\u{2006}", "\u{2007}", "\u{2008}", "\u{2009}", "\u{200A}", "\u{202F}", "\u{205F}",
        "\u{3000}", "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2015}", "\u{2212}",
        "\u{FE58}", "\u{FE63}", "\u{FF0D}",
    ]
    static let notSeparators: [Unicode.Scalar] = [
        "/", ".", "_", "\n", "\r", "\u{200B}", "\u{2060}", "\u{FEFF}", "+", "\u{301}",
    ]

    /// The seed's test card 4242 4242 4242 4242, written with `separator` between its groups.
    static func visa(_ separator: Unicode.Scalar) -> String {
        ["4242", "4242", "4242", "4242"].joined(separator: String(Character(separator)))
    }

    @Test(arguments: separators)
    func everySeparatorIsReadTheSameByParserAndRedaction(_ separator: Unicode.Scalar) {
        #expect(CardNumberGrammar.isSeparator(separator))
        let text = Self.visa(separator)
        #expect(CardNumber.digits(of: text) == "4242424242424242")
        #expect(CardBrand.detect(text) == .visa)
        let card = CardInput()
        card.cardNumber = text
        #expect(card.validationIssue(for: .cardNumber) == nil)
        #expect(CardNumberRedaction.redact("paid " + text + " ok") == "paid •••• 4242 ok")
    }

    @Test(arguments: notSeparators)
    func anythingElseEndsTheNumber(_ scalar: Unicode.Scalar) {
        #expect(!CardNumberGrammar.isSeparator(scalar))
        let text = Self.visa(scalar)
        #expect(CardNumber.digits(of: text) == nil)
        #expect(CardNumberRedaction.redact(text) == text)
    }
}
