import Foundation

/// What one replay of a package's checked-in fuzz inputs saw.
public struct FuzzReplayReport: Sendable, Equatable {
    /// Inputs run per target name.
    public var inputs: [String: Int] = [:]
    /// Every problem, one line each: a broken invariant (target, file, reason), an unreadable file, a
    /// target with no seed corpus, a folder under `Fuzz/` that no target claims.
    public var failures: [String] = []

    /// An empty report.
    public init() {}
}

/// Replays the checked-in inputs of a package's fuzz targets, each once, with no fuzzing: the layout is
/// `Fuzz/<target>/corpus/*` (seeds, required) and `Fuzz/<target>/regressions/*` (inputs that once broke
/// something; kept forever). Files whose names start with `.` or that are named `README.md` are skipped.
///
/// Runs on the calling thread; reads files only.
public enum FuzzReplay {
    /// Runs every input of every target in `targets` from the `Fuzz/` folder of the package whose
    /// source file `file` is (pass `#filePath`); the package root is the nearest folder above `file`
    /// with a `Package.swift`.
    public static func run(_ targets: [FuzzTarget], packageOf file: String) -> FuzzReplayReport {
        var report = FuzzReplayReport()
        guard let root = packageRoot(of: file) else {
            report.failures.append("no Package.swift above \(file)")
            return report
        }
        let fuzz = root.appendingPathComponent("Fuzz")
        for target in targets {
            let corpus = files(at: fuzz.appendingPathComponent(target.name).appendingPathComponent("corpus").path)
            let regressions = files(
                at: fuzz.appendingPathComponent(target.name).appendingPathComponent("regressions").path)
            if corpus.isEmpty { report.failures.append("\(target.name): no seed corpus in Fuzz/\(target.name)/corpus") }
            for path in corpus + regressions {
                report.inputs[target.name, default: 0] += 1
                guard let bytes = read(path) else {
                    report.failures.append("\(target.name): \(path) is unreadable")
                    continue
                }
                do {
                    try target.run(bytes)
                } catch {
                    report.failures.append("\(target.name): \(path): \(error.description)")
                }
            }
        }
        let names = Set(targets.map(\.name))
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: fuzz.path)) ?? []
        for folder in folders.sorted() where isDirectory(fuzz.appendingPathComponent(folder).path) {
            if FileManager.default.fileExists(atPath: fuzz.appendingPathComponent(folder + "/corpus").path),
                !names.contains(folder)
            {
                report.failures.append("Fuzz/\(folder) has a corpus but no target of that name")
            }
        }
        return report
    }

    /// The files at `path`: the path itself when it is a file, else the visible regular files directly
    /// inside the folder, sorted by name; none when it does not exist.
    public static func files(at path: String) -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard isDirectory(path) else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted()
            .filter { !$0.hasPrefix(".") && $0 != "README.md" }
            .map { path + "/" + $0 }
            .filter { !isDirectory($0) }
    }

    /// The bytes of the file at `path`, nil when it cannot be read.
    ///
    /// Read with stdio, not `FileManager.contents(atPath:)`: for an empty file that one leaks the 4 KiB
    /// buffer it allocated (LeakSanitizer, `readBytesFromFile`, Swift 6.3.1), and empty inputs are seeds.
    public static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes += chunk[0..<count]
            if count < chunk.count { return ferror(file) == 0 ? bytes : nil }
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    private static func packageRoot(of file: String) -> URL? {
        var folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}
