import Testing

@testable import ReplCore

// Expected candidates are written from the command table in the issue text
// (commands, sub-commands, flags and their values), not from running the completer.
@Suite struct CompletionTests {
    let completer = Completer(context: CompletionContext(testCardNames: ["visa", "visa-attempted", "mastercard"]))

    @Test(arguments: [
        (
            "",
            [
                "help", "config", "payment", "card", "buyer", "pay", "step", "continue", "cancel", "result", "status",
                "brand", "luhn", "format", "jwe", "sandbox", "wallet", "sheet", "merchant", "quit", "exit",
            ]
        ),
        ("c", ["config", "card", "continue", "cancel"]),
        ("ca", ["card", "cancel"]),
        ("CAR", ["card"]),
        ("card ", ["number", "name", "expiry", "cvc", "test", "show", "check", "clear"]),
        ("card n", ["number", "name"]),
        ("card test ", ["visa", "visa-attempted", "mastercard"]),
        ("card test vis", ["visa", "visa-attempted"]),
        ("card test visa ", []),
        ("pay ", ["card", "hosted"]),
        ("pay card ", ["--step"]),
        ("pay card --", ["--step"]),
        ("pay card --step ", []),
        ("pay hosted ", ["--method", "--step"]),
        ("pay hosted --method ", ["card", "bank", "click-to-pay"]),
        ("pay hosted --method c", ["card", "click-to-pay"]),
        ("pay hosted --method bank ", ["--step"]),
        ("pay hosted --step --", ["--method"]),
        ("buyer hosted ", ["pay", "decline", "cancel", "abandon", "pending"]),
        ("buyer hosted pay ", []),
        ("config ", ["set"]),
        (
            "config set ",
            [
                "api-base-url", "checkout-api-base-url", "checkout-base-url", "merchant-base-url",
                "environment", "timeout", "challenge-timeout", "hosted-timeout", "log-level", "verbose",
            ]
        ),
        ("config set check", ["checkout-api-base-url", "checkout-base-url"]),
        ("payment create ", ["--order"]),
        ("payment create 100 EUR --order ", []),
        ("result ", ["--json"]),
        (
            "sandbox fault ",
            [
                "status", "jwks", "card-session-create", "card-session-get", "authentication", "challenge-result",
                "hosted-page", "hosted-choice", "acs-challenge", "acs-submit", "notification", "acs-method",
                "method-notification", "merchant-payments", "any",
            ]
        ),
        ("sandbox fault card-session-c", ["card-session-create"]),
        (
            "sandbox fault jwks ",
            ["latency", "status", "status-no-body", "malformed", "truncated", "drop", "rotate-key"]
        ),
        ("sandbox fault jwks drop ", ["--times", "--probability"]),
        ("sandbox fault jwks --", ["--times", "--probability"]),
        ("sandbox cards ", ["--numbers"]),
        ("sandbox faults ", ["clear"]),
        (
            "help ",
            [
                "help", "config", "payment", "card", "buyer", "pay", "step", "continue", "cancel", "result", "status",
                "brand", "luhn", "format", "jwe", "sandbox", "wallet", "sheet", "merchant", "quit", "exit",
            ]
        ),
        ("help card c", ["cvc", "check", "clear"]),
        ("help pay ", ["card", "hosted"]),
        ("frob ", []),
        ("card frob ", []),
        ("card name 'Ada", []),
    ])
    func candidates(prefix: String, expected: [String]) {
        #expect(completer.candidates(forLineUpToCursor: prefix) == expected)
    }

    @Test func commonPrefix() {
        #expect(Completer.commonPrefix(of: ["checkout-api-base-url", "checkout-base-url"]) == "checkout-")
        #expect(Completer.commonPrefix(of: ["card"]) == "card")
        #expect(Completer.commonPrefix(of: ["card", "bank"]) == "")
        #expect(Completer.commonPrefix(of: []) == "")
    }

    @Test func everyCompletedCommandParses() throws {
        // Whatever completion offers after a command path must be accepted by the parser.
        let parser = CommandParser()
        for command in completer.candidates(forLineUpToCursor: "") {
            let subs = completer.candidates(forLineUpToCursor: command + " ")
            guard let spec = CommandTable.standard.command(command), !spec.subcommands.isEmpty else {
                continue
            }
            for sub in subs {
                do {
                    _ = try parser.match("\(command) \(sub)")
                } catch {
                    #expect(error.code != .unknownSubcommand, "\(command) \(sub)")
                }
            }
        }
    }
}
