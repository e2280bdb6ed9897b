import Testing

@testable import ReplCore

@Suite struct ParserTests {
    let parser = CommandParser()

    static let valid: [(String, Command)] = [
        ("help", .help(topic: [])),
        ("HELP Card CVC", .help(topic: ["card", "cvc"])),
        ("quit", .quit),
        ("exit", .quit),
        ("config", .config(.show)),
        ("config set timeout 2.5", .config(.set(key: .timeout, value: "2.5"))),
        (
            "config set api-base-url http://127.0.0.1:8080/x",
            .config(.set(key: .apiBaseURL, value: "http://127.0.0.1:8080/x"))
        ),
        ("config set log-level DEBUG", .config(.set(key: .logLevel, value: "DEBUG"))),
        ("payment create", .payment(.create(amount: nil, currency: nil, orderNumber: nil))),
        ("payment create 990 usd --order A-17", .payment(.create(amount: 990, currency: "USD", orderNumber: "A-17"))),
        ("payment create --order=7 100", .payment(.create(amount: 100, currency: nil, orderNumber: "7"))),
        ("payment use p1 k1", .payment(.use(paymentId: "p1", verificationKey: "k1", checkoutURL: nil, returnURL: nil))),
        (
            "payment use p1 k1 https://pay.example/c https://shop.example/r",
            .payment(
                .use(
                    paymentId: "p1", verificationKey: "k1", checkoutURL: "https://pay.example/c",
                    returnURL: "https://shop.example/r"))
        ),
        ("payment show", .payment(.show)),
        ("card number", .card(.number(nil))),
        ("card number 4111 1111 1111 1111", .card(.number("4111 1111 1111 1111"))),
        ("card name Ada Lovelace", .card(.name("Ada Lovelace"))),
        ("card name 'Ada  Lovelace'", .card(.name("Ada  Lovelace"))),
        ("card expiry 12/30", .card(.expiry(month: "12", year: "30"))),
        ("card expiry 1/2031", .card(.expiry(month: "01", year: "31"))),
        ("card expiry 0729", .card(.expiry(month: "07", year: "29"))),
        ("card cvc", .card(.securityCode(nil))),
        ("card cvc 123", .card(.securityCode("123"))),
        ("card cvc 1234", .card(.securityCode("1234"))),
        ("card test Visa", .card(.test(name: "visa"))),
        ("card show", .card(.show)),
        ("card check", .card(.check)),
        ("card clear", .card(.clear)),
        ("buyer hosted PAY", .buyer(.hosted(.pay))),
        ("buyer hosted pending", .buyer(.hosted(.pending))),
        ("buyer challenge 1234", .buyer(.challenge(code: "1234"))),
        ("buyer close", .buyer(.close)),
        ("buyer show", .buyer(.show)),
        ("buyer clear", .buyer(.clear)),
        ("pay card", .pay(.card(step: false))),
        ("pay card --step", .pay(.card(step: true))),
        ("pay hosted", .pay(.hosted(method: nil, step: false))),
        ("pay hosted --method click-to-pay --step", .pay(.hosted(method: "click-to-pay", step: true))),
        ("pay hosted --step --method=BANK", .pay(.hosted(method: "bank", step: true))),
        ("step", .pay(.step)),
        ("continue", .pay(.continue)),
        ("cancel", .pay(.cancel)),
        ("result", .pay(.result(json: false))),
        ("result --json", .pay(.result(json: true))),
        ("status", .pay(.status(paymentId: nil))),
        ("status p9", .pay(.status(paymentId: "p9"))),
        ("brand 4111 11", .tool(.brand("4111 11"))),
        ("luhn 79927398713", .tool(.luhn("79927398713"))),
        ("format 378282246310005", .tool(.format("378282246310005"))),
        ("jwe header a.b.c.d.e", .tool(.jweHeader("a.b.c.d.e"))),
        ("sandbox cards", .sandbox(.cards(numbers: false))),
        ("sandbox cards --numbers", .sandbox(.cards(numbers: true))),
        (
            "sandbox fault card-session-create status 503",
            .sandbox(
                .fault(endpoint: "card-session-create", kind: "status", argument: 503, times: nil, probability: nil))
        ),
        (
            "sandbox fault jwks latency 200 --times 3",
            .sandbox(.fault(endpoint: "jwks", kind: "latency", argument: 200, times: 3, probability: nil))
        ),
        (
            "sandbox fault authentication drop --probability 0.5",
            .sandbox(.fault(endpoint: "authentication", kind: "drop", argument: nil, times: nil, probability: 0.5))
        ),
        (
            "sandbox fault any status-no-body 502",
            .sandbox(.fault(endpoint: "any", kind: "status-no-body", argument: 502, times: nil, probability: nil))
        ),
        ("sandbox faults", .sandbox(.faults)),
        ("sandbox faults clear", .sandbox(.faultsClear)),
        ("sandbox log", .sandbox(.log)),
        ("sandbox pages js", .sandbox(.pages("js"))),
        ("sandbox pages HTML", .sandbox(.pages("html"))),
        ("  pay   card   --step  # go", .pay(.card(step: true))),
    ]

