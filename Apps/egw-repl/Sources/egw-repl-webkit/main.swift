// egw-repl-webkit: egw-repl with WebKitGTK linked in, for `--browser webkit` and `--screenshots`.
// egw-repl runs this program in its own place when given either flag, so its own start stays
// free of GTK's libraries (see ReplShell's WebKitSupport).
import ReplShell
import ReplWebKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

exit(
    MainActor.assumeIsolated {
        Launcher.run(arguments: Array(CommandLine.arguments.dropFirst()), webKit: WebKitShell())
    })
