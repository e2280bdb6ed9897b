import Foundation

/// The test-only executables this package builds beside its test bundle (`curl-keylog-probe`,
/// `curl-proxy-probe`, `card-dump-probe`): what must run in a process of its own, because libcurl reads
/// its environment once per process, or because the process itself is what the test inspects.
enum SiblingProbe {
    /// The executable `name` in this test bundle's build folder.
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Runs `name` with `arguments` and `environment` to its end; its exit status.
    static func run(_ name: String, _ arguments: [String], environment: [String: String]) throws -> Int32 {
        let process = Process()
        process.executableURL = url(name)
        process.arguments = arguments
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
