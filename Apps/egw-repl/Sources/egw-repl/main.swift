// egw-repl: an interactive shell for the EGWPay SDK on an embedded sandbox gateway.
import GatewaySandbox
import ReplCore

#if canImport(Glibc)
import Glibc
#endif

/// sysexits(3) EX_USAGE.
let exitUsage: Int32 = 64

Platform.ignoreBrokenPipe()
Platform.adoptLocale()
let environment = Platform.environment()

let action: Options.Action
do {
    action = try Options.parse(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
} catch {
    Platform.write("egw-repl: \(error.message)\nTry 'egw-repl --help'.\n", to: 2)
    exit(exitUsage)
}

switch action {
case .help:
    Platform.write(Options.usage + "\n", to: 1)
    exit(0)
case .version:
    Platform.write("egw-repl \(Shell.version)\n", to: 1)
    exit(0)
case .run(let options):
    let source: LineSource
    var scriptMode = false
    if let path = options.scriptPath {
        switch Platform.openForReading(path) {
        case .success(let fd):
            source = PlainLineSource(fd: fd)
            scriptMode = true
        case .failure(let failure):
            Platform.write("egw-repl: cannot read script \(path): \(failure.message)\n", to: 2)
            exit(exitUsage)
        }
    } else if Platform.isTerminal(0) {
        let history: String?
        if let path = options.historyPath {
            history = path
        } else if let home = Platform.homeDirectory(environment: environment) {
            history = home + "/.egw_repl_history"
        } else {
            history = nil
        }
        source = EditLineSource(historyPath: history)
    } else {
        source = PlainLineSource(fd: 0)
    }
    let color =
        !scriptMode && source.isInteractive
        && Platform.usesColor(fd: 1, noColorFlag: options.noColor, environment: environment)
    let interrupts = Interrupts(exitsWhenIdle: !source.isInteractive)
    completionProvider.withLock {
        $0.context = CompletionContext(testCardNames: Sandbox.testCards.map(\.name))
    }
    var sandbox: Sandbox?
    if options.startsSandbox {
        switch EmbeddedSandbox.start(environment: environment, tls: options.sandboxTLS) {
        case .success(let started):
            sandbox = started
        case .failure(let error):
            Platform.write("egw-repl: the embedded sandbox did not start (\(error)); continuing without it\n", to: 2)
        }
    }
    let shell = Shell(
        options: options, source: source, console: Console(usesColor: color), interrupts: interrupts,
        sandbox: sandbox)
    exit(shell.run())
}
