// egw-repl: an interactive shell for the EGWPay SDK on an embedded sandbox gateway.
// The program lives in the ReplShell library (tested there); this only starts it.
import ReplShell

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

exit(MainActor.assumeIsolated { Launcher.run(arguments: Array(CommandLine.arguments.dropFirst())) })
