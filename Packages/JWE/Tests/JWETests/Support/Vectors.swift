import Foundation

/// Loads the JSON vectors copied from /work/shared/data/jwe (sources named in each file's `source` member and
/// in Vectors/README.md), relative to this file so the tests run from any checkout.
enum Vectors {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // JWETests
        .appendingPathComponent("Vectors")

    static func object(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw VectorError.notAnObject(name)
        }
        return object
    }

    /// The JSON text of member `name` (an object), re-serialized.
    static func jsonText(_ value: Any?, removing names: Set<String> = []) throws -> String {
        guard var value else { throw VectorError.missing }
        if var object = value as? [String: Any] {
            for name in names { object[name] = nil }
            value = object
        }
        let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    enum VectorError: Error {
        case notAnObject(String)
        case missing
    }
}

extension Vectors {
    static func text(_ name: String) throws -> String {
        try String(decoding: Data(contentsOf: directory.appendingPathComponent(name)), as: UTF8.self)
    }

    /// Standard base64url without padding, via Foundation (independent of the package's encoder).
    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func unbase64url(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }

    static func jsonObject(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw VectorError.notAnObject(text)
        }
        return object
    }
}
