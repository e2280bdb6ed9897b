import Foundation

/// What a headless client reads off a sandbox page: the `egw-*` meta markers and the forms.
/// A deliberately simple scanner written for the tests, independent of the server's templates.
struct Page {
    struct Form {
        var id: String?
        var method: String
        var action: String
        var hidden: [(name: String, value: String)]
        var buttons: [(name: String, value: String)]
        var textInputs: [String]
    }

    let html: String

    init(_ html: String) { self.html = html }

    /// `content` of `<meta name="NAME" content="...">`.
    func meta(_ name: String) -> String? {
        for tag in tags("meta") where attribute("name", of: tag) == name {
            return attribute("content", of: tag)
        }
        return nil
    }

    var forms: [Form] {
        var result: [Form] = []
        var rest = html[...]
        while let start = rest.range(of: "<form "), let close = rest[start.lowerBound...].range(of: "</form>") {
            let block = String(rest[start.lowerBound..<close.upperBound])
            let openTag = String(block[..<(block.firstIndex(of: ">") ?? block.endIndex)])
            var form = Form(
                id: attribute("id", of: openTag), method: attribute("method", of: openTag) ?? "get",
                action: attribute("action", of: openTag) ?? "", hidden: [], buttons: [], textInputs: [])
            let inner = Page(block)
            for input in inner.tags("input") {
                let type = attribute("type", of: input) ?? "text"
                guard let name = attribute("name", of: input) else { continue }
                if type == "hidden" { form.hidden.append((name, attribute("value", of: input) ?? "")) }
                if type == "text" { form.textInputs.append(name) }
            }
            for button in inner.tags("button") {
                if let name = attribute("name", of: button) {
                    form.buttons.append((name, attribute("value", of: button) ?? ""))
                }
            }
            result.append(form)
            rest = rest[close.upperBound...]
        }
        return result
    }

    func form(id: String) -> Form? { forms.first(where: { $0.id == id }) }

    /// Every `<NAME ...>` opening tag.
    func tags(_ name: String) -> [String] {
        var found: [String] = []
        var rest = html[...]
        while let start = rest.range(of: "<\(name) ") ?? rest.range(of: "<\(name)>") {
            guard let end = rest[start.lowerBound...].firstIndex(of: ">") else { break }
            found.append(String(rest[start.lowerBound...end]))
            rest = rest[rest.index(after: end)...]
        }
        return found
    }

    func attribute(_ name: String, of tag: String) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        guard let end = tag[start.upperBound...].firstIndex(of: "\"") else { return nil }
        return Self.decodeEntities(String(tag[start.upperBound..<end]))
    }

    static func decodeEntities(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

extension Page.Form {
    /// The form body a browser sends: hidden fields, then `extra`, url-encoded.
    func body(_ extra: [(String, String)]) -> [UInt8] {
        let pairs = hidden.map { ($0.name, $0.value) } + extra
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let text = pairs.map { name, value in
            "\(name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")="
                + "\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
        return Array(text.utf8)
    }
}
