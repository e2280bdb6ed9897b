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
        stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self), status: process.terminationStatus)
}