    @Test(arguments: valid)
    func parsesEveryCommandForm(line: String, expected: Command) throws {
        #expect(try parser.parse(line) == expected)
    }

    @Test func blankAndCommentLinesAreNotCommands() throws {
        #expect(try parser.parse("") == nil)
        #expect(try parser.parse("   # nothing") == nil)
    }

    struct Bad: Sendable, CustomStringConvertible {
        var line: String
        var code: ReplError.Code
        var column: Int
        var length: Int
        var description: String { line }
    }

    // Columns counted by hand; a missing word is reported just past the end of the line.
    static let invalid: [Bad] = [
        Bad(line: "frobnicate", code: .unknownCommand, column: 1, length: 10),
        Bad(line: "  crad show", code: .unknownCommand, column: 3, length: 4),
        Bad(line: "card", code: .missingSubcommand, column: 5, length: 1),
        Bad(line: "card frob", code: .unknownSubcommand, column: 6, length: 4),
        Bad(line: "card expiry", code: .missingArgument, column: 12, length: 1),
        Bad(line: "card expiry 13/30", code: .invalidValue, column: 13, length: 5),
        Bad(line: "card expiry soon", code: .invalidValue, column: 13, length: 4),
        Bad(line: "card cvc 12", code: .invalidValue, column: 10, length: 2),
        Bad(line: "card cvc 12a4", code: .invalidValue, column: 10, length: 4),
        Bad(line: "card cvc 123 456", code: .unexpectedArgument, column: 14, length: 3),
        Bad(line: "payment create ten", code: .invalidValue, column: 16, length: 3),
        Bad(line: "payment create 100 EURO", code: .invalidValue, column: 20, length: 4),
        Bad(line: "payment create --order", code: .missingFlagValue, column: 23, length: 1),
        Bad(line: "payment create --ordr 5", code: .unknownFlag, column: 16, length: 6),
        Bad(line: "payment use p1", code: .missingArgument, column: 15, length: 1),
        Bad(line: "payment use p1 k1 https://a.example/c", code: .missingArgument, column: 38, length: 1),
        Bad(line: "payment use p1 k1 ftp://a/c https://b/r", code: .invalidValue, column: 19, length: 9),
        Bad(line: "pay hosted --method cash", code: .invalidValue, column: 21, length: 4),
        Bad(line: "pay card --step=yes", code: .invalidValue, column: 10, length: 10),
        Bad(line: "pay", code: .missingSubcommand, column: 4, length: 1),
        Bad(line: "buyer hosted maybe", code: .invalidValue, column: 14, length: 5),
        Bad(line: "result --xml", code: .unknownFlag, column: 8, length: 5),
        Bad(line: "quit now", code: .unexpectedArgument, column: 6, length: 3),
        Bad(line: "config set colour on", code: .invalidValue, column: 12, length: 6),
        Bad(line: "config set timeout -1", code: .invalidValue, column: 20, length: 2),
        Bad(line: "config set environment prod", code: .invalidValue, column: 24, length: 4),
        Bad(line: "config set checkout-base-url localhost", code: .invalidValue, column: 30, length: 9),
        Bad(line: "sandbox fault jwks status", code: .missingArgument, column: 26, length: 1),
        Bad(line: "sandbox fault jwks status 42", code: .invalidValue, column: 27, length: 2),
        Bad(line: "sandbox fault jwks drop 1", code: .unexpectedArgument, column: 25, length: 1),
        Bad(line: "sandbox fault moon drop", code: .invalidValue, column: 15, length: 4),
        Bad(line: "sandbox fault jwks drop --times 0", code: .invalidValue, column: 33, length: 1),
        Bad(line: "sandbox fault jwks drop --probability 2", code: .invalidValue, column: 39, length: 1),
        Bad(line: "sandbox fault jwks drop --times 2 --probability 0.1", code: .invalidValue, column: 49, length: 3),
        Bad(line: "help 'card", code: .unterminatedQuote, column: 6, length: 5),
    ]

