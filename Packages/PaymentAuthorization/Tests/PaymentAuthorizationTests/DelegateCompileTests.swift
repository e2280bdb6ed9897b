import Foundation
import XCTest

/// Seed 004 P8: `didAuthorizePayment` is required. Checked by the compiler itself: each snippet is
/// type-checked with `swiftc -typecheck` against the modules this test run built. Before issue 21 the
/// first two snippets compiled (a default answered `.failure` for every payment, nothing logged).
final class DelegateCompileTests: XCTestCase {
    static let header = "import PaymentAuthorization\n"
    static let didFinish = """
            func paymentAuthorizationControllerDidFinish(_ controller: PaymentAuthorizationController) {}

        """

    func testADelegateWithoutAnAuthorizationMethodDoesNotCompile() throws {
        let output = try Self.typecheck(
            Self.header + "final class Minimal: PaymentAuthorizationControllerDelegate {\n" + Self.didFinish + "}\n")
        XCTAssertTrue(output.contains("error: type 'Minimal' does not conform"), output)
        XCTAssertTrue(output.contains("didAuthorizePayment:handler:"), output)
    }

    /// The seed's `completion:` spelling on the modern protocol misses by one label: a compile error
    /// (it names the required `handler:` form), not a silent `.failure`.
    func testTheSeedSpellingOnTheModernProtocolDoesNotCompile() throws {
        let output = try Self.typecheck(
            Self.header + "final class OneLabelOff: PaymentAuthorizationControllerDelegate {\n" + Self.didFinish + """
                    func paymentAuthorizationController(
                        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
                        completion: @escaping @Sendable (PaymentAuthorizationStatus) -> Void
                    ) { completion(.success) }
                }

                """)
        XCTAssertTrue(output.contains("error: type 'OneLabelOff' does not conform"), output)
    }

    /// The same method on the seed's protocol compiles with no diagnostic at all.
    func testTheSeedSpellingOnTheSeedProtocolCompilesCleanly() throws {
        let output = try Self.typecheck(
            Self.header + "final class Seed: SeedPaymentAuthorizationControllerDelegate {\n" + Self.didFinish + """
                    func paymentAuthorizationController(
                        _ controller: PaymentAuthorizationController, didAuthorizePayment payment: Payment,
                        completion: @escaping @Sendable (PaymentAuthorizationStatus) -> Void
                    ) { completion(.success) }
                }

                """)
        XCTAssertEqual(output, "")
    }

    /// Type-checks `source` in Swift 6 mode against this package's debug build; returns the diagnostics.
    static func typecheck(_ source: String) throws -> String {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // The folder of the running test bundle: this package's own build, or the root package's.
        let build = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let modules = build.appendingPathComponent("Modules").path
        guard FileManager.default.fileExists(atPath: modules) else { throw XCTSkip("no debug build at \(modules)") }
        var maps: [String] = []
        let roots = [
            build.resolvingSymlinksInPath(), package.appendingPathComponent("../JWE/Sources"),
            package.appendingPathComponent("../PaymentFlow/Sources"),
        ]
        for root in roots {
            let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let url = walker?.nextObject() as? URL {
                if url.lastPathComponent == "module.modulemap" { maps += ["-Xcc", "-fmodule-map-file=\(url.path)"] }
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "egw-delegate-\(UUID().uuidString).swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules] + maps + [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
