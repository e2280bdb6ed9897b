import Foundation

/// A tolerant, single-pass HTML tokenizer: enough to find forms, inputs,
/// buttons, `<title>`, `<meta>` and `<body onload>` in pages a gateway or an
/// ACS serves. It never fails: malformed markup degrades to text.
///
/// Handled: comments, doctype and processing instructions (skipped); start
/// and end tags with double-, single- or un-quoted attributes; boolean
/// attributes; character references (named basics and numeric); raw-text
/// elements (`script`, `style`, `textarea`, `title`) whose content is not
/// parsed as markup. Not handled: implied end tags beyond what forms need.
struct HTMLScanner {
    enum Token: Equatable {
        case startTag(name: String, attributes: [String: String], selfClosing: Bool)
        case endTag(name: String)
        case text(String)
    }

    /// Elements whose content is raw text up to the matching end tag.
    static let rawTextElements: Set<String> = ["script", "style", "textarea", "title"]

    private let bytes: [UInt8]
    private var index = 0

    init(_ html: String) {
        bytes = Array(html.utf8)
    }

    /// All tokens of the document, in order.
    static func tokens(of html: String) -> [Token] {
        var scanner = HTMLScanner(html)
        var result: [Token] = []
        while let token = scanner.next() {
            result.append(token)
        }
        return result
    }

    private var pendingRawEnd: String?
    private var pendingEndTag: String?

    mutating func next() -> Token? {
        if let name = pendingEndTag {
            pendingEndTag = nil
            return .endTag(name: name)
        }
        if let element = pendingRawEnd {
            pendingRawEnd = nil
            return rawText(until: element)
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "<") {
                if let token = markup() {
                    return token
                }
                continue
            }
            let start = index
            while index < bytes.count && bytes[index] != UInt8(ascii: "<") {
                index += 1
            }
            return .text(HTMLEntities.decode(text(start, index)))
        }
        return nil
    }

    /// At a `<`: returns a tag token, or `nil` after skipping a comment or
    /// declaration; a `<` that starts nothing becomes text.
    private mutating func markup() -> Token? {
        if starts(with: "<!--") {
            if let end = find("-->", from: index + 4) {
                index = end + 3
            } else {
                index = bytes.count
            }
            return nil
        }
        let nextByte = index + 1 < bytes.count ? bytes[index + 1] : 0
        if nextByte == UInt8(ascii: "!") || nextByte == UInt8(ascii: "?") {
            skipPast(UInt8(ascii: ">"))
            return nil
        }
        if nextByte == UInt8(ascii: "/") {
            index += 2
            let name = readName()
            skipPast(UInt8(ascii: ">"))
            if name.isEmpty {
                return nil
            }
            return .endTag(name: name)
        }
        guard Self.isASCIILetter(nextByte) else {
            index += 1
            return .text("<")
        }
        index += 1
        let name = readName()
        var attributes: [String: String] = [:]
        var selfClosing = false
        while index < bytes.count {
            skipWhitespace()
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: ">") {
                index += 1
                break
            }
            if byte == UInt8(ascii: "/") {
                index += 1
                if index < bytes.count && bytes[index] == UInt8(ascii: ">") {
                    selfClosing = true
                }
                continue
            }
            let attributeStart = index
            while index < bytes.count, !Self.isWhitespace(bytes[index]),
                bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ">"),
                !(bytes[index] == UInt8(ascii: "/") && index > attributeStart)
            {
                index += 1
            }
            if index == attributeStart {
                // A stray `=` or similar: skip it.
                index += 1
                continue
            }
            let attributeName = text(attributeStart, index).lowercased()
            skipWhitespace()
            var value = ""
            if index < bytes.count && bytes[index] == UInt8(ascii: "=") {
                index += 1
                skipWhitespace()
                value = HTMLEntities.decode(readAttributeValue())
            }
            if attributes[attributeName] == nil {
                attributes[attributeName] = value
            }
        }
        if Self.rawTextElements.contains(name) && !selfClosing {
            pendingRawEnd = name
        }
        return .startTag(name: name, attributes: attributes, selfClosing: selfClosing)
    }

    /// The raw content of `element` up to its end tag, then that end tag.
    private mutating func rawText(until element: String) -> Token {
        let start = index
        var end = bytes.count
        var search = index
        while let candidate = find("</", from: search) {
            let nameStart = candidate + 2
            let nameEnd = nameStart + element.utf8.count
            if nameEnd <= bytes.count,
                text(nameStart, nameEnd).lowercased() == element,
                nameEnd == bytes.count || !Self.isNameByte(bytes[nameEnd])
            {
                end = candidate
                break
            }
            search = candidate + 2
        }
        let raw = text(start, end)
        index = end
        if index < bytes.count {
            index += 2 + element.utf8.count
            skipPast(UInt8(ascii: ">"))
        }
        pendingEndTag = element
        // Script and style stay verbatim; textarea and title decode references.
        let content = element == "script" || element == "style" ? raw : HTMLEntities.decode(raw)
        return .text(content)
    }

    private mutating func readName() -> String {
        let start = index
        while index < bytes.count && Self.isNameByte(bytes[index]) {
            index += 1
        }
        return text(start, index).lowercased()
    }

    private mutating func readAttributeValue() -> String {
        guard index < bytes.count else { return "" }
        let quote = bytes[index]
        if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
            let start = index + 1
            var end = start
            while end < bytes.count && bytes[end] != quote {
                end += 1
            }
            index = min(end + 1, bytes.count)
            return text(start, end)
        }
        let start = index
        while index < bytes.count && !Self.isWhitespace(bytes[index]) && bytes[index] != UInt8(ascii: ">") {
            index += 1
        }
        return text(start, index)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count && Self.isWhitespace(bytes[index]) {
            index += 1
        }
    }

    private mutating func skipPast(_ byte: UInt8) {
        while index < bytes.count && bytes[index] != byte {
            index += 1
        }
        index = min(index + 1, bytes.count)
    }

    private func starts(with literal: String) -> Bool {
        let needle = Array(literal.utf8)
        guard index + needle.count <= bytes.count else { return false }
        return bytes[index..<(index + needle.count)].elementsEqual(needle)
    }

    private func find(_ literal: String, from start: Int) -> Int? {
        let needle = Array(literal.utf8)
        guard start >= 0, start + needle.count <= bytes.count else { return nil }
        var position = start
        while position + needle.count <= bytes.count {
            if bytes[position] == needle[0] && bytes[position..<(position + needle.count)].elementsEqual(needle) {
                return position
            }
            position += 1
        }
        return nil
    }

    private func text(_ start: Int, _ end: Int) -> String {
        guard start < end else { return "" }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        !isWhitespace(byte) && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "/") && byte != 0
    }
}

