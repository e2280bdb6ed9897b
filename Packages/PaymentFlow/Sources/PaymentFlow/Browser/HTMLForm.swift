import Foundation

/// A form found on a loaded page, as the headless browser would submit it.
///
/// `fields` are the controls a browser submits by default, in document
/// order: text-like and hidden inputs, checked checkboxes and radios, the
/// selected option of each `<select>`, textareas. Disabled controls are left
/// out. `buttons` are the form's submit buttons (`<button>` without a type or
/// with `type="submit"`, `<input type="submit">` and `type="image"`).
public struct HTMLForm: Sendable, Equatable {
    /// One control's name and value, and the kind of control it came from.
    public struct Field: Sendable, Equatable {
        /// The control's `name`.
        public var name: String
        /// The value submitted by default.
        public var value: String
        /// The input type in lower case (`"hidden"`, `"text"`, `"password"`,
        /// `"radio"`, ...), or `"select"` / `"textarea"`.
        public var type: String

        /// Creates a field.
        public init(name: String, value: String, type: String = "text") {
            self.name = name
            self.value = value
            self.type = type
        }
    }

    /// A submit button.
    public struct Button: Sendable, Equatable {
        /// The button's `name`, when it has one (only named buttons add a field).
        public var name: String?
        /// The button's `value` (empty when absent).
        public var value: String
        /// The text a person would read on it.
        public var label: String

        /// Creates a button.
        public init(name: String?, value: String, label: String) {
            self.name = name
            self.value = value
            self.label = label
        }
    }

    /// The form's `id` attribute.
    public var id: String?
    /// The form's `name` attribute.
    public var name: String?
    /// `"GET"` or `"POST"` (anything but `post` is a GET, as in browsers).
    public var method: String
    /// The `action` resolved against the page URL (the page URL itself, minus
    /// its fragment, when `action` is absent or empty).
    public var action: URL
    /// The successful controls, in document order, without buttons.
    public var fields: [Field]
    /// The submit buttons, in document order.
    public var buttons: [Button]

    /// Creates a form (tests and custom presenters; the browser parses its own).
    public init(
        id: String? = nil, name: String? = nil, method: String = "GET", action: URL, fields: [Field] = [],
        buttons: [Button] = []
    ) {
        self.id = id
        self.name = name
        self.method = method
        self.action = action
        self.fields = fields
        self.buttons = buttons
    }

    /// The first field named `name`.
    public func field(_ name: String) -> Field? {
        fields.first { $0.name == name }
    }

    /// The entry list submitted when `button` is pressed (or the form is
    /// submitted by script when `button` is `nil`), with `overrides` applied:
    /// an override replaces the value of the first control of that name and
    /// removes later ones (so it also picks a radio or a named button's value);
    /// overrides naming no control are appended, sorted by name.
    public func entries(pressing button: Button?, overrides: [String: String] = [:]) -> [(name: String, value: String)]
    {
        var entries = fields.map { (name: $0.name, value: $0.value) }
        if let button, let buttonName = button.name, !buttonName.isEmpty {
            entries.append((buttonName, button.value))
        }
        for name in overrides.keys.sorted() {
            guard let value = overrides[name] else { continue }
            if let first = entries.firstIndex(where: { $0.name == name }) {
                entries[first].value = value
                var index = entries.count - 1
                while index > first {
                    if entries[index].name == name {
                        entries.remove(at: index)
                    }
                    index -= 1
                }
            } else {
                entries.append((name, value))
            }
        }
        return entries
    }
}

/// `application/x-www-form-urlencoded` serialisation (WHATWG URL standard):
/// UTF-8, `*-._` and alphanumerics kept, space as `+`, everything else `%XX`.
enum FormURLEncoding {
    static func encode(_ entries: [(name: String, value: String)]) -> String {
        entries.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
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
                let hex = Array("0123456789ABCDEF".utf8)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return result
    }
}

/// What the browser needs to know about a page: its forms and markers.
struct HTMLDocument {
    var title: String?
    /// `<meta name=... content=...>` pairs (names lower-cased), first wins.
    var meta: [String: String] = [:]
    /// The `onload` attribute of `<body>`.
    var bodyOnload: String?
    var forms: [HTMLForm] = []

