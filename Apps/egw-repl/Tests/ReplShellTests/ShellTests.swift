import Foundation
import ReplCore
import Testing

@testable import ReplShell

/// The shell as a function of its input lines (a fake line source, a clock that never
/// moves, output captured), on an in-process sandbox gateway.
@MainActor
@Suite struct ShellTests {
    /// Whole outputs, written by hand: the note `config set` prints (`KEY = VALUE`, seconds as `9s`),
    /// and each error as `line L:C: error: ...`, the line echoed two spaces in, a caret under the word
    /// (README "Scripts"); an unknown sub-command lists the family's words in the table's order.
    @Test func commandsRunAndErrorsPointAtTheInput() throws {
        let run = try runShell(["config set timeout 9", "card frob", "nope"])
        #expect(run.stdout == "timeout = 9s\n")
        // "card frob": the sub-command starts in column 6 (hand count: c=1 a=2 r=3 d=4 space=5 f=6).
        #expect(
            run.stderr == """
                line 2:6: error: unknown sub-command 'frob' for 'card' \
                (expected one of: number, name, expiry, cvc, test, show, check, clear)
                  card frob
                       ^^^^
                line 3:1: error: unknown command 'nope' (type help for the list)
                  nope
                  ^^^^

                """)
        #expect(run.status == 1, "a failed command in a script is exit status 1")
    }

    /// Each family's notes, whole: the tools (digits masked but the last four), the buyer's queue
    /// (codes masked). Written by hand from the README's commands table and Getting started.
    @Test func toolAndBuyerNotesAreWholeLines() throws {
        let run = try runShell([
            "luhn 4242424242424242", "brand 5555555555554444", "format 378282246310005", "buyer hosted pay",
            "buyer challenge 1234", "buyer show", "buyer clear", "buyer show",
        ])
        #expect(
            run.stdout == """
                Luhn valid (16 digits)
                Mastercard (mastercard, raw value 2)
                •••• 0005  (American Express grouping 4-6-5)
                Buyer will: hosted pay (1 queued).
                Buyer will: challenge •••• (2 queued).
                  1. hosted pay
                  2. challenge ••••
                Buyer actions cleared.
                No buyer actions queued: pages will be closed.

                """)
        #expect(run.stderr == "")
        #expect(run.status == 0)
    }

    /// Issue 23: a card number with the separators the SDK's parser accepts (Unicode spaces and dashes,
    /// tab, U+2212) is neither echoed nor kept in the history, by the shell itself on a fake line source.
    /// The seed's test card 4242 4242 4242 4242 (Luhn by hand: eight doubled 4s give 64, eight 2s 16: 80).
    @Test(arguments: [
        "4242\u{2212}4242\u{2212}4242\u{2212}4242", "4242 \u{2013}4242 \u{2013}4242 \u{2013}4242",
        "4242\u{3000}\t4242\u{3000}\t4242\u{3000}\t4242", "4242\u{FF0D}4242\u{00A0}4242\u{202F}4242",
    ])
    func aUnicodeSeparatedNumberIsNeitherEchoedNorKept(number: String) throws {
        let lines = ["config set timeout " + number, "card nmber " + number, number, "config"]
        let source = FakeLineSource(lines)
        let run = try runShell(source: source)
        #expect(source.remembered == ["config"])
        for output in [run.stdout, run.stderr] {
            #expect(!output.contains(number))
            // No group of the number in what the shell wrote, except as the masked form's last four.
            #expect(!output.replacingOccurrences(of: "•••• 4242", with: "").contains("4242"))
        }
        #expect(run.stderr.contains("••••"), "the echoed lines show the mask")
    }

    @Test func aBadSettingIsAnErrorNotAFallback() throws {
        let run = try runShell(["config set log-level chatty", "config set timeout soon", "config"])
        // The log levels in CommandTable.logLevels' order; a timeout is 0...600 seconds.
        #expect(
            run.stderr == """
                line 1:22: error: log-level must be one of: off, error, warning, info, debug
                  config set log-level chatty
                                       ^^^^^^
                line 2:20: error: timeout must be a number of seconds from 0 to 600
                  config set timeout soon
                                     ^^^^

                """)
        #expect(run.stdout.contains("log-level"))
        #expect(run.stdout.contains("warning"), "the setting kept its value")
    }

    @Test func aChallengedCardPaymentStepByStep() throws {
        let lines =
            ["payment create", "card test mastercard-challenge", "buyer challenge 1234", "pay card --step"]
            + Array(repeating: "step", count: 12) + ["result --json"]
        let run = try runShell(lines)
        let pauses = run.stdout.split(separator: "\n").filter { $0.hasPrefix("⏸ step ") }
        // The card machine pauses before each action: key, encryption, session, authentication,
        // challenge page, dismissal, challenge result (GATEWAY.md's card flow).
        #expect(pauses.count == 7)
        #expect(pauses.first?.contains("GET jwks.json") == true)
        #expect(pauses.last?.contains("POST challenge-result") == true)
        #expect(run.stdout.contains(#""outcome":"succeeded""#))
        #expect(run.stderr.contains("no payment is running"), "steps after the end are errors")
        #expect(!run.stdout.contains("5555555555554444") && !run.stdout.contains("5555 5555 5555 4444"))
    }

    @Test func aPersonAtTheTerminalIsAskedForTheChallengeCode() throws {
        let run = try runShell(
            ["payment create", "card test mastercard-challenge", "pay card", "1234", "result --json"],
            interactive: true)
        #expect(run.stdout.contains("? The issuer's 3-D Secure challenge page is open."))
        #expect(run.stdout.contains("buyer: challenge code ••••"))
        #expect(run.stdout.contains(#""outcome":"succeeded""#))
        #expect(!run.stdout.contains("1234\n"), "the code typed is never echoed")
    }

    /// Issue 18: an in-doubt ending says what to do on a line of its own, and `result --json` carries
    /// the error's code and the advice.
    @Test func anInDoubtEndingShowsTheAdvice() throws {
        let run = try runShell([
            "payment create", "card test visa-frictionless", "sandbox fault authentication status 503 --times 2",
            "pay card", "result --json",
        ])
        #expect(run.stdout.contains("● unresolved"))
        #expect(run.stdout.contains("advice: The payment may have gone through: ask your backend"))
        #expect(run.stdout.contains(#""outcome":"unresolved""#))
        #expect(run.stdout.contains(#""code":10"#) || run.stdout.contains(#""code":4"#))
        #expect(run.stdout.contains(#""advice":"The payment may have gone through"#))
        #expect(!run.stdout.contains("4111111111111111"))
    }

    @Test func aScriptWithNoBuyerActionClosesThePage() throws {
        let run = try runShell(["payment create", "pay hosted", "result --json"])
        #expect(run.stdout.contains("no buyer action scripted"))
        #expect(run.stdout.contains(#""outcome":"cancelled""#))
    }

    /// `--json` lines are EGWWire's compact writer's bytes with the members in the order the command lists
    /// them (expected lines written by hand: a client may read the first member, as Tests/Interop reads
    /// `{"outcome"`). Numbers are integers.
    @Test func jsonLinesAreCompactWithTheirMembersInOrder() throws {
        let run = try runShell(["luhn 4242424242424242", "brand 5555555555554444"], arguments: ["--json"])
        #expect(
            run.stdout.split(separator: "\n") == [
                #"{"luhnValid":true,"digits":16}"#, #"{"brand":"mastercard","displayName":"Mastercard","rawValue":2}"#,
            ])
    }

    @Test func withJSONEveryLineIsOneObject() throws {
        let run = try runShell(
            [
                "payment create", "card test mastercard-challenge", "buyer challenge 1234", "pay card --step", "step",
                "continue", "buyer hosted pay", "payment create", "pay hosted", "config set timeout 9",
            ], arguments: ["--json"])
        let objects = run.jsonLines
        #expect(!objects.isEmpty)
        #expect(objects.allSatisfy { $0 != nil }, "every stdout line is a JSON object")
        let events = Set(objects.compactMap { $0?["event"] as? String })
        for kind in ["started", "transition", "http", "step", "cardEncrypted", "buyer"] {
            #expect(events.contains(kind), "\(kind) events are reported")
        }
        let outcomes = objects.compactMap { $0?["outcome"] as? String }
        #expect(outcomes == ["succeeded", "succeeded"])
        let http = objects.compactMap { $0 }.filter { $0["event"] as? String == "http" }
        #expect(http.allSatisfy { $0["milliseconds"] is Int })
        #expect(http.allSatisfy { $0["jweHeader"] == nil }, "bodies and JWE headers only with -v")
    }

    @Test(arguments: [
        ([String](), true, false), (["-v"], true, true), (["-q"], false, false),
    ])
    func outputLevels(arguments: [String], showsExchanges: Bool, showsBodies: Bool) throws {
        let run = try runShell(
            ["payment create", "card test visa-frictionless", "pay card"], arguments: arguments)
        #expect(run.stdout.contains("⇄ POST ") == showsExchanges)
        #expect(run.stdout.contains(#"JWE header {"alg":"RSA-OAEP-256","enc":"A256GCM","kid":"#) == showsBodies)
        #expect(run.stdout.contains("response  {") == showsBodies)
        #expect(run.stdout.contains("● succeeded"), "the result shows at every level")
    }

    @Test func verboseIsASetting() throws {
        let run = try runShell([
            "payment create", "card test visa-frictionless", "config set verbose on", "pay card",
        ])
        #expect(run.stdout.contains("verbose = on"))
        #expect(run.stdout.contains("JWE header {"))
        // -v shows the full URL, the default the path only.
        #expect(run.stdout.contains("⇄ GET http://127.0.0.1:"))
        // Response bodies hold session ids (`cs_` and hex): shown whole, never half-masked.
        #expect(run.stdout.contains(#"response  {"sessionId":"cs_"#))
        #expect(run.stdout.range(of: #"[0-9a-z]••••"#, options: .regularExpression) == nil)
    }

    @Test func aDefaultExchangeIsOneLineWithMethodPathStatusAndTime() throws {
        let run = try runShell(["payment create", "card test visa-frictionless", "pay card"])
        let exchanges = run.stdout.split(separator: "\n").filter { $0.hasPrefix("  ⇄ ") }
        #expect(exchanges.count == 3)
        #expect(
            exchanges.first?.hasPrefix("  ⇄ GET /gateway-checkout/checkout/.well-known/jwks.json → 200 in ") == true)
        #expect(exchanges.allSatisfy { $0.hasSuffix(" ms") })
    }

    /// The request lines `sandbox log` printed (`  METHOD /path -> status (N ms)`).
    private func sandboxLog(_ stdout: String) -> [Substring] {
        stdout.split(separator: "\n").filter {
            ($0.hasPrefix("  GET /") || $0.hasPrefix("  POST /")) && $0.contains(" -> ")
        }
    }

    @Test func aSecondCardPaymentInASessionMakesTwoRequests() throws {
        sharedSandbox.clearRequestLog()
        let run = try runShell([
            "payment create", "card test visa-frictionless", "pay card", "payment create", "pay card",
            "config set verbose on", "payment create", "pay card", "sandbox log",
        ])
        let log = sandboxLog(run.stdout)
        // GATEWAY.md's frictionless card flow: the key (once per kit), the session, the authentication.
        // One kit for the session: the first payment makes 3 requests, each later one 2; verbosity
        // is not something the kit depends on, so changing it keeps the kit and its key.
        #expect(log.count == 3 + 2 + 2, "\(log)")
        #expect(log.filter { $0.contains("jwks.json") }.count == 1)
        #expect(log.first?.contains("GET /gateway-checkout/checkout/.well-known/jwks.json -> 200") == true)
    }

    @Test func changingWhatTheKitDependsOnRebuildsIt() throws {
        sharedSandbox.clearRequestLog()
        let run = try runShell([
            "payment create", "card test visa-frictionless", "pay card", "config set timeout 12", "payment create",
            "pay card", "sandbox log",
        ])
        let log = sandboxLog(run.stdout)
        #expect(log.filter { $0.contains("jwks.json") }.count == 2, "a new kit fetches the key again: \(log)")
        #expect(log.count == 3 + 3)
    }

    @Test func statusAsksTheSDK() throws {
        let run = try runShell(["buyer hosted pay", "payment create", "pay hosted", "status", "status pay_unknown"])
        #expect(run.stdout.contains(": SETTLED → outcome succeeded, order ORDER-"))
        #expect(run.stderr.contains("line 5: error: the verification key of pay_unknown is unknown"))
    }

    /// Issue 34: a security code typed after the number never shows as the mask's last four, in the
    /// shell's note, `card show` (table and JSON) or `format` (it once showed `•••• 1737`).
    @Test func aCodeTypedAfterTheNumberIsNotTheMasksLastFour() throws {
        let number = "4111 1111 1111 1111 737"
        let lines = ["card number " + number, "card show", "format " + number]
        let run = try runShell(lines)
        let json = try runShell(lines, arguments: ["--json"])
        let output = run.stdout + run.stderr + json.stdout + json.stderr
        #expect(!output.contains("1737"), "\(output)")
        #expect(!output.contains("737"))
        #expect(output.contains("Card number •••• ("), "\(output)")
    }
}
