import Foundation

/// The buyer-facing text of PaymentUI: one table per language, shipped as package resources
/// (`Resources/en.json`, `Resources/lv.json`), the language chosen from the locale.
///
/// Lookup never fails at run time: a key missing from the chosen table falls back to English, then to
/// the key itself; the package's tests fail when a key is missing from either table.
///
/// A value; safe to use from any thread.
public struct BuyerText: Sendable {
    /// The languages with a table, English first (the fallback).
    public static let languages = ["en", "lv"]

    /// The language of this table (`"en"` or `"lv"`).
    public let language: String
    private let table: [String: String]
    private let fallback: [String: String]

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

    /// The text for `key`.
    public subscript(key: String) -> String {
        table[key] ?? fallback[key] ?? key
    }

    /// The text for `key` with `%@` replaced by `argument`.
    public func format(_ key: String, _ argument: String) -> String {
        self[key].replacingOccurrences(of: "%@", with: argument)
    }

    /// Every key of `language`'s own table (for the completeness test).
    public static func keys(of language: String) -> Set<String> {
        Set(load(language).keys)
    }

    private static func load(_ language: String) -> [String: String] {
        guard let url = Bundle.module.url(forResource: language, withExtension: "json", subdirectory: "Resources"),
            let data = try? Data(contentsOf: url),
            let table = try? JSONDecoder().decode([String: String].self, from: data)
        else { return [:] }
        return table
    }
}
