import Foundation
import Testing

@testable import JWE

/// A process that forks after using an encrypter must not hand its child the same CEK or IV: parent and child
/// each encrypt with the same (already used) encrypter, and no encrypted key or IV may appear on both sides.
/// Checked with plain `fork()` and with glibc's `_Fork()`, which skips `pthread_atfork` handlers (so nothing
/// that relies on them can pass).
///
/// The forking happens in `jwe-fork-probe`, a single-threaded process built with the tests: forking this
/// multi-threaded test runner leaves the child with whatever locks other tests' threads held at that instant
/// (`_Fork()` does not even take malloc's), and a child hung there once in three runs, for no fault of the
/// package.
@Suite("Fork safety")
struct ForkTests {
    static let plaintext = Array(#"{"cardNumber":"4111111111111111"}"#.utf8)

    /// The probe's lines, or nil when the fork function does not exist (exit status 2).
    private func runProbe(_ forkName: String) throws -> [Substring]? {
        let probe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("jwe-fork-probe")
        let process = Process()
        process.executableURL = probe
        process.arguments = [forkName]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationStatus == 2 { return nil }
        try #require(process.terminationStatus == 0, "jwe-fork-probe \(forkName) failed")
        return String(decoding: data, as: UTF8.self).split(separator: "\n")
    }

    @Test(arguments: ["fork", "_Fork"])
    func parentAndChildNeverShareCEKOrIV(_ forkName: String) throws {
        guard let lines = try runProbe(forkName) else {
            // Only a C library without _Fork gets here (glibc before 2.34; Debian 12 has 2.36).
            #expect(forkName != "fork", "fork() must always be checked")
            return
        }
        func values(_ label: String) -> [String] {
            lines.filter { $0.hasPrefix(label + " ") }.map { String($0.dropFirst(label.count + 1)) }
        }
        let key = try RSAPrivateKey(jwk: try #require(values("key").first))
        let parent = values("parent")
        let child = values("child")
        #expect(parent.count == 3)
        try #require(child.count == 3, "the child wrote \(child)")

        func parts(_ tokens: [String]) -> (keys: Set<Substring>, ivs: Set<Substring>) {
            let segments = tokens.map { $0.split(separator: ".", omittingEmptySubsequences: false) }
            return (Set(segments.map { $0[1] }), Set(segments.map { $0[2] }))
        }
        let (parentKeys, parentIVs) = parts(parent)
        let (childKeys, childIVs) = parts(child)
        #expect(parentKeys.count == 3 && childKeys.count == 3)
        #expect(parentIVs.count == 3 && childIVs.count == 3)
        #expect(parentKeys.isDisjoint(with: childKeys), "parent and child produced the same encrypted key")
        #expect(parentIVs.isDisjoint(with: childIVs), "parent and child used the same IV")
        // Both sides' tokens are real: they decrypt under the probe's key.
        let decrypter = JWEDecrypter(key: key)
        for token in parent + child {
            #expect(try decrypter.decrypt(token) == Self.plaintext)
        }
    }
}
