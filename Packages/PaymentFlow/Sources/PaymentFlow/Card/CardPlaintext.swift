import CardValidation
internal import EGWWire
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Builds the JWE plaintext (`{"cardholderName","cardNumber","expiryMonth","expiryYear","securityCode"}`,
/// the number as digits only) in a buffer allocated once at its exact size, hands it to `body`, then wipes
/// it with `explicit_bzero` and frees it. No other copy is made: the plaintext never lives in a `String`
/// or a growable array. Strings are escaped by EGWWire's one policy (`JSONWriter.writeEscaped`), a scalar
/// at a time straight into the buffer.
///
/// `card` is the run's one `CardInput.Snapshot`, the value the flow validated, so what is encrypted is
/// what was validated. Its strings share storage with the `CardInput` they were read from.
enum CardPlaintext {
    /// The label the flow shows for `card` in its actions and logs: `card •••• 4242`, the number in
    /// CardValidation's one masked form (`CardNumberRedaction.masked`), no brand, no other field.
    static func label(_ card: CardInput.Snapshot) -> String {
        "card " + CardNumberRedaction.masked(card.cardNumber)
    }

    static func with<R>(_ card: CardInput.Snapshot, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let fields: [(String, String, Bool)] = [
            ("cardholderName", card.cardholderName, false),
            ("cardNumber", card.cardNumber, true),
            ("expiryMonth", card.expiryMonth, false),
            ("expiryYear", card.expiryYear, false),
            ("securityCode", card.securityCode, false),
        ]
        var size = 2 + (fields.count - 1)  // braces and commas
        for (name, value, digitsOnly) in fields {
            size += name.utf8.count + 3 + 2  // "name": and the value's quotes
            size +=
                digitsOnly
                ? value.utf8.reduce(0) { $0 + (isDigit($1) ? 1 : 0) }
                : value.unicodeScalars.reduce(0) { $0 + JSONWriter.escapedByteCount(of: $1) }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer {
            if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
            buffer.deallocate()
        }
        var offset = 0
        func put(_ byte: UInt8) {
            buffer[offset] = byte
            offset += 1
        }
        put(UInt8(ascii: "{"))
        for (index, (name, value, digitsOnly)) in fields.enumerated() {
            if index > 0 { put(UInt8(ascii: ",")) }
            put(UInt8(ascii: "\""))
            for byte in name.utf8 { put(byte) }
            put(UInt8(ascii: "\""))
            put(UInt8(ascii: ":"))
            put(UInt8(ascii: "\""))
            if digitsOnly {
                for byte in value.utf8 where isDigit(byte) { put(byte) }
            } else {
                for scalar in value.unicodeScalars { JSONWriter.writeEscaped(scalar, put) }
            }
            put(UInt8(ascii: "\""))
        }
        put(UInt8(ascii: "}"))
        precondition(offset == size, "card plaintext size mismatch")
        return try body(UnsafeRawBufferPointer(buffer))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
