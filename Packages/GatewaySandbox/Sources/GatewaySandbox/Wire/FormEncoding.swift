/// `application/x-www-form-urlencoded` bodies and query strings, as HTML forms send them.
enum FormEncoding {
    /// Decodes `a=1&b=two+words` into ordered pairs; `nil` when a percent escape or the UTF-8 is invalid.
    static func decode(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for field in Array(bytes).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = field.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecode(parts[0]) else { return nil }
            let value = parts.count > 1 ? percentDecode(parts[1]) : ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// The first value of `name` in a decoded form.
    static func value(_ name: String, in pairs: [(name: String, value: String)]) -> String? {
        pairs.first(where: { $0.name == name })?.value
    }

    static func percentDecode(_ bytes: some Collection<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = Array(bytes).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
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

    /// Percent-encodes everything but unreserved characters (RFC 3986), spaces as `%20`.
    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
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

/// Escaping for text and attribute values in the sandbox's HTML pages.
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
