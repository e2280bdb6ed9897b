/// Text for an HTML document: the one escaper for element text and quoted attribute values, shared
/// by the WebKit presenter's bootstrap page and the sandbox's pages.
///
/// It walks the text one Unicode scalar at a time, never by `Character`: a `"` followed by a
/// combining mark is one grapheme cluster, yet the HTML tokenizer still sees the `"` and closes the
/// attribute, so a grapheme-based comparison writes it raw.
///
/// The policy, per scalar:
/// - `&` `<` `>` `"` `'` as `&amp;` `&lt;` `&gt;` `&quot;` `&#39;`;
/// - U+0000 as `&#xFFFD;`: HTML cannot carry NUL (the parser replaces it with U+FFFD), so the
///   replacement is written outright rather than left to each parser;
/// - U+2028 and U+2029 as `&#x2028;` and `&#x2029;`, so a page that moves the text into a script
///   string cannot break the line;
/// - every other scalar as itself.
///
/// The output is safe in element text and in an attribute value quoted with `"` or `'`; it is not
/// for unquoted attributes, URLs' own syntax, `<script>` or `<style>` bodies. Lone surrogates need
/// no rule: a Swift `String` cannot hold one. Pure and thread-safe.
public enum HTMLEscaping {
    /// `text` escaped by the policy above.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}": out += "&#xFFFD;"
            case "\u{2028}": out += "&#x2028;"
            case "\u{2029}": out += "&#x2029;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
