import Foundation
import Testing

/// What a run of the built `egw-repl` printed and how it exited.
struct ProcessTranscript {
    var stdout: String
    var stderr: String
    var status: Int32
}

/// The directory `swift build` put the products in (the test bundle sits beside them).
private var productsDirectory: URL {
    Bundle.main.bundleURL
}

/// A scratch directory for the runs of this test process: `HOME` (history) and
/// `XDG_CACHE_HOME` (the sandbox key, made once and reused by later runs).
private let scratch: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("egw-repl-tests-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

/// Runs the built `egw-repl` with `arguments`, `input` as its stdin (a file, so a pipe
/// cannot fill up), and checks nothing: callers assert on the transcript. As
/// swift-argument-parser's `AssertExecuteCommand` does, the binary is found beside the
/// test bundle. A run that does not end within `timeout` seconds is killed and recorded.
func runExecutable(
    _ arguments: [String], input: String = "", environment extra: [String: String] = [:],
    timeout: TimeInterval = 60, sourceLocation: SourceLocation = #_sourceLocation
) throws -> ProcessTranscript {
    let binary = productsDirectory.appendingPathComponent("egw-repl")
    try #require(
        FileManager.default.isExecutableFile(atPath: binary.path),
        "egw-repl is not built at \(binary.path) (swift build builds it)", sourceLocation: sourceLocation)
    let id = UUID().uuidString
    let inURL = scratch.appendingPathComponent("\(id).in")
    let outURL = scratch.appendingPathComponent("\(id).out")
    let errURL = scratch.appendingPathComponent("\(id).err")
    try Data(input.utf8).write(to: inURL)
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer {
        for url in [inURL, outURL, errURL] {
            try? FileManager.default.removeItem(at: url)
        }
    }
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    var environment = ["HOME": scratch.path, "XDG_CACHE_HOME": scratch.path, "PATH": "/usr/bin:/bin"]
    // Under `make sanitize` the binary is built with the same sanitizer: it reads the same
    // options and the repo's suppression files as this test process.
    for name in ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"] {
        environment[name] = ProcessInfo.processInfo.environment[name]
    }
    environment.merge(extra) { $1 }
    process.environment = environment
    process.standardInput = try FileHandle(forReadingFrom: inURL)
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    try process.run()
    let watchdog = DispatchWorkItem { [process] in
        if process.isRunning {
            process.terminate()
        }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    process.waitUntilExit()
    watchdog.cancel()
    #expect(process.terminationReason == .exit, "egw-repl was killed (timeout?)", sourceLocation: sourceLocation)
    return ProcessTranscript(
        stdout: try contents(of: outURL), stderr: try contents(of: errURL), status: process.terminationStatus)
}

/// A file's text, read with stdio: Foundation's `Data(contentsOf:)` leaks its buffer for an
/// empty file (Swift 6.3.1), which LeakSanitizer reports under `make sanitize`.
private func contents(of url: URL) throws -> String {
    guard let file = fopen(url.path, "rb") else {
        throw CocoaError(.fileReadNoSuchFile)
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
}
