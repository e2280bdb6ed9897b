import Foundation

/// The text a buyer reads: one table per language, shipped as package resources (`Resources/en.json`,
/// `lv.json`, `et.json`, `lt.json`, `ru.json`), the language chosen from the locale; with each
/// language's plural forms (``plural(_:count:)``) and its way of writing numbers and prices
/// (``number(_:)``, ``money(_:currencyCode:fractionDigits:)``).
///
/// PaymentFlow takes the `localizedDescription` of its twelve error codes from these tables
/// (`sdk.error.<code>.summary` and `.advice`), and PaymentUI its labels and messages, so an app's
/// fields and the SDK's errors speak one language.
///
/// Lookup never fails at run time and never stops the program: a key missing from the chosen table
/// falls back to English; ``text(_:)`` then gives `nil` and the subscript the key itself. The tables
/// are read from the resource folder SwiftPM builds beside the executable
/// (`BuyerText_BuyerText.resources`); a program shipped without that folder gets no table (and the
/// SDK's errors fall back to their code names) rather than a crash. The package's tests fail when a key
/// is missing from any table.
///
/// A value; safe to use from any thread.
public struct BuyerText: Sendable {
    /// The languages with a table, English first (the fallback): English, Latvian, Estonian,
    /// Lithuanian, Russian.
    public static let languages = ["en", "lv", "et", "lt", "ru"]

    /// The language of this table (one of ``languages``).
    public let language: String
    let table: [String: String]
    let fallback: [String: String]

    /// The table for `language` (an unknown language gets English).
    public init(language: String) {
        let known = Self.languages.contains(language) ? language : "en"
        self.language = known
        table = Self.load(known)
        fallback = known == "en" ? [:] : Self.load("en")
    }

    /// The table the process's locale asks for (see ``language(environment:)``), read once.
    public static let current = BuyerText(language: language(environment: ProcessInfo.processInfo.environment))

    /// The language gettext would use: the first supported entry of `LANGUAGE` (a colon-separated list),
    /// then of `LC_ALL`, `LC_MESSAGES`, `LANG`, each read as `ll_CC.charset@modifier`. `LANGUAGE` is
    /// ignored when the locale itself is `C` or `POSIX`, as gettext does. English when nothing matches.
    public static func language(environment: [String: String]) -> String {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        if locale == "C" || locale == "POSIX" { return "en" }
        var candidates: [String] = []
        if let list = environment["LANGUAGE"], locale != nil {
            candidates += list.split(separator: ":").map(String.init)
        }
        if let locale { candidates.append(locale) }
        for candidate in candidates {
            let code = candidate.prefix { $0 != "_" && $0 != "." && $0 != "@" }.lowercased()
            if languages.contains(code) { return code }
        }
        return "en"
    }

    /// The text for `key`, or the key itself when no table has it.
    public subscript(key: String) -> String {
        text(key) ?? key
    }

    /// The text for `key` in this language, else in English, else `nil`.
    public func text(_ key: String) -> String? {
        table[key] ?? fallback[key]
    }

    /// The text for `key` with `%@` replaced by `argument`.
    public func format(_ key: String, _ argument: String) -> String {
        self[key].replacingOccurrences(of: "%@", with: argument)
    }

    /// Every key of `language`'s own table (for completeness tests).
    public static func keys(of language: String) -> Set<String> {
        Set(load(language).keys)
    }

    /// The folder holding the tables: SwiftPM's resource bundle for this target, looked for beside the
    /// main executable (where `swift build` and `swift test` put it). Not SwiftPM's `Bundle.module`,
    /// which stops the program when the folder is missing. The bundle is named after the package that
    /// declares the target: `BuyerText` in its own folder, `EGWPay` in the root package an app adds
    /// by URL (and `make test` builds).
    private static let resources: URL? = {
        let names = ["EGWPay_BuyerText.resources", "BuyerText_BuyerText.resources"]
        var places = [Bundle.main.bundleURL]
        if let executable = Bundle.main.executableURL { places.append(executable.deletingLastPathComponent()) }
        return places.lazy.flatMap { place in
            names.lazy.map { place.appendingPathComponent($0).appendingPathComponent("Resources") }
        }
        .first { FileManager.default.fileExists(atPath: $0.path) }
    }()

    private static func load(_ language: String) -> [String: String] {
        guard let folder = resources,
            let data = try? Data(contentsOf: folder.appendingPathComponent("\(language).json")),
            let table = try? JSONDecoder().decode([String: String].self, from: data)
        else { return [:] }
        return table
    }
}
