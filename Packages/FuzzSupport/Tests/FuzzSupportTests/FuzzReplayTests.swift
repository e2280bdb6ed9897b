import Foundation
import FuzzSupport
import Testing

/// The replay walks the layout `make fuzz` writes: a throwaway package folder with two targets.
@Suite struct FuzzReplayTests {
    /// A target that refuses inputs starting with "bad".
    static let target = FuzzTarget("sample") { input throws(FuzzViolation) in
        try fuzzRequire(!input.starts(with: Array("bad".utf8)), "starts with bad")
    }

    private func makePackage(_ files: [String: String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-replay-\(UUID().uuidString)")
        for (path, text) in files.merging(
            ["Package.swift": "// swift-tools-version:6.0\n"], uniquingKeysWith: { a, _ in a })
        {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        return root
    }

    @Test func runsCorpusAndRegressionsAndReportsEachFailure() throws {
        let root = try makePackage([
            "Fuzz/sample/corpus/one": "good", "Fuzz/sample/corpus/.gitkeep": "bad",
            "Fuzz/sample/regressions/crash-1": "bad input", "Fuzz/sample/regressions/README.md": "bad",
            "Tests/T/Replay.swift": "",
        ])
        defer { try? FileManager.default.removeItem(at: root) }
        let report = FuzzReplay.run([Self.target], packageOf: root.path + "/Tests/T/Replay.swift")
        #expect(report.inputs == ["sample": 2])  // hidden files and READMEs are not inputs
        #expect(report.failures == ["sample: \(root.path)/Fuzz/sample/regressions/crash-1: starts with bad"])
    }

    @Test func aTargetWithoutSeedsAndAFolderWithoutTargetFail() throws {
        let root = try makePackage(["Fuzz/other/corpus/one": "x", "Tests/T/Replay.swift": ""])
        defer { try? FileManager.default.removeItem(at: root) }
        let report = FuzzReplay.run([Self.target], packageOf: root.path + "/Tests/T/Replay.swift")
        #expect(
            report.failures == [
                "sample: no seed corpus in Fuzz/sample/corpus", "Fuzz/other has a corpus but no target of that name",
            ])
    }
}
