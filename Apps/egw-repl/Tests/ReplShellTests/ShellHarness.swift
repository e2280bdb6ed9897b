import Foundation
import GatewaySandbox
import ReplCore
import Synchronization

@testable import ReplShell

/// Lines handed to the shell one by one, as a script or as a person at a terminal would.
@MainActor
final class FakeLineSource: LineSource {
    private var lines: [String]
    let isInteractive: Bool
    /// Lines the shell asked to keep in its history.
    private(set) var remembered: [String] = []
    /// The prompts it showed (interactive only).
    private(set) var prompts: [String] = []

    init(_ lines: [String], interactive: Bool = false) {
        self.lines = lines
        self.isInteractive = interactive
    }

    func readLine(prompt: String) -> String? {
        prompts.append(prompt)
        return lines.isEmpty ? nil : lines.removeFirst()
    }

    func pollLine() -> PolledInput {
        lines.isEmpty ? .endOfInput : .line(lines.removeFirst())
    }

    func watchInput(_ watching: Bool) {}

    func remember(_ line: String) {
        if SecretPolicy.shouldRecordInHistory(line) {
            remembered.append(line)
        }
    }

    func close() {}
}

/// What a shell run wrote, and how it ended.
struct ShellTranscript {
    var stdout: String
    var stderr: String
    var status: Int32

    /// Every stdout line, parsed as a JSON object (nil for a line that is not one).
    var jsonLines: [[String: Any]?] {
        stdout.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }
}

/// One sandbox for every test in the process: starting one generates an RSA key.
let sharedSandbox: Sandbox = {
    switch EmbeddedSandbox.start(environment: ["EGW_SANDBOX_KEY": "none"]) {
    case .success(let sandbox): return sandbox
    case .failure(let error): fatalError("the test sandbox did not start: \(error)")
    }
}()

/// Runs the shell over `lines` with `arguments` as its flags, on the shared sandbox
/// (unless `sandbox: false`), with a clock that never moves.
@MainActor
func runShell(
    _ lines: [String] = [], arguments: [String] = [], interactive: Bool = false, sandbox: Bool = true,
    source: FakeLineSource? = nil
) throws -> ShellTranscript {
    guard case .run(let options) = try Options.parse(arguments: arguments, environment: [:]) else {
        throw ReplError(.usage, "not a run")
    }
    let out = Mutex("")
    let err = Mutex("")
    let sink = OutputSink { text, stream in
        switch stream {
        case .out: out.withLock { $0 += text }
        case .err: err.withLock { $0 += text }
        }
    }
    let shell = try Shell(
        options: options, source: source ?? FakeLineSource(lines, interactive: interactive),
        console: Console(usesColor: false, isTerminal: false, sink: sink),
        interrupts: Interrupts(exitsWhenIdle: false), sandbox: sandbox ? sharedSandbox : nil,
        clock: ShellClock { 0 }, events: .privateQueue())
    let status = shell.run()
    return ShellTranscript(stdout: out.withLock { $0 }, stderr: err.withLock { $0 }, status: status)
}
