#if EGW_FUZZ
internal import CLibFuzzer
#endif

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The entry of a package's fuzz executable.
///
/// Usage: `<executable> --list` prints the target names; `<executable> TARGET [ARGS...]` runs one target.
/// In a build compiled with `-DEGW_FUZZ` and linked with `-sanitize=fuzzer` (`make fuzz`), `ARGS` go to
/// libFuzzer unchanged (options, corpus folders); a broken invariant aborts, so libFuzzer saves the input
/// as a crash. In a plain build `ARGS` are files (or folders of files) that are run once each, which is how
/// a saved crash is reproduced without the fuzzer runtime.
///
/// Runs on the calling (main) thread; returns the process exit status.
public enum FuzzDriver {
    /// Runs the command line `argv` (`argc` entries, as `main` received them) against `targets`.
    public static func main(
        argc: Int32, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, targets: [FuzzTarget]
    ) -> Int32 {
        let arguments = (0..<Int(argc)).map { argv[$0].map { String(cString: $0) } ?? "" }
        guard arguments.count >= 2 else {
            printError("usage: \(arguments.first ?? "fuzz") --list | TARGET [ARGS...]")
            return 2
        }
        if arguments[1] == "--list" {
            for target in targets { print(target.name) }
            return 0
        }
        guard let target = targets.first(where: { $0.name == arguments[1] }) else {
            printError("unknown fuzz target '\(arguments[1])'; known: \(targets.map(\.name).joined(separator: " "))")
            return 2
        }
        #if EGW_FUZZ
        return runLibFuzzer(target, arguments: [arguments[0]] + arguments.dropFirst(2))
        #else
        return replay(target, paths: Array(arguments.dropFirst(2)))
        #endif
    }

    private static func replay(_ target: FuzzTarget, paths: [String]) -> Int32 {
        var failed = false
        for path in paths {
            for file in FuzzReplay.files(at: path) {
                guard let bytes = FuzzReplay.read(file) else {
                    printError("\(file): unreadable")
                    failed = true
                    continue
                }
                do {
                    try target.run(bytes)
                    print("\(file): ok")
                } catch {
                    printError("\(file): \(error.description)")
                    failed = true
                }
            }
        }
        return failed ? 1 : 0
    }

    #if EGW_FUZZ
    /// The target libFuzzer's callback runs; set once, before the driver starts, on this thread.
    nonisolated(unsafe) private static var current: FuzzTarget?

    private static func runLibFuzzer(_ target: FuzzTarget, arguments: [String]) -> Int32 {
        current = target
        var count = Int32(arguments.count)
        // libFuzzer keeps argv for the process lifetime (it re-reads flags and may re-exec), so these
        // copies are never freed.
        let vector = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: arguments.count + 1)
        for (index, argument) in arguments.enumerated() { vector[index] = strdup(argument) }
        vector[arguments.count] = nil
        var argvPointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = vector
        return LLVMFuzzerRunDriver(&count, &argvPointer) { data, size in
            let input = UnsafeBufferPointer(start: size == 0 ? nil : data, count: size)
            do {
                try FuzzDriver.current!.check(input)
            } catch {
                printError("FUZZ INVARIANT BROKEN in \(FuzzDriver.current!.name): \(error)")
                abort()
            }
            return 0
        }
    }
    #endif
}

func printError(_ text: String) {
    fputs(text + "\n", stderr)
}
