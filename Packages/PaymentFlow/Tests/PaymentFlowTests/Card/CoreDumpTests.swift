import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// True under ASan or TSan (`make sanitize`), whose runtimes map terabytes of shadow memory: the plain run
/// is the proof.
private let underSanitizer = dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil

/// Issue 29, item 6: a crash dump holds no card number. `card-dump-probe` (a process of its own) holds a card
/// mid-payment, built as an app builds it: the SDK's editors fed one keystroke at a time, a `CardInput`
/// filled from them, the snapshot validated and the JWE plaintext built, with encryption about to happen.
/// gdb's `gcore` dumps it into a temporary folder (gcore, like the kernel, leaves out mappings marked
/// `MADV_DONTDUMP`, "dd" in smaps), and the dump is searched for the number and the code in every form a copy
/// could take. A control line the probe keeps in ordinary heap memory must be found, so a clean dump means
/// the card is absent, not that the dump is empty.
@Suite(
    .serialized, .timeLimit(.minutes(2)),
    .disabled(if: underSanitizer, "a sanitizer's shadow memory makes the dump the sanitizer's test"))
struct CoreDumpTests {
    /// A random Visa-length number with a valid check digit (fresh each run, so no other copy can exist).
    static func randomCardNumber() -> [UInt8] {
        var digits = [4] + (0..<14).map { _ in Int.random(in: 0...9) }
        let sum = digits.reversed().enumerated().reduce(0) { sum, pair in
            let (index, digit) = pair
            guard index % 2 == 0 else { return sum + digit }
            let doubled = digit * 2
            return sum + (doubled > 9 ? doubled - 9 : doubled)
        }
        digits.append((10 - sum % 10) % 10)
        return digits.map { UInt8(ascii: "0") + UInt8($0) }
    }

    /// What a copy of the card could look like in memory, named (the names, never the bytes, are reported).
    static func needles(number: [UInt8], code: [UInt8]) -> [(name: String, bytes: [UInt8])] {
        let grouped = number.enumerated().flatMap { index, digit in
            index > 0 && index % 4 == 0 ? [UInt8(ascii: " "), digit] : [digit]
        }
        func utf16(_ bytes: [UInt8]) -> [UInt8] { bytes.flatMap { [$0, 0] } }
        var found: [(String, [UInt8])] = [
            ("the number as ASCII digits", number),
            ("the number grouped", grouped),
            ("the number in UTF-16", utf16(number)),
            ("the grouped number in UTF-16", utf16(grouped)),
            ("the code in the JWE plaintext", Array(#""securityCode":""#.utf8) + code + [UInt8(ascii: "\"")]),
            // A Swift small string holding the code: its bytes, zeros, then the ASCII discriminator and count.
            ("the code as a Swift String", code + [UInt8](repeating: 0, count: 15 - code.count) + [0xE0 | 3]),
            ("the JWE plaintext", Array(#"{"cardholderName":"Ada Lovelace","cardNumber":""#.utf8)),
        ]
        // Any 12 consecutive digits of the number (a prefix left by typing, a tail after a cut).
        for start in 0...(number.count - 12) {
            found.append(("digits \(start + 1)-\(start + 12) of the number", Array(number[start..<start + 12])))
        }
        return found
    }

    /// How often `needle` occurs in `haystack` (memchr for its first byte, then memcmp: the dump is tens of
    /// megabytes).
    static func occurrences(of needle: [UInt8], in haystack: Data) -> Int {
        haystack.withUnsafeBytes { raw in
            needle.withUnsafeBytes { pattern in
                guard let base = raw.baseAddress, let first = pattern.first else { return 0 }
                var count = 0
                var offset = 0
                while offset + pattern.count <= raw.count,
                    let hit = memchr(base + offset, Int32(first), raw.count - offset - pattern.count + 1)
                {
                    offset = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(hit, pattern.baseAddress!, pattern.count) == 0 { count += 1 }
                    offset += 1
                }
                return count
            }
        }
    }

    static func gcorePath() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/gcore" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Reads the probe's stdout until a line starting with `prefix` (or the end).
    static func line(startingWith prefix: String, from handle: FileHandle, buffer: inout String) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: "\n") {
                let line = String(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if line.hasPrefix(prefix) { return line }
                continue
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer += String(decoding: chunk, as: UTF8.self)
        }
    }

    @Test func aCardHeldMidPaymentIsAbsentFromAGcoreDump() throws {
        let gcore = try #require(Self.gcorePath(), "gdb's gcore is needed (make deps installs gdb)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "egw-core-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let number = Self.randomCardNumber()
        let code = (0..<3).map { _ in UInt8(ascii: "0") + UInt8.random(in: 0...9) }
        let control = Array("CONTROL-\(UInt64.random(in: 0...UInt64.max))-HEAP".utf8)

        let probe = Process()
        probe.executableURL = SiblingProbe.url("card-dump-probe")
        let input = Pipe()
        let output = Pipe()
        probe.standardInput = input
        probe.standardOutput = output
        try probe.run()
        defer { if probe.isRunning { probe.terminate() } }
        input.fileHandleForWriting.write(Data(number + [UInt8(ascii: "/")] + code + [10] + control + [10]))

        var pending = ""
        let ready = try #require(
            Self.line(startingWith: "READY", from: output.fileHandleForReading, buffer: &pending),
            "the probe did not get to the encryption: \(pending)")
        // The SDK leaves the app's dump settings alone: the filter is the one the probe inherited.
        let ownFilter = try String(contentsOfFile: "/proc/self/coredump_filter", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(ready.hasSuffix("filter=\(ownFilter)"), "\(ready)")

        let prefix = folder.appendingPathComponent("core").path
        let dump = Process()
        dump.executableURL = URL(fileURLWithPath: gcore)
        dump.arguments = ["-o", prefix, "\(probe.processIdentifier)"]
        dump.standardOutput = FileHandle.nullDevice
        dump.standardError = FileHandle.nullDevice
        try dump.run()
        dump.waitUntilExit()
        #expect(dump.terminationStatus == 0, "gcore failed")

        input.fileHandleForWriting.write(Data([10]))
        let done = Self.line(startingWith: "DONE", from: output.fileHandleForReading, buffer: &pending)
        probe.waitUntilExit()
        #expect(done != nil && probe.terminationStatus == 0, "the probe did not finish its encryption")

        let core = try Data(contentsOf: URL(fileURLWithPath: "\(prefix).\(probe.processIdentifier)"))
        #expect(core.count > 1 << 20, "the dump is only \(core.count) bytes")
        #expect(Self.occurrences(of: control, in: core) >= 1, "the dump does not show the probe's heap")
        for needle in Self.needles(number: number, code: code) {
            let hits = Self.occurrences(of: needle.bytes, in: core)
            #expect(hits == 0, "the dump holds \(needle.name) (\(hits) times)")
        }
    }
}
