import Foundation

/// The scripts the buyer runs in the page, in an isolated script world (the
/// page's globals are not touched, the DOM and its events are shared). None
/// awaits anything: a script still waiting when its page navigates away would
/// never answer, and WebKit would keep the view (and its web process) for it.
enum BuyerJavaScript {
    /// The name of the isolated script world.
    static let world = "egw-buyer"

    /// What the scripts below share: which inputs and buttons a person sees.
    private static let common = """
        const visible = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
          return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none' && !e.disabled; };
        const entryTypes = ['text', 'password', 'number', 'tel', ''];
        const codeInputs = () => [...document.querySelectorAll('input')].filter((i) =>
          entryTypes.includes((i.getAttribute('type') || 'text').toLowerCase()) && visible(i) && !i.readOnly);
        const buttons = () => [...document.querySelectorAll(
          'button, input[type=submit], input[type=button], [role=button]')].filter(visible);
        const words = (t) => (t || '').toLowerCase().replace(/\\s+/g, ' ').trim()
          .replace(/^[^\\p{L}\\p{N}]+|[^\\p{L}\\p{N}]+$/gu, '');
        const label = (b) => words(b.tagName === 'INPUT' ? b.value : (b.textContent || b.getAttribute('aria-label')));
        """

    /// The watch script, run at the end of every top-level document: once the page shows an
    /// input or a button (or `patience` passed) and has painted twice, it posts the page's
    /// description as JSON (title, url, html without scripts, codeFields, buttons) to the `egw`
    /// message handler. Nothing waits on our side: a page that navigates away first posts nothing.
    static func watch(patience: Duration) -> String {
        let milliseconds = patience.components.seconds * 1000 + patience.components.attoseconds / 1_000_000_000_000_000
        return "(() => {\n" + common + """
            const ready = () => codeInputs().length > 0 || buttons().length > 0;
            const describe = () => {
              const copy = document.documentElement.cloneNode(true);
              copy.querySelectorAll('script').forEach((s) => s.remove());
              window.webkit.messageHandlers.egw.postMessage(JSON.stringify({ title: document.title,
                url: location.href, html: '<!DOCTYPE html>\\n' + copy.outerHTML, codeFields: codeInputs().length,
                buttons: buttons().map(label) }));
            };
            const post = () => requestAnimationFrame(() => requestAnimationFrame(describe));
            if (ready()) { post(); return; }
            const observer = new MutationObserver(() => { if (ready()) { observer.disconnect(); clearTimeout(timer); post(); } });
            observer.observe(document, { subtree: true, childList: true, attributes: true });
            const timer = setTimeout(() => { observer.disconnect(); post(); }, \(milliseconds));
            })();
            """
    }

    /// Types `code` into the code field and submits: "ok", or why not.
    static func enterCode(_ code: String) -> String {
        expression(
            common + """
                const code = \(literal(code));
                const fields = codeInputs();
                if (fields.length === 0) return 'the page has no code field';
                const hint = /one-time-code|otp|code|pass|pin|tan/i;
                const field = fields.find((f) => hint.test([f.autocomplete, f.name, f.id, f.placeholder].join(' ')))
                  || fields[0];
                field.focus();
                field.value = '';
                for (const ch of code) {
                  field.dispatchEvent(new KeyboardEvent('keydown', { key: ch, bubbles: true }));
                  field.value += ch;
                  field.dispatchEvent(new InputEvent('input', { data: ch, inputType: 'insertText', bubbles: true }));
                  field.dispatchEvent(new KeyboardEvent('keyup', { key: ch, bubbles: true }));
                }
                field.dispatchEvent(new Event('change', { bubbles: true }));
                const backOut = /^(cancel|decline|back|resend|abandon)/;
                const scope = field.form || document;
                const button = buttons().find((b) => scope.contains(b) && !backOut.test(label(b)));
                if (button) { button.click(); return 'ok'; }
                if (field.form) { field.form.requestSubmit(); return 'ok'; }
                return 'the page has no button to submit the code';
                """)
    }

    /// Clicks the first visible button labelled one of `labels`: "ok", or why not.
    static func press(_ labels: [String]) -> String {
        expression(
            common + """
                const wanted = \(literal(labels)).map(words);
                const matches = (b) => { const l = label(b); const v = words(b.value);
                  return wanted.includes(l) || wanted.includes(v) || (wanted.includes('pay') && /^pay \\S/.test(l)); };
                const button = buttons().find(matches);
                if (!button) return 'the page has no button labelled ' + JSON.stringify(wanted[0] || '');
                button.click();
                return 'ok';
                """)
    }

    /// Sets fields of form `index` and submits it: "ok", or why not.
    static func fill(formIndex index: Int, fields: [String: String]) -> String {
        expression(
            common + """
                const form = document.forms[\(index)];
                if (!form) return 'the page has no form number \(index)';
                const values = \(literal(fields));
                for (const [name, value] of Object.entries(values)) {
                  let field = form.elements.namedItem(name);
                  if (!field) { field = document.createElement('input'); field.type = 'hidden'; field.name = name;
                    form.appendChild(field); }
                  field.value = value;
                  field.dispatchEvent(new Event('input', { bubbles: true }));
                  field.dispatchEvent(new Event('change', { bubbles: true }));
                }
                const button = buttons().find((b) => form.contains(b));
                if (button) button.click(); else form.requestSubmit();
                return 'ok';
                """)
    }

    /// A function body as an expression whose value is the body's result (evaluated, not awaited).
    private static func expression(_ body: String) -> String { "(() => {\n" + body + "\n})()" }

    /// A JSON value as a JavaScript literal.
    private static func literal<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}
