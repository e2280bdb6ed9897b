import Foundation

/// How the headless browser reads a page the way a person would: which form
/// the page submits by itself, what kind of page it is when it carries no
/// `egw-page` marker, whether it needs JavaScript, which field takes a
/// challenge code and which button a choice or a label presses. Every
/// heuristic of the browser lives here; the words it looks for are tables.
///
/// Pure functions of a parsed page: no I/O, no state, safe from any thread.
enum PageRules {
    /// What the rules make of one page.
    struct Reading: Equatable {
        var kind: PageKind
        var autoSubmitFormIndex: Int?
        var needsJavaScript: Bool
    }

    /// Reads `document`. A non-empty `egw-page` marker names the kind (the
    /// sandbox's dialect); without one the kind comes from ``heuristicKind``.
    static func read(_ document: HTMLDocument) -> Reading {
        let autoSubmit = autoSubmitIndex(document)
        let needsJavaScript =
            autoSubmit == nil && document.hasScript && !document.forms.contains(where: isSubmittable)
        let marker = (document.meta["egw-page"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let kind =
            marker.isEmpty
            ? heuristicKind(document.forms, autoSubmit: autoSubmit, needsJavaScript: needsJavaScript)
            : PageKind(marker: marker)
        return Reading(kind: kind, autoSubmitFormIndex: autoSubmit, needsJavaScript: needsJavaScript)
    }

    // MARK: - Pages that submit themselves

    /// The form a browser would submit without the buyer: the five rules of
    /// ``LoadedPage/autoSubmitFormIndex`` (stated there for callers), in order.
    /// `nil` for pages that wait for the buyer.
    static func autoSubmitIndex(_ document: HTMLDocument) -> Int? {
        let forms = document.forms
        guard !forms.isEmpty else { return nil }
        // 1. The sandbox's hand-back.
        if let index = forms.firstIndex(where: { $0.id?.lowercased() == "cres-form" }) {
            return index
        }
        // 2. What a browser runs on load.
        if let onload = document.bodyOnload, onload.contains("submit(") {
            return formNamed(in: onload, forms) ?? 0
        }
        // 3. A script's submit() may sit in a click handler: only a form the buyer has nothing to fill in.
        for script in document.scripts where script.contains(".submit(") || script.contains(".requestSubmit(") {
            let index = formNamed(in: script, forms) ?? 0
            if forms[index].inputs.isEmpty {
                return index
            }
        }
        // 4. Nothing to show but a noscript fallback; a script button would be a page waiting for a click.
        if forms.count == 1, hasOnlyHiddenFields(forms[0]), forms[0].buttons.allSatisfy(\.isInNoscript),
            document.scriptButtons == 0
        {
            return 0
        }
        // 5. The issuer handing the buyer back, which a person would only confirm.
        return forms.firstIndex { hasOnlyHiddenFields($0) && carriesChallengeResult($0.fields.map(\.name)) }
    }

    /// The form `code` names: by id or name (`'x'`, `"x"`, `.x.`, `#x`), else by `forms[N]`.
    static func formNamed(in code: String, _ forms: [HTMLForm]) -> Int? {
        for (index, form) in forms.enumerated() {
            for name in [form.id, form.name].compactMap({ $0 }) where !name.isEmpty {
                let spellings = ["'\(name)'", "\"\(name)\"", ".\(name).", "#\(name)'", "#\(name)\""]
                if spellings.contains(where: code.contains) {
                    return index
                }
            }
        }
        var rest = Substring(code)
        while let open = rest.range(of: "forms[") {
            let digits = rest[open.upperBound...].prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty, rest[digits.endIndex...].hasPrefix("]"), let index = Int(digits),
                forms.indices.contains(index)
            {
                return index
            }
            rest = rest[open.upperBound...]
        }
        return nil
    }

    /// Hidden inputs, at least one, and no control the buyer fills in.
    static func hasOnlyHiddenFields(_ form: HTMLForm) -> Bool {
        form.inputs.isEmpty && !form.fields.isEmpty && form.fields.allSatisfy { $0.type == "hidden" }
    }

    /// Field names that carry a 3-D Secure result to the notification URL.
    static let challengeResultFields: Set<String> = ["cres", "pares"]

    /// Whether a submission with these field names hands a challenge result back.
    static func carriesChallengeResult(_ names: [String]) -> Bool {
        names.contains { challengeResultFields.contains($0.lowercased()) }
    }

    // MARK: - Pages without a marker

    /// The kind of a page without a marker: the rules of
    /// ``LoadedPage/init(url:status:html:)`` (stated there for callers), in order.
    static func heuristicKind(_ forms: [HTMLForm], autoSubmit: Int?, needsJavaScript: Bool) -> PageKind {
        if let autoSubmit {
            return carriesChallengeResult(forms[autoSubmit].fields.map(\.name)) ? .challengeComplete : .other
        }
        if forms.contains(where: looksLikeChallenge) {
            return .challenge
        }
        if forms.contains(where: looksLikeCheckout) {
            return .hostedCheckout
        }
        return needsJavaScript ? .needsJavaScript : .other
    }

    /// The named text entries of `form`: where a typed code can go.
    static func textEntries(_ form: HTMLForm) -> [HTMLForm.Input] {
        form.inputs.filter { $0.isTextEntry && !$0.name.isEmpty }
    }

    /// A submit button, or exactly one text entry (implicit submission).
    static func isSubmittable(_ form: HTMLForm) -> Bool {
        !form.buttons.isEmpty || form.inputs.filter(\.isTextEntry).count == 1
    }

    static func looksLikeChallenge(_ form: HTMLForm) -> Bool {
        let entries = textEntries(form)
        guard !entries.isEmpty, isSubmittable(form) else { return false }
        return entries.count == 1 || entries.contains(where: asksForOneTimeCode)
    }

    static func looksLikeCheckout(_ form: HTMLForm) -> Bool {
        let choices = Set(form.buttons.flatMap { button in HostedChoice.allCases.filter { matches(button, $0) } })
        return choices.contains(.pay) || choices.count >= 2
    }

    // MARK: - The challenge code

    /// Words that, in an input's type, name, id, label, placeholder or
    /// autocomplete, say it takes the code (a word that ends in `code` counts
    /// too: `smsCode`; so does `type="password"`).
    static let codeWords: Set<String> = ["code", "otp", "password", "passcode", "passwd", "pwd", "pin", "tan"]
    /// The subset that plainly asks for a one-time secret (not a postcode or a
    /// card's security code); `one time` and `autocomplete="one-time-code"` too.
    static let oneTimeWords: Set<String> = ["otp", "password", "passcode", "passwd", "pin", "tan", "onetime"]

    /// The words that describe `input`, lower-cased, camelCase and
    /// punctuation split: `otpCode` and `one-time-code` give `otp code`, `one time code`.
    static func describingWords(_ input: HTMLForm.Input) -> [String] {
        [input.type, input.name, input.id ?? "", input.label, input.placeholder, input.autocomplete].flatMap(words)
    }

    static func mentionsCode(_ input: HTMLForm.Input) -> Bool {
        describingWords(input).contains { codeWords.contains($0) || $0.hasSuffix("code") || $0.hasPrefix("otp") }
    }

    static func asksForOneTimeCode(_ input: HTMLForm.Input) -> Bool {
        let words = describingWords(input)
        if words.contains(where: { oneTimeWords.contains($0) || $0.hasPrefix("otp") }) {
            return true
        }
        return zip(words, words.dropFirst()).contains { $0 == "one" && $1 == "time" }
    }

    /// Where `.challenge(code:)` types: the form and the entry's name. Among
    /// the named text entries of every form, the first that mentions a code
    /// (``mentionsCode(_:)``); else the entry of the first form that has
    /// exactly one; else the first entry of any form. `nil` when no form has one.
    static func codeEntry(in forms: [HTMLForm]) -> (formIndex: Int, name: String)? {
        var single: (Int, String)?
        var first: (Int, String)?
        for (index, form) in forms.enumerated() {
            let entries = textEntries(form)
            if let hinted = entries.first(where: mentionsCode) {
                return (index, hinted.name)
            }
            if single == nil, entries.count == 1 {
                single = (index, entries[0].name)
            }
            if first == nil, let entry = entries.first {
                first = (index, entry.name)
            }
        }
        return single ?? first
    }

    /// Words on a button that go back rather than forward.
    static let backingOutWords: Set<String> = [
        "cancel", "decline", "abandon", "back", "resend", "again", "close", "help",
    ]

    /// The button that sends `form` on: the first whose label and value do not
    /// back out (cancel, resend, ...). `nil` when every button backs out (the
    /// form is then submitted as a script would, with no button) or there is none.
    static func forwardButton(of form: HTMLForm) -> HTMLForm.Button? {
        form.buttons.first { button in
            !(words(button.label) + words(button.value)).contains(where: backingOutWords.contains)
        }
    }

    // MARK: - Buttons

    /// `text` as labels are compared: lower case, whitespace collapsed, no
    /// punctuation or symbols at either end (`"  Pay now » "` is `pay now`).
    static func normalized(_ text: String) -> String {
        let collapsed = text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let isWordy: (Character) -> Bool = { $0.isLetter || $0.isNumber }
        guard let start = collapsed.firstIndex(where: isWordy), let end = collapsed.lastIndex(where: isWordy) else {
            return ""
        }
        return String(collapsed[start...end])
    }

    /// Whether `button` presses `choice`: its value is the choice's raw value
    /// (any case), or its label or value is one of ``HostedChoice/labels``
    /// (compared ``normalized(_:)``), or, for `pay`, its label is `pay`
    /// followed by an amount (`Pay 12.50 EUR`).
    static func matches(_ button: HTMLForm.Button, _ choice: HostedChoice) -> Bool {
        if button.value.caseInsensitiveCompare(choice.rawValue) == .orderedSame {
            return true
        }
        let label = normalized(button.label)
        if choice.labels.contains(label) || choice.labels.contains(normalized(button.value)) {
            return true
        }
        return choice == .pay && label.hasPrefix("pay ") && label.contains(where: \.isNumber)
    }

    /// The form, button and overrides for a hosted-page choice, first that exists:
    /// the button `name="choice"` with the choice as value (the sandbox); any
    /// button with that value; any button whose label is a label of the choice
    /// (see ``matches(_:_:)``); a form with a control or button named
    /// `choice`, given the choice as value.
    static func hostedSubmission(
        _ choice: HostedChoice, in forms: [HTMLForm]
    ) -> (HTMLForm, HTMLForm.Button?, [String: String])? {
        let wanted = choice.rawValue
        let byValue: (HTMLForm.Button) -> Bool = { $0.value.caseInsensitiveCompare(wanted) == .orderedSame }
        let passes: [(HTMLForm.Button) -> Bool] = [
            { $0.name == "choice" && byValue($0) }, byValue, { matches($0, choice) },
        ]
        for pass in passes {
            for form in forms {
                if let button = form.buttons.first(where: pass) {
                    return (form, button, [:])
                }
            }
        }
        for form in forms
        where form.field("choice") != nil || form.buttons.contains(where: { $0.name == "choice" }) {
            return (form, form.buttons.first, ["choice": wanted])
        }
        return nil
    }

    /// The first submit button whose label reads `label` (compared
    /// ``normalized(_:)``), else the first whose value does.
    static func button(labelled label: String, in forms: [HTMLForm]) -> (HTMLForm, HTMLForm.Button)? {
        let wanted = normalized(label)
        guard !wanted.isEmpty else { return nil }
        for read in [\HTMLForm.Button.label, \HTMLForm.Button.value] {
            for form in forms {
                if let button = form.buttons.first(where: { normalized($0[keyPath: read]) == wanted }) {
                    return (form, button)
                }
            }
        }
        return nil
    }

    /// `text` split into lower-case words at anything not a letter or digit
    /// and where a lower-case letter or digit meets an upper-case one.
    static func words(_ text: String) -> [String] {
        var result: [String] = []
        var word = ""
        var previousWasLower = false
        for character in text {
            guard character.isLetter || character.isNumber else {
                if !word.isEmpty { result.append(word) }
                word = ""
                previousWasLower = false
                continue
            }
            if character.isUppercase && previousWasLower && !word.isEmpty {
                result.append(word)
                word = ""
            }
            word += character.lowercased()
            previousWasLower = character.isLowercase || character.isNumber
        }
        if !word.isEmpty { result.append(word) }
        return result
    }
}