    @Test(arguments: invalid)
    func reportsErrorsAtTheirPosition(bad: Bad) {
        do {
            _ = try parser.parse(bad.line)
            Issue.record("expected an error for \(bad.line)")
        } catch {
            #expect(error.code == bad.code)
            #expect(error.column == bad.column)
            #expect(error.length == bad.length)
        }
    }

    @Test func suggestsTheClosestCommand() {
        do {
            _ = try parser.parse("resutl")
            Issue.record("expected an error")
        } catch {
            #expect(error.message == "unknown command 'resutl' (did you mean 'result'?)")
        }
    }

    @Test func errorMessagesNeverQuoteSecrets() {
        let lines = [
            "card cvc 123 456", "4111111111111111", "card 123", "brand", "card cvv 1234",
            "payment use p1 SECRETKEY extra", "card number 4111 1111 1111 1111 --x",
            // A secret typed so that it reads as a flag.
            "card cvc --123", "payment use p1 --SECRETKEY", "buyer challenge --123",
        ]
        for line in lines {
            do {
                _ = try parser.parse(line)
            } catch {
                let rendered = error.rendered(line: line, lineNumber: 1)
                #expect(!rendered.contains("4111 1111 1111"), "\(rendered)")
                #expect(!rendered.contains("4111111111111111"), "\(rendered)")
                #expect(!rendered.contains("123"), "\(rendered)")
                #expect(!rendered.contains("SECRETKEY"), "\(rendered)")
            }
        }
    }

    @Test func renderedErrorHasLineColumnAndCaret() {
        do {
            _ = try parser.parse("card frob")
            Issue.record("expected an error")
        } catch {
            let expected = """
                line 3:6: error: unknown sub-command 'frob' for 'card' (expected one of: number, name, expiry, cvc, \
                test, show, check, clear)
                  card frob
                       ^^^^
                """
            #expect(error.rendered(line: "card frob", lineNumber: 3) == expected)
        }
    }

    @Test func runtimeErrorsRenderWithTheLineOnly() {
        let error = ReplError(.commandFailed, "the gateway said no")
        #expect(error.rendered(line: "pay card", lineNumber: 7) == "line 7: error: the gateway said no")
    }

    @Test func interpreterNumbersLines() {
        let steps = Interpreter.interpret(["help", "", "card frob", "quit"])
        #expect(steps.map(\.line) == [1, 2, 3, 4])
        #expect(steps[0].step == .command(.help(topic: [])))
        #expect(steps[1].step == .blank)
        guard case .error(let error) = steps[2].step else {
            Issue.record("line 3 should be an error")
            return
        }
        #expect(error.code == .unknownSubcommand)
        #expect(steps[3].step == .command(.quit))
    }
}

/// `config set challenge-timeout` / `hosted-timeout`: positive seconds, at most a day.
@Suite struct DeadlineConfigTests {
    @Test(arguments: ["challenge-timeout", "hosted-timeout"])
    func deadlinesTakePositiveSeconds(key: String) throws {
        let parser = CommandParser()
        let accepted = try parser.parse("config set \(key) 3")
        #expect(accepted == .config(.set(key: try #require(ConfigKey(rawValue: key)), value: "3")))
        for bad in ["0", "-1", "abc", "86401"] {
            #expect(throws: ReplError.self) { try parser.parse("config set \(key) \(bad)") }
        }
    }
}
