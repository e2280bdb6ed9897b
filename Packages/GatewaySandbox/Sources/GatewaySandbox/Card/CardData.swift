import EGWWire
import Foundation

/// What the sandbox keeps of the card inside `encryptedCard`: never the number or the security code.
///
/// `parse(_:)` reads the JWE plaintext bytes strictly and decodes the number and the code into
/// wiped `CardDigits` buffers, never into a `String`; what it returns is derived from them (the
/// last four digits, the Luhn result, the test-card behaviour, the code's length). Lives only while
/// a session is created. Its `description` shows the last four digits.
struct CardData: Sendable, CustomStringConvertible {
    /// The last four digits of the number.
    var last4: String
    /// The Luhn check (ISO/IEC 7812-1 annex B) on the number.
    var isLuhnValid: Bool
    /// What a session does with this number (the test-card table, compared byte by byte).
    var behaviour: CardBehaviour
    var expiryMonth: Int
    var expiryYear: Int
    /// 3 or 4.
    var securityCodeLength: Int

    static let members: Set<String> = ["cardholderName", "cardNumber", "expiryMonth", "expiryYear", "securityCode"]

    var description: String { "card •••• \(last4)" }

    /// Why the card JSON was refused; names the member, never its value.
    struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// Parses the JWE plaintext: a JSON object with exactly the five string members of
    /// GATEWAY.md, `cardNumber` 12–19 digits, `expiryMonth` "01"–"12", `expiryYear` two digits,
    /// `securityCode` 3 or 4 digits, `cardholderName` not blank, at most 45 characters, no
    /// control characters. The JSON is checked in full by the sandbox's one strict reader
    /// (EGWWire's `StrictJSONParser.scanShallow`) before any member is looked at; the caller wipes `plaintext`.
    static func parse(_ plaintext: UnsafeBufferPointer<UInt8>) throws(Problem) -> CardData {
        let document: JSONShallowDocument
        do {
            document = try StrictJSONParser.scanShallow(plaintext)
        } catch {
            throw Problem(reason: "the card data is not valid JSON (\(error.replyReason))")
        }
        guard document.kind == .object else { throw Problem(reason: "the card data is not a JSON object") }
        let keys = Set(document.members.map(\.name))
        if let missing = members.subtracting(keys).sorted().first {
            throw Problem(reason: "the card data has no \"\(missing)\"")
        }
        if let extra = keys.subtracting(members).sorted().first {
            throw Problem(reason: "the card data has an unexpected member \"\(extra)\"")
        }
        func decode<Sink: JSONScalarSink & ~Copyable>(_ key: String, into sink: inout Sink) throws(Problem) {
            guard let start = document[key]?.stringStart else {
                throw Problem(reason: "\"\(key)\" must be a string, not \(document[key]?.kind.typeName ?? "missing")")
            }
            do {
                try StrictJSONParser.decodeString(at: start, in: plaintext, into: &sink)
            } catch {  // scanShallow has already checked this string
                throw Problem(reason: "the card data is not valid JSON (\(error.replyReason))")
            }
        }
        func digits(_ key: String, _ lengths: ClosedRange<Int>) throws(Problem) -> CardDigits {
            var digits = CardDigits(capacity: lengths.upperBound)
            try decode(key, into: &digits)
            guard digits.isDigits(lengths) else {
                let count =
                    lengths.lowerBound == lengths.upperBound
                    ? "\(lengths.lowerBound)" : "\(lengths.lowerBound) to \(lengths.upperBound)"
                throw Problem(reason: "\"\(key)\" must be \(count) digits")
            }
            return digits
        }
        // The name is not secret (it is checked and dropped), so it may be a String.
        var nameScalars = NameScalars()
        try decode("cardholderName", into: &nameScalars)
        let name = String(nameScalars.scalars)
        guard !name.allSatisfy(\.isWhitespace) else { throw Problem(reason: "\"cardholderName\" is blank") }
        guard name.count <= 45 else { throw Problem(reason: "\"cardholderName\" is longer than 45 characters") }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Problem(reason: "\"cardholderName\" contains a control character")
        }
        let number = try digits("cardNumber", 12...19)
        let month = try digits("expiryMonth", 2...2).value
        guard (1...12).contains(month) else { throw Problem(reason: "\"expiryMonth\" must be 01 to 12") }
        let year = try digits("expiryYear", 2...2).value
        let code = try digits("securityCode", 3...4)
        return number.withDigits { digits in
            CardData(
                last4: String(decoding: digits.suffix(4), as: UTF8.self), isLuhnValid: Self.isLuhnValid(digits),
                behaviour: CardBehaviour.of(number: digits), expiryMonth: month, expiryYear: 2000 + year,
                securityCodeLength: code.utf8Count)
        }
    }

    /// Parses plaintext held in an array (tests); the caller wipes it.
    static func parse(_ plaintext: [UInt8]) throws(Problem) -> CardData {
        try plaintext.withUnsafeBufferPointer { (bytes) throws(Problem) in try parse(bytes) }
    }

    /// The Luhn check (ISO/IEC 7812-1 annex B) over ASCII digits.
    static func isLuhnValid(_ digits: UnsafeBufferPointer<UInt8>) -> Bool {
        var sum = 0
        for (i, c) in digits.reversed().enumerated() {
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

/// The cardholder name's scalars, for the checks on it.
private struct NameScalars: JSONScalarSink {
    var scalars = String.UnicodeScalarView()
    mutating func append(_ scalar: Unicode.Scalar) { scalars.append(scalar) }
}
