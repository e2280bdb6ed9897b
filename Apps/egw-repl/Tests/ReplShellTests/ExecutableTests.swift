import Foundation
import Testing

/// The built `egw-repl` as a user runs it: flags, piped stdin, stdout, stderr, exit status.
@Suite struct ExecutableTests {
    @Test func versionAndHelpExitZero() throws {
        let version = try runExecutable(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "egw-repl 0.1.0\n")
        let help = try runExecutable(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("usage: egw-repl [options]"))
        #expect(help.stdout.contains("-q, --quiet"))
    }

    @Test(arguments: [["--bogus"], ["--timeout", "0"], ["--script", "/nonexistent/egw-script"], ["extra"]])
    func usageErrorsExit64(arguments: [String]) throws {
        let run = try runExecutable(arguments + ["--no-sandbox"])
        #expect(run.status == 64)  // sysexits(3) EX_USAGE
        #expect(run.stderr.hasPrefix("egw-repl: "))
        #expect(run.stdout.isEmpty)
    }

    @Test func aPipedScriptGoesOnPastAnErrorAndExitsOne() throws {
        let run = try runExecutable(["--no-sandbox"], input: "config set timeout 9\ncard frob\nconfig set timeout 8\n")
        #expect(run.status == 1)
        #expect(run.stdout == "timeout = 9s\ntimeout = 8s\n", "no prompt, no banner, no colour in a script")
        #expect(run.stderr.contains("line 2:6: error: unknown sub-command 'frob' for 'card'"))
    }

    @Test func bailStopsAtTheFirstFailure() throws {
        let run = try runExecutable(["--no-sandbox", "--bail"], input: "card frob\nconfig set timeout 8\n")
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
    }

    @Test func aCardPaymentThroughThePipeSucceeds() throws {
        let run = try runExecutable(
            ["-q"], input: "payment create\ncard test visa-frictionless\npay card\nresult --json\n")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""outcome":"succeeded""#))
        #expect(!run.stdout.contains("⇄"), "-q prints results only")
        #expect(!run.stdout.contains("4242424242424242") && !run.stdout.contains("4111111111111111"))
    }

    /// Issue 22: the SDK's errors speak the locale's language (LANG, as gettext reads it), from the same
    /// table as the GTK fields; the expected Latvian words are the table's, written out here.
    @Test func anSDKErrorIsInTheLocalesLanguage() throws {
        let input = "payment create\ncard test visa-frictionless\ncard expiry 01/20\npay card\nresult --json\n"
        let latvian = try runExecutable(["-q"], input: input, environment: ["LANG": "lv_LV.UTF-8"])
        #expect(latvian.stdout.contains(#""outcome":"failed""#), "\(latvian.stdout) \(latvian.stderr)")
        #expect(
            latvian.stdout.contains(
                "Kartes dati nav derīgi: Kartes derīguma termiņš ir beidzies. Palūdziet pircējam izlabot kartes datus."),
            "\(latvian.stdout)")
        let english = try runExecutable(["-q"], input: input, environment: ["LANG": "C.UTF-8"])
        #expect(english.stdout.contains("The card details are invalid: "), "\(english.stdout)")
        #expect(!english.stdout.contains("Kartes"))
    }
}
