import Foundation

/// A form found on a loaded page, as the headless browser would submit it.
///
/// `fields` are the controls a browser submits by default, in document
/// order: text-like and hidden inputs, checked checkboxes and radios, the
/// selected option of each `<select>`, textareas. Disabled controls are left
/// out. `buttons` are the form's submit buttons (`<button>` without a type or
/// with `type="submit"`, `<input type="submit">` and `type="image"`).
/// `inputs` are the controls a buyer sees and fills in, with the words that
/// describe them (what the browser reads to find a challenge's code field).
///
/// A value: safe to share between threads.
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
        /// The text a person would read on it: a `<button>`'s text, whitespace
        /// collapsed, or an `<input type="submit">`'s `value` (`"Submit"` when empty).
        public var label: String
        /// Whether the button sits inside `<noscript>`: only a browser that runs
        /// no scripts shows it. Auto-submitting pages offer such a button as the
        /// manual fallback of their script.
        public var isInNoscript: Bool

        /// Creates a button.
        public init(name: String?, value: String, label: String, isInNoscript: Bool = false) {
            self.name = name
            self.value = value
            self.label = label
            self.isInNoscript = isInNoscript
        }
    }

    /// A control the buyer sees and fills in or picks: every `<input>` except
    /// `hidden`, `submit`, `image`, `reset`, `button` and `file`, and every
    /// `<select>` and `<textarea>`, enabled, named or not (an unnamed control
    /// is shown but never submitted).
    public struct Input: Sendable, Equatable {
        /// The control's `name` (`""` when it has none).
        public var name: String
        /// The input type in lower case (`"text"` when absent), or `"select"` / `"textarea"`.
        public var type: String
        /// The control's `id` attribute.
        public var id: String?
        /// The text that names it for a person, whitespace collapsed: its
        /// `<label>` (wrapping it, or pointing at its `id` with `for`), else
        /// `aria-label`, else `title`; `""` when nothing names it.
        public var label: String
        /// The `placeholder` attribute (`""` when absent).
        public var placeholder: String
        /// The `autocomplete` attribute in lower case (`""` when absent), e.g. `one-time-code`.
        public var autocomplete: String

        /// Creates an input description.
        public init(
            name: String, type: String = "text", id: String? = nil, label: String = "", placeholder: String = "",
            autocomplete: String = ""
        ) {
            self.name = name
            self.type = type
            self.id = id
            self.label = label
            self.placeholder = placeholder
            self.autocomplete = autocomplete
        }

        /// Whether a buyer types free text into it, as into a challenge's code
        /// field: `text`, `password`, `number`, `tel`, or a type browsers do
        /// not know (they show it as text). `email`, `url` and `search` are left
        /// out: a one-time code never goes there.
        public var isTextEntry: Bool {
            !Self.notTextEntry.contains(type)
        }

        /// Visible control types a challenge code never goes into.
        static let notTextEntry: Set<String> = [
            "select", "textarea", "checkbox", "radio", "email", "url", "search", "color", "date", "datetime-local",
            "month", "week", "time", "range",
        ]
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
    /// The controls a buyer sees and fills in, in document order (see ``Input``).
    public var inputs: [Input]

    /// Creates a form (tests and custom presenters; the browser parses its own).
    public init(
        id: String? = nil, name: String? = nil, method: String = "GET", action: URL, fields: [Field] = [],
        buttons: [Button] = [], inputs: [Input] = []
    ) {
        self.id = id
        self.name = name
        self.method = method
        self.action = action
        self.fields = fields
        self.buttons = buttons
        self.inputs = inputs
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

/// What the browser needs to know about a page: its forms, markers and scripts.
struct HTMLDocument {
    var title: String?
    /// `<meta name=... content=...>` pairs (names lower-cased), first wins.
    var meta: [String: String] = [:]
    /// The `onload` attribute of `<body>`.
    var bodyOnload: String?
    var forms: [HTMLForm] = []
    /// The code of each inline `<script>` that holds JavaScript (not JSON or a
    /// template), in document order; empty scripts are left out.
    var scripts: [String] = []
    /// How many `<script src=...>` elements load code from elsewhere.
    var externalScripts = 0
    /// Every other piece of script the page carries: event-handler attributes
    /// (`onclick`, `onsubmit`, ...; `<body onload>` is ``bodyOnload``) and
    /// `javascript:` URLs in `href`, `action` or `formaction`.
    var handlers: [String] = []
    /// How many buttons outside `<noscript>` do nothing without script
    /// (`<button type="button">`, `<input type="button">`), in forms or not.
    var scriptButtons = 0

    /// Whether the page carries any script at all (which the browser cannot run).
    var hasScript: Bool {
        !scripts.isEmpty || externalScripts > 0 || !handlers.isEmpty || bodyOnload != nil
    }

    /// `<script type>` values that hold JavaScript (absent or empty is JavaScript too).
    static let scriptTypes: Set<String> = [
        "text/javascript", "application/javascript", "module", "text/ecmascript", "application/ecmascript",
    ]

    /// Parses `html` served at `url` (form actions resolve against it).
    init(parsing html: String, url: URL) {
        let pageURL = Self.withoutFragment(url)
        var current: HTMLForm?
        var select: (name: String, disabled: Bool, multiple: Bool, options: [(value: String, selected: Bool)])?
        var option: (value: String?, selected: Bool, text: String)?
        var button: (name: String?, value: String, text: String, noscript: Bool)?
        var textarea: (name: String, disabled: Bool)?
        var textareaText = ""
        var inTitle = false
        var titleText = ""
        // Raw text that is not page text: a script's code (captured when it is JavaScript) or a style sheet.
        var rawElement: (name: String, code: String?)?
        var noscriptDepth = 0
        // An open <label>: its `for`, its text so far, and the inputs (of `current`) it wraps.
        var label: (forID: String?, text: String, wrapped: [Int])?
        var labelsByID: [String: String] = [:]
        // (form, input) positions a wrapping label named: a `for` label does not rename them.
        var namedByWrappingLabel: Set<[Int]> = []

        func collapsed(_ text: String) -> String {
            text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        func addInput(_ attributes: [String: String], type: String) {
            guard current != nil else { return }
            let named = [attributes["aria-label"], attributes["title"]].compactMap { $0 }.first { !$0.isEmpty }
            current?.inputs.append(
                .init(
                    name: attributes["name"] ?? "", type: type, id: attributes["id"],
                    label: collapsed(named ?? ""), placeholder: attributes["placeholder"] ?? "",
                    autocomplete: (attributes["autocomplete"] ?? "").lowercased()))
            if label != nil, let count = current?.inputs.count {
                label?.wrapped.append(count - 1)
            }
        }
        func finishLabel() {
            guard let open = label else { return }
            label = nil
            let text = collapsed(open.text)
            guard !text.isEmpty else { return }
            if let forID = open.forID, !forID.isEmpty, labelsByID[forID] == nil {
                labelsByID[forID] = text
            }
            // A label's own text names the controls it wraps (over aria-label and title).
            for index in open.wrapped where current?.inputs.indices.contains(index) == true {
                current?.inputs[index].label = text
                namedByWrappingLabel.insert([forms.count, index])
            }
        }
        func finishOption() {
            guard let open = option else { return }
            option = nil
            let value = open.value ?? collapsed(open.text)
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
            current?.buttons.append(
                .init(name: open.name, value: open.value, label: collapsed(open.text), isInNoscript: open.noscript))
        }
        func finishForm() {
            finishSelect()
            finishButton()
            finishLabel()
            if let form = current {
                forms.append(form)
            }
            current = nil
        }

        for token in HTMLScanner.tokens(of: html) {
            switch token {
            case .text(let text):
                if rawElement != nil {
                    rawElement?.code? += text
                    continue
                }
                if label != nil && option == nil && textarea == nil {
                    label?.text += text
                }
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
                noteScript(in: name, attributes)
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
                                label: value.isEmpty ? "Submit" : collapsed(value), isInNoscript: noscriptDepth > 0))
                    case "checkbox", "radio":
                        addInput(attributes, type: type)
                        if attributes["checked"] != nil && !inputName.isEmpty {
                            current?.fields.append(
                                .init(name: inputName, value: attributes["value"] ?? "on", type: type))
                        }
                    case "button":
                        scriptButtons += noscriptDepth == 0 ? 1 : 0
                    case "reset", "file":
                        continue
                    default:
                        if type != "hidden" {
                            addInput(attributes, type: type)
                        }
                        if !inputName.isEmpty {
                            current?.fields.append(.init(name: inputName, value: attributes["value"] ?? "", type: type))
                        }
                    }
                case "button":
                    finishButton()
                    let type = (attributes["type"] ?? "submit").lowercased()
                    if type == "button" && noscriptDepth == 0 {
                        scriptButtons += 1
                    }
                    guard current != nil, !disabled, type == "submit" else { continue }
                    let buttonName = attributes["name"] ?? ""
                    button = (buttonName.isEmpty ? nil : buttonName, attributes["value"] ?? "", "", noscriptDepth > 0)
                case "select":
                    finishSelect()
                    guard current != nil else { continue }
                    select = (attributes["name"] ?? "", disabled, attributes["multiple"] != nil, [])
                    if !disabled {
                        addInput(attributes, type: "select")
                    }
                case "option":
                    finishOption()
                    guard select != nil, !disabled else { continue }
                    option = (attributes["value"], attributes["selected"] != nil, "")
                case "textarea":
                    textareaText = ""
                    textarea = current == nil ? nil : (attributes["name"] ?? "", disabled)
                    if current != nil, !disabled {
                        addInput(attributes, type: "textarea")
                    }
                case "label":
                    finishLabel()
                    label = (attributes["for"], "", [])
                case "noscript":
                    noscriptDepth += 1
                case "script":
                    let type = (attributes["type"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
                    let isCode = type.isEmpty || Self.scriptTypes.contains(type)
                    if attributes["src"] != nil {
                        if isCode {
                            externalScripts += 1
                        }
                        rawElement = (name, nil)
                    } else {
                        rawElement = (name, isCode ? "" : nil)
                    }
                case "style":
                    rawElement = (name, nil)
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
                case "label":
                    finishLabel()
                case "noscript":
                    noscriptDepth = max(0, noscriptDepth - 1)
                case "script", "style":
                    if let open = rawElement, open.name == name {
                        if let code = open.code, !code.allSatisfy(\.isWhitespace) {
                            scripts.append(code)
                        }
                        rawElement = nil
                    }
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
                        title = collapsed(titleText)
                        inTitle = false
                    }
                default:
                    continue
                }
            }
        }
        // A form left open at the end of the document still counts.
        finishForm()
        // Labels that point at a control by id name it unless a wrapping label already did.
        for formIndex in forms.indices {
            for inputIndex in forms[formIndex].inputs.indices
            where !namedByWrappingLabel.contains([formIndex, inputIndex]) {
                if let id = forms[formIndex].inputs[inputIndex].id, let text = labelsByID[id] {
                    forms[formIndex].inputs[inputIndex].label = text
                }
            }
        }
    }

    /// Records the script a start tag carries: `on...` attributes (but
    /// `<body onload>`, kept apart) and `javascript:` URLs.
    private mutating func noteScript(in element: String, _ attributes: [String: String]) {
        for (name, value) in attributes {
            if name.hasPrefix("on") && name.count > 2 && !(element == "body" && name == "onload") {
                handlers.append(value)
            } else if name == "href" || name == "action" || name == "formaction",
                value.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("javascript:")
            {
                handlers.append(value)
            }
        }
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
