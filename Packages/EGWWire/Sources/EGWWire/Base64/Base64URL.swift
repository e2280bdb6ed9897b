/// Unpadded base64url (RFC 4648 section 5, RFC 7515 section 2), strict on decoding.
///
/// Decoding accepts only the 64 URL-safe characters, no padding, no whitespace, never a length of 4k+1, and
/// only canonical trailing bits (the unused low bits of the last character must be zero), so every byte
/// string has exactly one accepted encoding. Foundation's decoder is lax on all of these. The project's one
/// codec: JWE segments and keys, the sandbox's 3-D Secure messages.
///
/// ```swift
/// Base64URL.encode(Array("foob".utf8))  // "Zm9vYg"
/// Base64URL.decode("Zm9vYg==")          // nil: padding is refused
/// ```
public enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0...63 for an alphabet byte, 0xFF for everything else.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    /// The number of characters that encode `count` bytes.
    @inlinable
    public static func encodedCount(_ count: Int) -> Int {
        let remainder = count % 3
        return count / 3 * 4 + (remainder == 0 ? 0 : remainder + 1)
    }

    /// Writes the encoding of `source` at `destination` (which must have room for ``encodedCount(_:)``
    /// bytes) and returns the number of bytes written.
    @discardableResult
    public static func encode(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutablePointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { table in
            let count = source.count
            var input = 0
            var output = 0
            while input + 3 <= count {
                let value = UInt32(source[input]) << 16 | UInt32(source[input + 1]) << 8 | UInt32(source[input + 2])
                destination[output] = table[Int(value >> 18)]
                destination[output + 1] = table[Int(value >> 12 & 63)]
                destination[output + 2] = table[Int(value >> 6 & 63)]
                destination[output + 3] = table[Int(value & 63)]
                input += 3
                output += 4
            }
            switch count - input {
            case 1:
                let value = UInt32(source[input]) << 16
                destination[output] = table[Int(value >> 18)]
                destination[output + 1] = table[Int(value >> 12 & 63)]
                output += 2
            case 2:
                let value = UInt32(source[input]) << 16 | UInt32(source[input + 1]) << 8
                destination[output] = table[Int(value >> 18)]
                destination[output + 1] = table[Int(value >> 12 & 63)]
                destination[output + 2] = table[Int(value >> 6 & 63)]
                output += 3
            default:
                break
            }
            return output
        }
    }

    /// The encoding of `bytes` as a string.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        let length = encodedCount(bytes.count)
        return String(unsafeUninitializedCapacity: length) { buffer in
            bytes.withUnsafeBytes { encode($0, into: buffer.baseAddress!) }
        }
    }

    /// The number of bytes `count` characters decode to, or nil when no valid encoding has that length.
    @inlinable
    public static func decodedCount(_ count: Int) -> Int? {
        switch count % 4 {
        case 0: return count / 4 * 3
        case 2: return count / 4 * 3 + 1
        case 3: return count / 4 * 3 + 2
        default: return nil
        }
    }

    /// Decodes `source` strictly into `destination` (room for ``decodedCount(_:)`` bytes); false when
    /// `source` is not a canonical unpadded base64url encoding.
    public static func decode(
        _ source: UnsafeBufferPointer<UInt8>, into destination: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        guard decodedCount(source.count) != nil else { return false }
        return decodeTable.withUnsafeBufferPointer { table in
            let count = source.count
            var input = 0
            var output = 0
            var invalid: UInt8 = 0
            while input + 4 <= count {
                let a = table[Int(source[input])]
                let b = table[Int(source[input + 1])]
                let c = table[Int(source[input + 2])]
                let d = table[Int(source[input + 3])]
                invalid |= (a | b | c | d) & 0x80
                let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                destination[output] = UInt8(truncatingIfNeeded: value >> 16)
                destination[output + 1] = UInt8(truncatingIfNeeded: value >> 8)
                destination[output + 2] = UInt8(truncatingIfNeeded: value)
                input += 4
                output += 3
            }
            switch count - input {
            case 2:
                let a = table[Int(source[input])]
                let b = table[Int(source[input + 1])]
                invalid |= (a | b) & 0x80
                invalid |= b & 0x0F  // the 4 unused bits must be zero
                destination[output] = a << 2 | b >> 4
            case 3:
                let a = table[Int(source[input])]
                let b = table[Int(source[input + 1])]
                let c = table[Int(source[input + 2])]
                invalid |= (a | b | c) & 0x80
                invalid |= c & 0x03  // the 2 unused bits must be zero
                destination[output] = a << 2 | b >> 4
                destination[output + 1] = b << 4 | c >> 2
            default:
                break
            }
            return invalid == 0
        }
    }

    /// Decodes `source` strictly; nil when it is not a canonical unpadded base64url encoding.
    public static func decode(_ source: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let length = decodedCount(source.count) else { return nil }
        var ok = false
        let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
            if length > 0 {
                ok = decode(source, into: buffer.baseAddress!)
            } else {
                ok = true
            }
            initialized = length
        }
        return ok ? bytes : nil
    }

    /// Decodes a string strictly; nil when it is not a canonical unpadded base64url encoding.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }
}
