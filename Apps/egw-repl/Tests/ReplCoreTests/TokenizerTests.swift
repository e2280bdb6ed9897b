import Testing

@testable import ReplCore

// Expected columns are counted by hand on the literal input strings (1-based).
@Suite struct TokenizerTests {
    @Test func splitsOnSpacesAndTabsKeepingColumns() throws {
        let tokens = try Tokenizer.tokenize("  card\tnumber   42 ")
        #expect(tokens.map(\.text) == ["card", "number", "42"])
        #expect(tokens.map(\.column) == [3, 8, 17])
        #expect(tokens.map(\.length) == [4, 6, 2])
    }

    @Test func quotesAndEscapes() throws {
        let tokens = try Tokenizer.tokenize(#"card name 'Ada  Lovelace' "say \"hi\"" a\ b"#)
        #expect(tokens.map(\.text) == ["card", "name", "Ada  Lovelace", #"say "hi""#, "a b"])
        // 'Ada  Lovelace' starts at column 11 and spans 15 raw characters.
        #expect(tokens[2].column == 11)
        #expect(tokens[2].length == 15)
        #expect(tokens[4].column == 40)
        #expect(tokens[4].length == 4)
    }

    @Test func doubleQuotesKeepOtherBackslashes() throws {
        let tokens = try Tokenizer.tokenize(#""a\nb""#)
        #expect(tokens.map(\.text) == [#"a\nb"#])
    }

    @Test func commentsAndBlankLines() throws {
        #expect(try Tokenizer.tokenize("").isEmpty)
        #expect(try Tokenizer.tokenize("   \t ").isEmpty)
        #expect(try Tokenizer.tokenize("# a comment 'with quote").isEmpty)
        #expect(try Tokenizer.tokenize("help # trailing").map(\.text) == ["help"])
        #expect(try Tokenizer.tokenize("order#1").map(\.text) == ["order#1"])
    }

    @Test func unterminatedQuoteReportsTheOpeningColumn() {
        #expect(throws: ReplError(.unterminatedQuote, "unterminated quote", column: 11, length: 4)) {
            try Tokenizer.tokenize("card name 'Ada")
        }
    }

    @Test func trailingBackslashIsAnError() {
        #expect(throws: ReplError(.danglingEscape, "a backslash ends the line", column: 6)) {
            try Tokenizer.tokenize("help \\")
        }
    }

    @Test func tolerantScanReportsWhetherTheLineEndsBetweenWords() {
        #expect(Tokenizer.scan("card ").endsBetweenWords)
        #expect(!Tokenizer.scan("card").endsBetweenWords)
        #expect(Tokenizer.scan("").endsBetweenWords)
        #expect(Tokenizer.scan("card 'x").unterminatedQuote?.column == 6)
    }
}