    /// Parses `html` served at `url` (form actions resolve against it).
    init(parsing html: String, url: URL) {
        let pageURL = Self.withoutFragment(url)
        var current: HTMLForm?
        var select: (name: String, disabled: Bool, multiple: Bool, options: [(value: String, selected: Bool)])?
        var option: (value: String?, selected: Bool, text: String)?
        var button: (name: String?, value: String, text: String)?
        var textarea: (name: String, disabled: Bool)?
        var textareaText = ""
        var inTitle = false
        var titleText = ""

        func finishOption() {
            guard let open = option else { return }
            option = nil
            let value = open.value ?? open.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            select?.options.append((value, open.selected))
        }
        func finishSelect() {
            finishOption()
            guard let open = select else { return }
            select = nil
            guard !open.disabled, !open.name.isEmpty else { return }
            let chosen = open.options.filter(\.selected)
            if open.multiple {
                for entry in chosen {
                    current?.fields.append(.init(name: open.name, value: entry.value, type: "select"))
                }
            } else if let entry = chosen.last ?? open.options.first {
                current?.fields.append(.init(name: open.name, value: entry.value, type: "select"))
            }
        }
        func finishButton() {
            guard let open = button else { return }
            button = nil
            let label = open.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            current?.buttons.append(.init(name: open.name, value: open.value, label: label))
        }
        func finishForm() {
            finishSelect()
            finishButton()
            if let form = current {
                forms.append(form)
            }
            current = nil
        }

        for token in HTMLScanner.tokens(of: html) {
            switch token {
            case .text(let text):
                if inTitle {
                    titleText += text
                } else if textarea != nil {
                    textareaText += text
                } else if option != nil {
                    option?.text += text
                } else if button != nil {
                    button?.text += text
                }
            case .startTag(let name, let attributes, _):
                let disabled = attributes["disabled"] != nil
                switch name {
                case "form":
                    // Nested forms are ignored, as browsers do.
                    guard current == nil else { continue }
                    let method = attributes["method"]?.lowercased() == "post" ? "POST" : "GET"
                    let action = Self.resolve(attributes["action"], against: pageURL)
                    current = HTMLForm(id: attributes["id"], name: attributes["name"], method: method, action: action)
                case "input":
                    guard current != nil, !disabled else { continue }
                    let type = (attributes["type"] ?? "text").lowercased()
                    let inputName = attributes["name"] ?? ""
                    switch type {
                    case "submit", "image":
                        let value = attributes["value"] ?? ""
                        current?.buttons.append(
                            .init(
                                name: inputName.isEmpty ? nil : inputName, value: value,
                                label: value.isEmpty ? "Submit" : value))
                    case "checkbox", "radio":
                        if attributes["checked"] != nil && !inputName.isEmpty {
                            current?.fields.append(
                                .init(name: inputName, value: attributes["value"] ?? "on", type: type))
                        }
                    case "reset", "button", "file":
                        continue
                    default:
                        if !inputName.isEmpty {
                            current?.fields.append(.init(name: inputName, value: attributes["value"] ?? "", type: type))
                        }
                    }
                case "button":
                    finishButton()
                    guard current != nil, !disabled else { continue }
                    let type = (attributes["type"] ?? "submit").lowercased()
                    guard type == "submit" else { continue }
                    let buttonName = attributes["name"] ?? ""
                    button = (buttonName.isEmpty ? nil : buttonName, attributes["value"] ?? "", "")
                case "select":
                    finishSelect()
                    guard current != nil else { continue }
                    select = (attributes["name"] ?? "", disabled, attributes["multiple"] != nil, [])
                case "option":
                    finishOption()
                    guard select != nil, !disabled else { continue }
                    option = (attributes["value"], attributes["selected"] != nil, "")
                case "textarea":
                    textareaText = ""
                    textarea = current == nil ? nil : (attributes["name"] ?? "", disabled)
                case "title":
                    inTitle = title == nil
                    titleText = ""
                case "meta":
                    if let metaName = attributes["name"]?.lowercased(), meta[metaName] == nil {
                        meta[metaName] = attributes["content"] ?? ""
                    }
                case "body":
                    if bodyOnload == nil {
                        bodyOnload = attributes["onload"]
                    }
                default:
                    continue
                }
            case .endTag(let name):
                switch name {
                case "form":
                    finishForm()
                case "button":
                    finishButton()
                case "select":
                    finishSelect()
                case "option":
                    finishOption()
                case "textarea":
                    if let open = textarea, !open.disabled, !open.name.isEmpty {
                        // A single leading newline is not part of the value.
                        var value = textareaText
                        if value.hasPrefix("\r\n") || value.hasPrefix("\n") {
                            value.removeFirst()
                        }
                        current?.fields.append(.init(name: open.name, value: value, type: "textarea"))
                    }
                    textarea = nil
                case "title":
                    if inTitle {
                        title = titleText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                        inTitle = false
                    }
                default:
                    continue
                }
            }
        }
        // A form left open at the end of the document still counts.
        finishForm()
    }

    /// `action` resolved against the page; the page itself when absent or empty.
    static func resolve(_ action: String?, against page: URL) -> URL {
        let trimmed = action?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !trimmed.isEmpty, let resolved = URL(string: trimmed, relativeTo: page)?.absoluteURL else {
            return page
        }
        return withoutFragment(resolved)
    }

    static func withoutFragment(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true), components.fragment != nil else {
            return url.absoluteURL
        }
        components.fragment = nil
        return components.url ?? url.absoluteURL
    }
}
