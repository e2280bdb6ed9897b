@_spi(SensitiveMemory) import CardValidation
internal import EGWWire
import Foundation

/// Builds the JWE plaintext (`{"cardholderName","cardNumber","expiryMonth","expiryYear","securityCode"}`,
/// the number as digits only) in one `SensitiveBytes` sized exactly once, hands it to `body` (the
/// encryption), then lets it go: the bytes sit in memory excluded from core dumps (`MADV_DONTDUMP`), locked
/// against swap where the kernel allows, and are wiped with `explicit_bzero` on release. No other copy is
/// made: the plaintext never lives in a `String` or a growable array. Strings are escaped by EGWWire's one
/// policy (`JSONWriter.writeEscaped`), a scalar at a time straight into the buffer.
///
/// `card` is the run's one `CardInput.Snapshot`, the value the flow validated, so what is encrypted is
/// what was validated. Its number and code are read in place from the snapshot's own protected buffers
/// (shared with the `CardInput` they were read from); the flow never asks the snapshot for a `String` of
/// either.
enum CardPlaintext {
    /// The label the flow shows for `card` in its actions and logs: `card •••• 4242`, the number in
    /// CardValidation's one masked form (`CardNumberRedaction.masked`), no brand, no other field.
    static func label(_ card: CardInput.Snapshot) -> String {
        "card " + card.maskedCardNumber
    }

    /// One field's value: a `String` (name, expiry) or protected bytes (number, code).
    private enum Value {
        case text(String)
        case bytes(SensitiveBytes, digitsOnly: Bool)
    }

    static func with<R>(_ card: CardInput.Snapshot, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let fields: [(String, Value)] = [
            ("cardholderName", .text(card.cardholderName)),
            ("cardNumber", .bytes(card.cardNumberBytes, digitsOnly: true)),
            ("expiryMonth", .text(card.expiryMonth)),
            ("expiryYear", .text(card.expiryYear)),
            ("securityCode", .bytes(card.securityCodeBytes, digitsOnly: false)),
        ]
        var size = 2 + (fields.count - 1)  // braces and commas
        for (name, value) in fields {
            size += name.utf8.count + 3 + 2  // "name": and the value's quotes
            forEachValueByte(value, counting: true) { _ in size += 1 }
        }
        let plaintext = SensitiveBytes(capacity: size) { buffer in
            var offset = 0
            func put(_ byte: UInt8) {
                buffer[offset] = byte
                offset += 1
            }
            put(UInt8(ascii: "{"))
            for (index, (name, value)) in fields.enumerated() {
                if index > 0 { put(UInt8(ascii: ",")) }
                put(UInt8(ascii: "\""))
                for byte in name.utf8 { put(byte) }
                put(UInt8(ascii: "\""))
                put(UInt8(ascii: ":"))
                put(UInt8(ascii: "\""))
                forEachValueByte(value, counting: false, put)
                put(UInt8(ascii: "\""))
            }
            put(UInt8(ascii: "}"))
            precondition(offset == size, "card plaintext size mismatch")
            return offset
        }
        return try withExtendedLifetime(plaintext) { try plaintext.withUnsafeBytes(body) }
    }

    /// The JSON bytes of `value` (without quotes): digits only for the number, every other value escaped
    /// a scalar at a time (decoded in place from protected bytes, so no `String` of the code is made).
    /// When `counting`, `emit` is called once per byte the escaped form has, with a placeholder byte.
    private static func forEachValueByte(_ value: Value, counting: Bool, _ emit: (UInt8) -> Void) {
        func scalar(_ scalar: Unicode.Scalar) {
            if counting {
                for _ in 0..<JSONWriter.escapedByteCount(of: scalar) { emit(0) }
            } else {
                JSONWriter.writeEscaped(scalar, emit)
            }
        }
        switch value {
        case .text(let text):
            for each in text.unicodeScalars { scalar(each) }
        case .bytes(let bytes, let digitsOnly):
            bytes.withUnsafeBytes { raw in
                if digitsOnly {
                    for byte in raw where byte >= 0x30 && byte <= 0x39 { emit(byte) }
                    return
                }
                var source = raw.makeIterator()
                var decoder = Unicode.UTF8()
                while true {
                    switch decoder.decode(&source) {
                    case .scalarValue(let each): scalar(each)
                    case .error: scalar("\u{FFFD}")
                    case .emptyInput: return
                    }
                }
            }
        }
    }
}
