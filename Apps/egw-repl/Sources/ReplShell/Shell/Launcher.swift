import Foundation
import GatewaySandbox
import ReplCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The program: flags, the line source, the embedded sandbox, then the shell.
///
/// `egw-repl`'s `main.swift` only calls ``run(arguments:)``; everything else
/// lives in this library so the tests can drive the shell without a process.
public enum Launcher {
    /// sysexits(3) EX_USAGE.
    public static let exitUsage: Int32 = 64

    /// Runs the shell for `arguments` (without the program name) and returns
    /// the exit status: 0, 1 (a command failed in a script), 64 (usage).
    ///
    /// Call on the main thread, once per process: it installs the SIGINT and
    /// SIGPIPE handling and sets the locale.
    @MainActor
    public static func run(arguments: [String]) -> Int32 {
        run(arguments: arguments, webKit: nil)
    }

    /// The sibling program that has WebKitGTK linked in (see ``WebKitSupport``).
    static let webKitProgram = "egw-repl-webkit"

    /// ``run(arguments:)`` with WebKitGTK when `webKit` is given (`egw-repl-webkit`). Without it, a
    /// run that needs WebKit (`--browser webkit`, `--screenshots`) is handed to `egw-repl-webkit`
    /// beside this executable, with the same arguments; when that program cannot be started the
    /// status is 1 and stderr says why.
    @MainActor
    package static func run(arguments: [String], webKit: (any WebKitSupport)?) -> Int32 {
        Platform.ignoreBrokenPipe()
        Platform.adoptLocale()
        let environment = Platform.environment()
        let output = OutputSink.process
        let action: Options.Action
        do {
            action = try Options.parse(arguments: arguments, environment: environment)
        } catch {
            output.write("egw-repl: \(error.message)\nTry 'egw-repl --help'.\n", .err)
            return exitUsage
        }
        let options: Options
        switch action {
        case .help:
            output.write(Options.usage + "\n", .out)
            return 0
        case .version:
            output.write("egw-repl \(Shell.version)\n", .out)
            return 0
        case .run(let given):
            options = given
        }
        if options.usesWebKit && webKit == nil {
            let failure = Platform.replaceProcess(withSibling: webKitProgram, arguments: arguments)
            output.write(
                "egw-repl: WebKit (--browser webkit, --screenshots) runs in \(webKitProgram), which did not start: "
                    + "\(failure)\n", .err)
            return 1
        }
        let source: LineSource
        var scriptMode = false
        if let path = options.scriptPath {
            switch Platform.openForReading(path) {
            case .success(let fd):
                source = PlainLineSource(fd: fd)
                scriptMode = true
            case .failure(let failure):
                output.write("egw-repl: cannot read script \(path): \(failure.message)\n", .err)
                return exitUsage
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
        let interrupts =
            source.isInteractive
            ? Interrupts(exitsWhenIdle: false, idle: interruptLineBeingTyped) : Interrupts(exitsWhenIdle: true)
        completionProvider.withLock {
            $0.context = CompletionContext(testCardNames: Sandbox.testCards.map(\.name))
        }
        var sandbox: Sandbox?
        if options.startsSandbox {
            switch EmbeddedSandbox.start(environment: environment, tls: options.sandboxTLS) {
            case .success(let started):
                sandbox = started
            case .failure(let error):
                output.write("egw-repl: the embedded sandbox did not start (\(error)); continuing without it\n", .err)
            }
        }
        var events = EventLoop.mainRunLoop
        if options.usesWebKit, let webKit {
            if let failure = webKit.start() {
                output.write("egw-repl: WebKit (--browser webkit, --screenshots): \(failure)\n", .err)
                return 1
            }
            events = webKit.eventLoop()
        }
        var isDirectory: ObjCBool = false
        if let directory = options.screenshotsPath,
            !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue
        {
            output.write("egw-repl: --screenshots \(directory) is not a directory\nTry 'egw-repl --help'.\n", .err)
            return exitUsage
        }
        let shell: Shell
        do {
            shell = try Shell(
                options: options, source: source, console: Console(usesColor: color, sink: output),
                interrupts: interrupts, sandbox: sandbox, events: events, webKit: webKit)
        } catch {
            output.write("egw-repl: \(error.message)\nTry 'egw-repl --help'.\n", .err)
            return exitUsage
        }
        return shell.run()
    }
}
