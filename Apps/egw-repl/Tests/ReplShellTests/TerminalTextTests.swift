import Foundation
import HeadlessBrowser
import ReplCore
import Synchronization
import Testing

@testable import ReplShell

/// Third-party text reaches the terminal inert: controls and bidi characters shown as visible escapes.
@MainActor
@Suite struct TerminalTextTests {
    @Test func everyControlAndBidiCharacterIsShownAsAnEscape() {
        #expect(TerminalText.escaped("plain é € 😀 \\ ~") == "plain é € 😀 \\ ~")
        #expect(TerminalText.escaped("\u{1B}[2J\u{07}\u{0}\n\t\u{7F}") == #"\u001b[2J\u0007\u0000\u000a\u0009\u007f"#)
        #expect(TerminalText.escaped("\u{9B}31m\u{85}\u{9F}") == #"\u009b31m\u0085\u009f"#)
        #expect(
            TerminalText.escaped("abc\u{202E}fed \u{2066}x\u{2069} \u{202A}\u{202B}\u{202C}\u{202D}\u{2067}\u{2068}")
                == #"abc\u202efed \u2066x\u2069 \u202a\u202b\u202c\u202d\u2067\u2068"#)
        #expect(TerminalText.escaped("\u{2028}\u{2029}") == #"\u2028\u2029"#)
    }

    /// A shell as `runShell` builds it, not run; `output()` is what it has written to stdout.
    func shell(_ arguments: [String]) throws -> (Shell, () -> String) {
        guard case .run(let options) = try Options.parse(arguments: arguments, environment: [:]) else {
            throw ReplError(.usage, "not a run")
        }
        let out = Mutex("")
        let sink = OutputSink { text, stream in
            if stream == .out { out.withLock { $0 += text } }
        }
        let shell = try Shell(
            options: options, source: FakeLineSource([]),
            console: Console(usesColor: false, isTerminal: false, sink: sink),
            interrupts: Interrupts(exitsWhenIdle: false), sandbox: nil, clock: ShellClock { 0 },
            events: .privateQueue())
        return (shell, { out.withLock { $0 } })
    }

    /// An issuer page titled with an OSC window-title sequence, a screen clear and a right-to-left override.
    static let hostileTitle = "Pay \u{1B}]0;owned\u{07}\u{1B}[2J now \u{202E}lla"
    static let page = LoadedPage(
        url: URL(string: "https://acs.example/challenge")!, status: 200,
        html: "<html><head><title>\(hostileTitle)</title></head><body><p>x</p></body></html>")

    @Test func anEscapeSequenceInAPageTitleIsPrintedInert() throws {
        #expect(Self.page.title == Self.hostileTitle, "the page keeps the title as sent")
        let (shell, output) = try shell([])
        shell.show(.browser(.loaded(Self.page)))
        #expect(output() == "  ▢ page loaded: other “Pay \\u001b]0;owned\\u0007\\u001b[2J now \\u202ella” (200)\n")
    }

    /// In JSON output the writer escapes the same characters: the value is the title as sent, the line inert.
    @Test func anEscapeSequenceInAPageTitleIsInertInJSONToo() throws {
        let (shell, output) = try shell(["--json"])
        shell.show(.browser(.loaded(Self.page)))
        let line = output()
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x202E })
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["what"] as? String == "page loaded: other “\(Self.hostileTitle)” (200)")
    }
}
