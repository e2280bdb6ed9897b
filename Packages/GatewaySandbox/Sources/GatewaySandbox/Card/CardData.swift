import Foundation

/// The card inside `encryptedCard`, parsed strictly. Lives only while a session is created.
///
/// Its `description` shows the last four digits at most.
struct CardData: Sendable, CustomStringConvertible {
    var cardholderName: String
    var number: String
    var expiryMonth: Int
    var expiryYear: Int
    var securityCode: String

    static let members: Set<String> = ["cardholderName", "cardNumber", "expiryMonth", "expiryYear", "securityCode"]

    var description: String { "card •••• \(number.suffix(4))" }

    /// Why the card JSON was refused; names the member, never its value.
    struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// Parses the JWE plaintext: a JSON object with exactly the five string members of
    /// GATEWAY.md, `cardNumber` 12–19 digits, `expiryMonth` "01"–"12", `expiryYear` two digits,
    /// `securityCode` 3 or 4 digits, `cardholderName` not blank, at most 45 characters, no
    /// control characters.
    static func parse(_ plaintext: [UInt8]) throws(Problem) -> CardData {
        let value: JSONValue
        do {
            value = try JSONValue.parse(plaintext)
        } catch {
            throw Problem(reason: "the card data is not valid JSON (\(error.reason))")
        }
        guard let object = value.objectValue else { throw Problem(reason: "the card data is not a JSON object") }
        let keys = Set(object.keys)
        if let missing = members.subtracting(keys).sorted().first {
            throw Problem(reason: "the card data has no \"\(missing)\"")
        }
        if let extra = keys.subtracting(members).sorted().first {
            throw Problem(reason: "the card data has an unexpected member \"\(extra)\"")
        }
        func string(_ key: String) throws(Problem) -> String {
            guard let text = object[key]?.stringValue else {
                throw Problem(reason: "\"\(key)\" must be a string, not \(object[key]?.typeName ?? "missing")")
            }
            return text
        }
        func digits(_ key: String, _ lengths: ClosedRange<Int>) throws(Problem) -> String {
            let text = try string(key)
            guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), lengths.contains(text.utf8.count) else {
                let count =
                    lengths.lowerBound == lengths.upperBound
                    ? "\(lengths.lowerBound)" : "\(lengths.lowerBound) to \(lengths.upperBound)"
                throw Problem(reason: "\"\(key)\" must be \(count) digits")
            }
            return text
        }
        let name = try string("cardholderName")
        guard !name.allSatisfy(\.isWhitespace) else { throw Problem(reason: "\"cardholderName\" is blank") }
        guard name.count <= 45 else { throw Problem(reason: "\"cardholderName\" is longer than 45 characters") }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Problem(reason: "\"cardholderName\" contains a control character")
        }
        let number = try digits("cardNumber", 12...19)
        let month = try digits("expiryMonth", 2...2)
        guard let monthValue = Int(month), (1...12).contains(monthValue) else {
            throw Problem(reason: "\"expiryMonth\" must be 01 to 12")
        }
        let year = try digits("expiryYear", 2...2)
        let code = try digits("securityCode", 3...4)
        return CardData(
            cardholderName: name, number: number, expiryMonth: monthValue, expiryYear: 2000 + (Int(year) ?? 0),
            securityCode: code)
    }

    /// The Luhn check (ISO/IEC 7812-1 annex B).
    var isLuhnValid: Bool {
        var sum = 0
        for (i, c) in number.utf8.reversed().enumerated() {
            var d = Int(c - 0x30)
            if i % 2 == 1 {
                d *= 2
                if d > 9 { d -= 9 }
            }
            sum += d
        }
        return sum % 10 == 0
    }

    /// True when the card is past the last day of its expiry month at `now` (UTC).
    func isExpired(at now: Date) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month], from: now)
        guard let year = parts.year, let month = parts.month else { return false }
        return (expiryYear, expiryMonth) < (year, month)
    }
}