/// Character references: the handful of named ones pages use, and numeric ones.
enum HTMLEntities {
    static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}",
        "copy": "\u{00A9}", "reg": "\u{00AE}", "euro": "\u{20AC}", "hellip": "\u{2026}",
        "ndash": "\u{2013}", "mdash": "\u{2014}", "bull": "\u{2022}",
    ]

    /// `text` with `&name;`, `&#NN;` and `&#xHH;` replaced; unknown or
    /// malformed references are kept as written. References are found code
    /// point by code point (as the HTML standard reads them), not by
    /// `Character`: a combining mark after `&` or `;` does not hide one.
    static func decode(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        let scalars = text.unicodeScalars
        var result = String.UnicodeScalarView()
        var index = scalars.startIndex
        while index < scalars.endIndex {
            guard scalars[index] == "&" else {
                result.append(scalars[index])
                index = scalars.index(after: index)
                continue
            }
            let afterAmp = scalars.index(after: index)
            if let semicolon = scalars[afterAmp...].prefix(12).firstIndex(of: ";"),
                let replacement = resolve(Substring(scalars[afterAmp..<semicolon]))
            {
                result.append(contentsOf: replacement.unicodeScalars)
                index = scalars.index(after: semicolon)
            } else {
                result.append("&")
                index = afterAmp
            }
        }
        return String(result)
    }

    private static func resolve(_ reference: Substring) -> String? {
        if reference.hasPrefix("#") {
            let digits = reference.dropFirst()
            let value: UInt32?
            if digits.hasPrefix("x") || digits.hasPrefix("X") {
                value = UInt32(digits.dropFirst(), radix: 16)
            } else {
                value = UInt32(digits, radix: 10)
            }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return String(Character(scalar))
        }
        return named[String(reference)]
    }
}
