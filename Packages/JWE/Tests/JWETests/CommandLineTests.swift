import Foundation
import Synchronization
import Testing

@testable import JWE

#if canImport(Glibc)
import Glibc
#endif

/// The built `egw-jwe` binary with piped stdin: the size cap stops reading early, `header` prints escaped JSON.
@Suite("egw-jwe")
struct CommandLineTests {
    static let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("egw-jwe")

    final class Counter: Sendable {
        let value = Mutex(0)
    }

    /// Runs `egw-jwe arguments` with `input` on stdin (closed after it); status, stdout and stderr.
    static func run(_ arguments: [String], input: [UInt8]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input))
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// 16 MiB offered on stdin, which is never closed: `header` must stop at its cap (256 KiB + 64), print the
    /// size error and exit 1 while the writer still has data, and must not have read much past the cap.
    @Test(arguments: ["header", "encrypt"])
    func stdinOverTheCapStopsEarly(_ command: String) throws {
        signal(SIGPIPE, SIG_IGN)
        let key = try RSAPrivateKey.generate()
        let keyFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("egw-jwe-cap-\(UUID().uuidString).jwk")
        try Data(key.publicKey.jwkJSON().utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }

        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = command == "encrypt" ? ["encrypt", "--key", keyFile.path] : [command]
        let readEnd = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
        process.standardInput = readEnd
        process.standardOutput = Pipe()
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        try readEnd.close()  // only the child reads: once it exits, writes fail with EPIPE

        let offered = 16 << 20
        let written = Counter()
        let writerDone = DispatchSemaphore(value: 0)
        let writeEnd = fds[1]
        Thread.detachNewThread {
            let chunk = [UInt8](repeating: UInt8(ascii: "A"), count: 65_536)
            var total = 0
            while total < offered {
                let count = chunk.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    break  // EPIPE: the reader is gone
                }
                total += count
            }
            written.value.withLock { $0 = total }
            writerDone.signal()
        }
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            Issue.record("egw-jwe \(command) kept reading past its cap")
        }
        process.waitUntilExit()
        #expect(writerDone.wait(timeout: .now() + 30) == .success)
        close(writeEnd)

        let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 1)
        #expect(message.hasPrefix("egw-jwe: tooLarge: "), "\(message)")
        #expect(message.contains("stopped reading"), "\(message)")
        let total = written.value.withLock { $0 }
        #expect(total < 2 << 20, "egw-jwe accepted \(total) bytes")
    }

    @Test func headerPrintsEscapedJSON() throws {
        let key = try RSAPrivateKey.generate()
        let token = try JWEEncrypter(recipient: key.publicKey).encrypt([1])
        var parts = token.split(separator: ".").map(String.init)
        let json = "{\"alg\":\"RSA-OAEP-256\",\"enc\":\"A256GCM\",\"kid\":\"\u{9B}2J\\u001b[31mé\"}"
        parts[0] = Vectors.base64url(Array(json.utf8))
        let result = try Self.run(["header"], input: Array((parts.joined(separator: ".") + "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"alg":"RSA-OAEP-256","enc":"A256GCM","kid":"\u009b2J\u001b[31m\u00e9"}"# + "\n")
        #expect(result.stdout.utf8.allSatisfy { $0 == 0x0A || (0x20...0x7E).contains($0) })
    }

    @Test func refusedAlgInATokenIsEscapedOnStderr() throws {
        let key = try RSAPrivateKey.generate()
        let keyFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("egw-jwe-alg-\(UUID().uuidString).jwk")
        try Data(key.jwkJSON().utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let token = try JWEEncrypter(recipient: key.publicKey).encrypt([1])
        var parts = token.split(separator: ".").map(String.init)
        parts[0] = Vectors.base64url(Array("{\"alg\":\"\u{9B}31m\\u001b]2;x\\u0007\",\"enc\":\"A256GCM\"}".utf8))
        let result = try Self.run(["decrypt", "--key", keyFile.path], input: Array(parts.joined(separator: ".").utf8))
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"\u009b31m\u001b]2;x\u0007"#), "\(result.stderr)")
        #expect(result.stderr.utf8.allSatisfy { $0 == 0x0A || (0x20...0x7E).contains($0) })
    }
}
