/// `application/x-www-form-urlencoded` bodies and query strings, as HTML forms send them (WHATWG URL
/// standard): one copy for the browser that sends them and the sandbox that reads them.
public enum FormEncoding {
    /// `name=value&...` in order, each part escaped by ``escape(_:)``.
    public static func encode(_ entries: [(name: String, value: String)]) -> String {
        entries.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    /// UTF-8, ASCII letters and digits and `*-._` kept, space as `+`, every other byte `%XX` (upper-case).
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"),
                UInt8(ascii: "."), UInt8(ascii: "_"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                result += "+"
            default:
                PercentEncoding.appendEscape(byte, to: &result)
            }
        }
        return result
    }

    /// Decodes `a=1&b=two+words` into ordered pairs; `nil` when a percent escape or the UTF-8 is invalid.
    public static func decode(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for field in Array(bytes).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = field.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentEncoding.decode(parts[0], plusAsSpace: true) else { return nil }
            let value = parts.count > 1 ? PercentEncoding.decode(parts[1], plusAsSpace: true) : ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// The first value of `name` in decoded pairs.
    public static func value(_ name: String, in pairs: [(name: String, value: String)]) -> String? {
        pairs.first(where: { $0.name == name })?.value
    }
}

/// RFC 3986 percent-encoding.
public enum PercentEncoding {
    /// One path segment: the unreserved characters (`A–Z a–z 0–9 - . _ ~`) kept, every other UTF-8 byte
    /// `%XX` (upper-case), so the segment can hold no `/`, `?`, `#` or `%` of its own.
    public static func pathSegment(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                appendEscape(byte, to: &result)
            }
        }
        return result
    }

    /// Decodes `%XX` escapes (and `+` as a space when `plusAsSpace`); `nil` for a broken escape or bytes
    /// that are not UTF-8.
    public static func decode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool = false) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = Array(bytes).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+") where plusAsSpace:
                out.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                out.append(high << 4 | low)
            default:
                out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func appendEscape(_ byte: UInt8, to result: inout String) {
        let hex = Array("0123456789ABCDEF".utf8)
        result.unicodeScalars.append("%")
        result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
        result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
